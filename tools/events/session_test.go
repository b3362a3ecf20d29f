package events

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestReadmeSession runs the example session of docs/events.md
// through the registry at the README's clock, so the answers shown there
// are what the tools print. Each step is the `assistant call` line and the
// JSON object `assistant call` makes of it (a list argument named twice,
// as in clear=location clear=remind_before, is one array).
func TestReadmeSession(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t) // Mon 2026-10-05 09:00 in Paris
		steps := []struct{ line, raw string }{
			{`add_event title="Team sync" start=2026-10-05T10:00 duration=30 rrule="FREQ=WEEKLY;BYDAY=MO,TH" location="Room 4" remind_before=10`,
				`{"title":"Team sync","start":"2026-10-05T10:00","duration":30,"rrule":"FREQ=WEEKLY;BYDAY=MO,TH","location":"Room 4","remind_before":[10]}`},
			{`list_events from=2026-10-05 to=2026-10-11`, `{"from":"2026-10-05","to":"2026-10-11"}`},
			{`update_event id=e1@20261008T080000Z start=2026-10-08T14:00`, `{"id":"e1@20261008T080000Z","start":"2026-10-08T14:00"}`},
			{`update_event id=e1 clear=location clear=remind_before`, `{"id":"e1","clear":["location","remind_before"]}`},
			{`delete_event id=e1@20261019T080000Z scope=following`, `{"id":"e1@20261019T080000Z","scope":"following"}`},
			{`undo`, `{}`},
		}
		var b strings.Builder
		for _, s := range steps {
			res, _ := e.call(e.alice, strings.Fields(s.line)[0], s.raw)
			fmt.Fprintf(&b, "$ assistant call %s\n%s\n", s.line, res.TextOut())
			if res.Code != 0 {
				fmt.Fprintf(&b, "(exit %d)\n", res.Code)
			}
			b.WriteString("\n")
			e.Now = e.Now.Add(time.Minute)
		}
		golden(t, "session.golden", b.String())
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), strings.TrimRight(b.String(), "\n")) {
			t.Error("docs/events.md does not show the session as the tools print it now; paste testdata/session.golden into it")
		}
	})
}
