package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestTokenListTimesInZone: token list shows MADE, LAST USED and revoked
// times as the tools write them, in the zone of whoever the command acts
// as (finding 10), never as UTC RFC 3339.
func TestTokenListTimesInZone(t *testing.T) { storetest.Engines(t, testTokenListTimesInZone) }

func testTokenListTimesInZone(t *testing.T) {
	h := newHome(t) // TZ=Europe/Paris, clock Mon 2026-10-05 09:00 +02:00
	h.must("person", "add", "alice", "--zone", "America/New_York")
	h.must("token", "create", "--person", "alice", "--label", "laptop")
	raw := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d`)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no local person yet: the first-run zone", nil, "Mon 2026-10-05 09:00 (+02:00)"},
		{"--person: theirs", []string{"--person", "alice"}, "Mon 2026-10-05 03:00 (-04:00)"},
		{"--tz wins", []string{"--tz", "Asia/Tokyo"}, "Mon 2026-10-05 16:00 (+09:00)"},
	}
	for _, c := range cases {
		r := h.must(append([]string{"token", "list"}, c.args...)...)
		if !strings.Contains(r.stdout, "laptop  "+c.want) {
			t.Errorf("%s: want MADE %q, got:\n%s", c.name, c.want, r.stdout)
		}
		if m := raw.FindString(r.stdout); m != "" {
			t.Errorf("%s: a raw time %q in:\n%s", c.name, m, r.stdout)
		}
	}
	// The local person's stored zone counts once they exist.
	h.must("person", "add", "tester", "--zone", "Asia/Kolkata")
	h.must("token", "revoke", "1")
	r := h.must("token", "list")
	if want := "laptop  Mon 2026-10-05 12:30 (+05:30)  -          revoked Mon 2026-10-05 12:30 (+05:30)"; !strings.Contains(r.stdout, want) {
		t.Errorf("local person's zone: want %q in:\n%s", want, r.stdout)
	}
	if r := h.run("token", "list", "--person", "nobody"); r.code != 4 || !strings.Contains(r.stderr, "“nobody”") {
		t.Errorf("an unknown --person: want exit 4 naming them, got %s", r)
	}
}
