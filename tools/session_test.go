package tools_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

// TestSessionPersonFollowsAnotherConnection keeps a session's person
// through tools.SessionPerson on one store while a second store on the
// same database (its own connections, as another process has) changes the
// person's zone, puts it back, revokes the person's token and deletes the
// person: each change shows on the very next call of the first.
func TestSessionPersonFollowsAnotherConnection(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC))
		ctx := context.Background()
		other, err := store.Open(ctx, e.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { other.Close() })
		ada := e.Person("ada", "Europe/Paris")
		token, _, err := e.Store.CreateToken(ctx, ada.ID, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		src := tools.SessionPerson(e.Store, tools.Person{ID: ada.ID, Name: ada.Name, Zone: tz.MustZone("Europe/Paris")})
		zoneNow := func(want string) {
			t.Helper()
			for range 2 { // the second call answers from what the first kept
				p, err := src(ctx)
				if err != nil {
					t.Fatalf("the session's person: %v", err)
				}
				if p.ID != ada.ID || p.Name != "ada" || p.Zone.Name() != want {
					t.Fatalf("the session's person is %d %q in %s, want %d “ada” in %s", p.ID, p.Name, p.Zone.Name(), ada.ID, want)
				}
			}
		}
		zoneNow("Europe/Paris")
		change, _, err := other.SetZone(ctx, ada.ID, "Asia/Tokyo", "person set-zone")
		if err != nil {
			t.Fatal(err)
		}
		zoneNow("Asia/Tokyo")
		if _, err := other.Undo(ctx, ada.ID, change); err != nil {
			t.Fatal(err)
		}
		zoneNow("Europe/Paris")

		if p, err := e.Store.PersonByToken(ctx, token); err != nil || p.ID != ada.ID || p.Zone != "Europe/Paris" {
			t.Fatalf("PersonByToken before the revoke = %+v, %v; want ada in Europe/Paris", p, err)
		}
		if err := other.RevokeToken(ctx, token); err != nil {
			t.Fatal(err)
		}
		if p, err := e.Store.PersonByToken(ctx, token); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("PersonByToken right after another connection revoked the token = %+v, %v; want ErrNotFound", p, err)
		}

		if err := other.DeletePerson(ctx, ada.ID); err != nil {
			t.Fatal(err)
		}
		if p, err := src(ctx); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the session's person right after another connection deleted them = %+v, %v; want ErrNotFound", p, err)
		}
	})
}
