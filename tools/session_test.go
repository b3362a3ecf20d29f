package tools_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
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

// TestSessionCallsFollowAnotherConnection runs calls through a Registry
// whose context keeps the person in a tools.Session, as `assistant mcp`
// and chat do, while a second store on the same database (as another
// process) changes the person's zone: the next call of every kind answers
// in the new zone (a write, whose first transaction finds the change and
// runs once more, adding one task, not two; a read; a call that makes no
// transaction), and a person deleted meanwhile fails the next call.
func TestSessionCallsFollowAnotherConnection(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		now := time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)
		e := tooltest.Open(t, now, events.Register, tasks.Register)
		ctx := context.Background()
		other, err := store.Open(ctx, e.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { other.Close() })
		ada := e.Person("ada", "Europe/Paris")
		tc := &tools.ToolContext{}
		tools.Insert(tc, ada)
		tools.Insert(tc, tools.Clock(func() time.Time { return now }))
		tools.Insert(tc, e.Store)
		tools.InsertSession(tc, tools.NewSession(e.Store, ada))
		call := func(name, raw string) tools.ExecResult {
			t.Helper()
			res, _ := e.Reg.Call(ctx, tc, name, []byte(raw))
			return res
		}
		zoneIs := func(want string) {
			t.Helper()
			res := call("current_time", `{}`)
			if res.Code != tools.CodeOK || !strings.Contains(res.Out, want) {
				t.Fatalf("current_time = %d %q %q, want it in %s", res.Code, res.Out, res.Err, want)
			}
		}
		setZone := func(zone string) {
			t.Helper()
			if _, _, err := other.SetZone(ctx, ada.ID, zone, "person set-zone"); err != nil {
				t.Fatal(err)
			}
		}
		zoneIs("Europe/Paris")

		// A write: 09:00 on the 6th in the zone stored when the call is made.
		setZone("Asia/Tokyo")
		res := call("add_task", `{"title":"Call the bank","due":"2026-10-06T09:00"}`)
		if res.Code != tools.CodeOK || !strings.Contains(res.Out, "09:00") {
			t.Fatalf("add_task after the zone change = %d %q %q", res.Code, res.Out, res.Err)
		}
		var n int
		var dueZone string
		if err := e.Store.DB().QueryRowContext(ctx, `SELECT count(*), max(due_zone) FROM tasks`).Scan(&n, &dueZone); err != nil {
			t.Fatal(err)
		}
		if n != 1 || dueZone != "Asia/Tokyo" {
			t.Fatalf("after one add_task the database holds %d tasks, due in %q; want 1 in Asia/Tokyo", n, dueZone)
		}
		zoneIs("Asia/Tokyo")

		// A read: the task due 09:00 in Tokyo is due 02:00 in Paris.
		setZone("Europe/Paris")
		res = call("list_tasks", `{}`)
		if res.Code != tools.CodeOK || !strings.Contains(res.Out, "02:00") {
			t.Fatalf("list_tasks after the zone change back = %d %q %q; want the due at 02:00", res.Code, res.Out, res.Err)
		}

		// A call that makes no transaction.
		setZone("America/New_York")
		zoneIs("America/New_York")

		if err := other.DeletePerson(ctx, ada.ID); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"current_time", "list_tasks"} {
			if res := call(name, `{}`); res.Code == tools.CodeOK {
				t.Fatalf("%s right after another connection deleted the person = %q; want a failure", name, res.Out)
			}
		}
	})
}

// TestSessionMatchesReadingFirst is a differential test of the kept
// person against reading the person before each call (the oracle, as
// SessionPerson does): random zone changes from a second store, each
// followed or not by calls of random tools (a write, a read, a call with
// no transaction), on both engines. Every call must act in the zone the
// oracle reads just before it, and every add_task add exactly one task.
func TestSessionMatchesReadingFirst(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		now := time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)
		e := tooltest.Open(t, now, events.Register, tasks.Register)
		ctx := context.Background()
		other, err := store.Open(ctx, e.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { other.Close() })
		ada := e.Person("ada", "Europe/Paris")
		tc := &tools.ToolContext{}
		tools.Insert(tc, ada)
		tools.Insert(tc, tools.Clock(func() time.Time { return now }))
		tools.Insert(tc, e.Store)
		tools.InsertSession(tc, tools.NewSession(e.Store, ada))
		oracle := tools.SessionPerson(other, ada)
		zones := []string{"Europe/Paris", "Asia/Tokyo", "America/New_York", "Australia/Sydney"}
		rng := rand.New(rand.NewPCG(21, uint64(len(t.Name()))))
		added := 0
		for i := range 60 {
			if rng.IntN(3) == 0 {
				if _, _, err := other.SetZone(ctx, ada.ID, zones[rng.IntN(len(zones))], "person set-zone"); err != nil {
					t.Fatal(err)
				}
			}
			want, err := oracle(ctx)
			if err != nil {
				t.Fatal(err)
			}
			zone := want.Zone.Name()
			switch rng.IntN(3) {
			case 0:
				res, _ := e.Reg.Call(ctx, tc, "current_time", []byte(`{}`))
				if res.Code != tools.CodeOK || !strings.Contains(res.Out, zone) {
					t.Fatalf("call %d: current_time = %q %q, want it in %s", i, res.Out, res.Err, zone)
				}
			case 1:
				title := fmt.Sprintf("Task %d", i)
				res, _ := e.Reg.Call(ctx, tc, "add_task", []byte(`{"title":"`+title+`","due":"2026-10-06T09:00"}`))
				if res.Code != tools.CodeOK {
					t.Fatalf("call %d: add_task = %q %q", i, res.Out, res.Err)
				}
				added++
				var n int
				var dueZone string
				if err := other.DB().QueryRowContext(ctx, `SELECT count(*), max(due_zone) FROM tasks WHERE title = ?`, title).Scan(&n, &dueZone); err != nil {
					t.Fatal(err)
				}
				if n != 1 || dueZone != zone {
					t.Fatalf("call %d: add_task stored %d tasks due in %q, want 1 in %s", i, n, dueZone, zone)
				}
			case 2:
				res, _ := e.Reg.Call(ctx, tc, "list_tasks", []byte(`{"limit":1}`))
				if res.Code != tools.CodeOK {
					t.Fatalf("call %d: list_tasks = %q %q", i, res.Out, res.Err)
				}
				if added > 0 {
					// Task 0's due, 09:00 in the zone it was added in, read
					// in the zone of the call: compare with the oracle's.
					var at int64
					if err := other.DB().QueryRowContext(ctx, `SELECT min(due_at) FROM tasks`).Scan(&at); err != nil {
						t.Fatal(err)
					}
					hm := time.Unix(at, 0).In(want.Zone.Location()).Format("15:04")
					if !strings.Contains(res.Out, hm) {
						t.Fatalf("call %d: list_tasks = %q, want the first due at %s in %s", i, res.Out, hm, zone)
					}
				}
			}
		}
		var n int
		if err := other.DB().QueryRowContext(ctx, `SELECT count(*) FROM tasks`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != added {
			t.Fatalf("%d add_task calls left %d tasks", added, n)
		}
	})
}
