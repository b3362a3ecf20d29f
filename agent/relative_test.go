package agent

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A small model writes "tomorrow 9am" for a due: the tool reads it at the
// call's now in the person's zone, the tool message tells the model what
// it was read as, and the person's tool line shows both.
func TestRealToolsRelativeDue(t *testing.T) { storetest.Engines(t, testRealToolsRelativeDue) }

func testRealToolsRelativeDue(t *testing.T) {
	const answer = "Done: t1, tomorrow at 09:00."
	e := newRealEnv(t, false, // Mon 2026-07-13 18:00 in Paris
		callsReply(call{"call_r1", "add_task", `{"title":"Call Ana","due":"tomorrow 9am","remind_before":"1h"}`}),
		textReply(answer))
	got, err := e.agent.Turn(e.ctx, NewMemory(), "remind me to call Ana tomorrow at 9, an hour before")
	if err != nil {
		t.Fatal(err)
	}
	if got != answer {
		t.Errorf("answer = %q", got)
	}
	reqs := e.fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2: a relative due must take one round", len(reqs))
	}
	tm := toolMessages(reqs[1])
	if len(tm) != 1 || !strings.Contains(tm[0].Content, "Read “tomorrow 9am” (due) as Tue 2026-07-14 09:00 (+02:00).") {
		t.Fatalf("tool message = %+v, want the reading echoed", tm)
	}
	rows := e.tasks()
	if len(rows) != 1 || rows[0].DueTime.String != "2026-07-14T09:00" || rows[0].Zone.String != "Europe/Paris" {
		t.Errorf("stored %+v, want due 2026-07-14T09:00 in Europe/Paris", rows)
	}
	wantOut := "→ add_task \"Call Ana\" due tomorrow 9am = Tue 2026-07-14 09:00 (+02:00) ✓ t1\n" + answer + "\n"
	if e.out.String() != wantOut {
		t.Errorf("Out = %q, want %q", e.out.String(), wantOut)
	}
}
