package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// TestReadmeSession runs the example session of docs/tasks.md
// through the registry, so the outputs shown there are what the tools
// print. Each step is the `assistant call` line and the JSON the CLI makes
// of it.
func TestReadmeSession(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		h.At("Europe/Paris", "2026-11-30T09:00") // Mon
		steps := []struct{ line, raw string }{
			{`add_task title="Buy milk" due=2026-12-01 tags=errands priority=2`,
				`{"title":"Buy milk","due":"2026-12-01","tags":"errands","priority":2}`},
			{`add_task title="Water the plants" due=2026-11-28T18:00 rrule="FREQ=DAILY;INTERVAL=3" repeat_from=completion`,
				`{"title":"Water the plants","due":"2026-11-28T18:00","rrule":"FREQ=DAILY;INTERVAL=3","repeat_from":"completion"}`},
			{`add_task title="Pay rent" due=2026-12-31 rrule="FREQ=MONTHLY;BYMONTHDAY=-1" remind_before=1440`,
				`{"title":"Pay rent","due":"2026-12-31","rrule":"FREQ=MONTHLY;BYMONTHDAY=-1","remind_before":1440}`},
			{`add_task title="buy milk" due=2026-12-01 tags=errands priority=2`,
				`{"title":"buy milk","due":"2026-12-01","tags":"errands","priority":2}`},
			{`list_tasks`, `{}`},
			{`complete_task id=t2`, `{"id":"t2"}`},
			{`update_task id=t1 due=2026-12-02T18:00 add_tags=home`, `{"id":"t1","due":"2026-12-02T18:00","add_tags":"home"}`},
			{`list_tasks to=2026-12-02`, `{"to":"2026-12-02"}`},
			{`undo`, `{}`},
			{`add_task title="Call the New York office" due=2026-12-04T09:00[America/New_York]`,
				`{"title":"Call the New York office","due":"2026-12-04T09:00[America/New_York]"}`},
			{`add_task title="Check the backup" due=2027-03-14T02:30[America/New_York]`,
				`{"title":"Check the backup","due":"2027-03-14T02:30[America/New_York]"}`},
			{`list_tasks from=2026-12-04 to=2026-12-04`, `{"from":"2026-12-04","to":"2026-12-04"}`},
			{`get_task id=t2`, `{"id":"t2"}`},
			{`update_task id=t9 title="Nope"`, `{"id":"t9","title":"Nope"}`},
			{`add_task title="Call Ana" due="next friday"`, `{"title":"Call Ana","due":"next friday"}`},
		}
		var b strings.Builder
		for _, s := range steps {
			res, _ := h.Call(h.paris, strings.Fields(s.line)[0], s.raw)
			fmt.Fprintf(&b, "$ assistant call %s\n%s\n", s.line, res.TextOut())
			if res.Code != 0 {
				fmt.Fprintf(&b, "(exit %d)\n", res.Code)
			}
			b.WriteString("\n")
			h.Now = h.Now.Add(time.Minute)
		}
		golden(t, "session.golden", b.String())
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tasks.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), strings.TrimRight(b.String(), "\n")) {
			t.Error("docs/tasks.md does not show the session as the tools print it now; paste testdata/session.golden into it")
		}
	})
}

func TestSchemasAreFlat(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		for _, name := range []string{"add_task", "list_tasks", "get_task", "update_task", "complete_task", "reopen_task", "delete_task"} {
			tool, ok := h.Reg.Get(name)
			if !ok {
				t.Fatalf("%s is not registered", name)
			}
			if err := tools.CheckFlat(tool.Schema.JSON()); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}
