package remind

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// rawTime matches RFC 3339 times, which a person should
// never have to read in a message's text.
var rawTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d`)

// TestDigestTextReadsLikeTheTools: the agenda's text gives times as the
// tools do ("Mon 2026-10-05 09:00 (+02:00)"), while its JSON keeps RFC
// 3339 (finding 10).
func TestDigestTextReadsLikeTheTools(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-04T20:00"))
		e.call(e.ada, "add_event", `{"title":"Night shift","start":"2026-10-04T22:00","duration":600}`)
		e.call(e.ada, "add_event", `{"title":"Standup","start":"2026-10-05T09:00","duration":15}`)
		e.call(e.ada, "add_event", `{"title":"Holiday","start":"2026-10-05"}`)
		e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00"}`)
		e.call(e.ada, "add_task", `{"title":"Old thing","due":"2026-10-01"}`)
		e.call(e.ada, "add_task", `{"title":"Call back","due":"2026-10-03T18:30"}`)
		d, _ := ParseDigest("07:30")
		eng := e.engine(Options{Digest: d, People: []int64{e.ada.ID}})
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-05T07:30")
		e.pass(eng)
		got := e.rec.take()
		if len(got) != 1 || got[0].Digest == nil {
			t.Fatalf("want one digest, got %+v", got)
		}
		want := strings.Join([]string{
			"Agenda for Mon 2026-10-05",
			"Sun 2026-10-04 22:00 (+02:00) Night shift (e1)",
			"all day Holiday (e3)",
			"09:00 Standup (e2)",
			"[overdue] Old thing (t2), due Thu 2026-10-01",
			"[overdue] Call back (t3), due Sat 2026-10-03 18:30 (+02:00)",
			"[due] Buy milk (t1), due Mon 2026-10-05 09:00 (+02:00)",
		}, "\n")
		text := regexp.MustCompile(` \(e(\d)@[0-9TZ]+\)`).ReplaceAllString(got[0].Text, " (e$1)")
		if text != want {
			t.Errorf("digest text:\n%s\nwant:\n%s", text, want)
		}
		if m := rawTime.FindString(text); m != "" {
			t.Errorf("digest text has a raw time %q:\n%s", m, got[0].Text)
		}
		b, _ := json.Marshal(got[0].Digest)
		for _, s := range []string{`"due":"2026-10-05T09:00:00+02:00"`, `"due":"2026-10-01"`, `"start":"2026-10-05T09:00:00+02:00"`} {
			if !strings.Contains(string(b), s) {
				t.Errorf("digest JSON lacks %s: %s", s, b)
			}
		}
	})
}
