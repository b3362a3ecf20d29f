package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/args"
)

var tomorrow = args.Reading{Name: "due", Text: "tomorrow 9am", As: "Wed 2026-12-02 09:00 (+01:00)"}

const echo = "Read “tomorrow 9am” (due) as Wed 2026-12-02 09:00 (+01:00)."

// TestWithReadings: the echo goes after the text of every kind of answer,
// before it when the text is too long to be kept whole, never into Data
// nor into a text that is itself the data.
func TestWithReadings(t *testing.T) {
	r := SuccessWithData("Added t1.", map[string]string{"id": "t1"}).withReadings([]args.Reading{tomorrow})
	if r.TextOut() != "Added t1.\n"+echo || string(r.Data) != `{"id":"t1"}` || len(r.Readings) != 1 {
		t.Errorf("text answer: %q, data %s", r.TextOut(), r.Data)
	}
	o := &Output{Heading: "2 events", Rows: []string{"a", "b"}, Footer: "More: cursor x"}
	r = WithOutput(o).withReadings([]args.Reading{tomorrow})
	if r.TextOut() != "2 events\na\nb\nMore: cursor x\n"+echo || o.Footer != "More: cursor x" {
		t.Errorf("rows answer: %q (the caller's Output changed: %v)", r.TextOut(), o.Footer != "More: cursor x")
	}
	r = SuccessData(map[string]int{"n": 1}).withReadings([]args.Reading{tomorrow})
	if !json.Valid([]byte(r.TextOut())) {
		t.Errorf("a JSON answer was broken: %q", r.TextOut())
	}
	if r := Success("ok").withReadings(nil); r.TextOut() != "ok" {
		t.Errorf("no readings changed the text: %q", r.TextOut())
	}

	long := strings.Repeat("row of a long list\n", TextBound/19+10)
	r = Success(long).withReadings([]args.Reading{tomorrow}).Bound()
	if !strings.HasPrefix(r.TextOut(), echo+"\n") {
		t.Errorf("the echo of a long answer was cut: %q…", r.TextOut()[:80])
	}

	many := make([]args.Reading, 25)
	for i := range many {
		many[i] = tomorrow
	}
	r = Success("Added e1.").withReadings(many)
	if n := strings.Count(r.TextOut(), "Read “"); n != maxReadings || !strings.HasSuffix(r.TextOut(), "(and 15 more words read, not listed here).") {
		t.Errorf("25 readings echoed as %d lines: %q", n, r.TextOut())
	}
}
