package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// The listing is the owner's conversations only, newest first, with the
// count, the last message's time and the first message the person wrote.
func TestConversationsListing(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		msg := func(role, content string) json.RawMessage {
			b, _ := json.Marshal(map[string]string{"role": role, "content": content})
			return b
		}
		older, err := f.s.NewConversation(f.ctx, f.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.AppendMessages(f.ctx, f.alice.ID, older, []json.RawMessage{msg("user", "plan my week"), msg("assistant", "Done.")}); err != nil {
			t.Fatal(err)
		}
		f.clock = t0.Add(time.Hour)
		empty, err := f.s.NewConversation(f.ctx, f.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.clock = t0.Add(2 * time.Hour)
		if err := f.s.AppendMessages(f.ctx, f.alice.ID, older, []json.RawMessage{msg("user", "and next week?")}); err != nil {
			t.Fatal(err)
		}
		bobs, err := f.s.NewConversation(f.ctx, f.bob.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.AppendMessages(f.ctx, f.bob.ID, bobs, []json.RawMessage{msg("user", "bob's secret")}); err != nil {
			t.Fatal(err)
		}

		got, err := f.s.Conversations(f.ctx, f.alice.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != older || got[1].ID != empty {
			t.Fatalf("listing = %+v, want %d then %d", got, older, empty)
		}
		o := got[0]
		if o.Messages != 3 || !o.Created.Equal(t0) || !o.LastMessage.Equal(t0.Add(2*time.Hour)) || string(o.FirstUser) != string(msg("user", "plan my week")) {
			t.Errorf("older = %+v", o)
		}
		e := got[1]
		if e.Messages != 0 || e.FirstUser != nil || !e.LastMessage.Equal(t0.Add(time.Hour)) {
			t.Errorf("empty = %+v", e)
		}
		for _, c := range got {
			if c.ID == bobs {
				t.Errorf("bob's conversation %d is in alice's listing", bobs)
			}
		}
		if one, err := f.s.Conversations(f.ctx, f.alice.ID, 1); err != nil || len(one) != 1 || one[0].ID != older {
			t.Errorf("limit 1: %+v, %v", one, err)
		}
		if none, err := f.s.Conversations(f.ctx, 9999, 0); err != nil || len(none) != 0 {
			t.Errorf("unknown person: %+v, %v", none, err)
		}
	})
}
