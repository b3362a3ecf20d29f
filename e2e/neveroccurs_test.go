package e2e

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tools/catalog"
	_ "modernc.org/sqlite"
)

// A rule that can never occur, or whose COUNT the calendar cannot reach,
// is refused when given, naming “rrule”; one already stored (written here
// straight into the database, as an older version accepted it) is treated
// as ended: remind --once, remind --status and export all finish (within
// runLimit, else the run is killed and fails), and the other person's
// reminder is still sent.
func TestStoredRuleThatNeverOccursEndsEverySearch(t *testing.T) {
	if _, ok := catalog.New().Get("add_event"); !ok {
		t.Skip("the event tools are not registered in this build")
	}
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:00:00Z"
	h.must("person", "add", "m", "--zone", "UTC")
	h.must("person", "add", "v", "--zone", "UTC")
	h.must("--person", "v", "call", "add_task", "title=dentist", "due=2026-10-06T10:00", "remind_before=10")
	for _, rule := range []string{"FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", "FREQ=YEARLY;INTERVAL=1000;COUNT=20"} {
		r := h.run("--person", "m", "call", "add_event", "title=x", "start=2026-10-06T09:00", "rrule="+rule, "remind_before=5")
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "“rrule”") || !strings.Contains(r.stdout+r.stderr, "write") {
			t.Errorf("add_event rrule=%s: want a refusal naming “rrule” with what to write, got %s", rule, r)
		}
	}
	h.must("--person", "m", "call", "add_event", "title=never", "start=2026-10-06T09:00", "rrule=FREQ=YEARLY", "remind_before=5")
	h.must("--person", "m", "call", "add_event", "title=far", "start=2026-10-06T09:30", "rrule=FREQ=YEARLY;COUNT=20", "remind_before=5")
	db, err := sql.Open("sqlite", "file:"+h.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	for title, rule := range map[string]string{"never": "FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", "far": "FREQ=YEARLY;INTERVAL=1000;COUNT=20"} {
		if _, err := db.Exec(`UPDATE events SET rrule = ?, last_at = NULL WHERE title = ?`, rule, title); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	h.env["ASSISTANT_NOW"] = "2026-10-06T09:55:00Z"
	r := h.run("remind", "--once")
	var sent []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m struct{ Title string }
		if json.Unmarshal([]byte(line), &m) == nil {
			sent = append(sent, m.Title)
		}
	}
	if !strings.Contains(strings.Join(sent, ","), "dentist") {
		t.Errorf("remind --once did not send the dentist reminder (sent %v): %s", sent, r)
	}
	if r := h.run("remind", "--status"); r.code != 0 || !strings.Contains(r.stdout, "dentist") {
		t.Errorf("remind --status: %s", r)
	}
	if r := h.run("--person", "m", "export"); r.code != 0 || !strings.Contains(r.stdout, "RRULE:FREQ=YEARLY;INTERVAL=1000;COUNT=20") {
		t.Errorf("export: %s", r)
	}
	if r := h.run("--person", "m", "call", "get_event", "id=e1"); r.code != 0 {
		t.Errorf("get_event of the stored rule: %s", r)
	}
}
