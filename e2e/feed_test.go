package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/feed"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// TestFeedFlow: `assistant feed create` prints the address once, list
// never shows the secret, the address printed reads the person's calendar
// through feed.Handler (on the same database, in this process) and
// nobody else's, and revoke, by id or by the whole address, ends it.
func TestFeedFlow(t *testing.T) { storetest.Engines(t, testFeedFlow) }

func testFeedFlow(t *testing.T) {
	h := newHome(t)
	h.must("person", "add", "alice", "--zone", "Europe/Paris")
	h.must("person", "add", "bob", "--zone", "UTC")
	cal := func(what string) string {
		return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:" + what + "@t\r\nDTSTAMP:20261001T000000Z\r\n" +
			"DTSTART:20261012T090000Z\r\nDTEND:20261012T100000Z\r\nSUMMARY:" + what + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	}
	for who, what := range map[string]string{"alice": "Alice's dentist", "bob": "Bob's review"} {
		file := filepath.Join(h.dir, who+".ics")
		if err := os.WriteFile(file, []byte(cal(what)), 0o600); err != nil {
			t.Fatal(err)
		}
		h.must("--person", who, "import", file)
	}

	r := h.must("feed", "create", "--person", "alice", "--label", "Google Calendar", "--url", "https://cal.example.org/")
	addr := strings.TrimSpace(r.stdout)
	m := regexp.MustCompile(`^https://cal\.example\.org/feed/(asf_[a-z2-7]{52})\.ics$`).FindStringSubmatch(addr)
	if m == nil {
		t.Fatalf("feed create: want the address alone on stdout, got %q", r.stdout)
	}
	secret := m[1]
	if !strings.Contains(r.stderr, "only this once") || !strings.Contains(r.stderr, "feed revoke 1") {
		t.Errorf("feed create does not say the address is shown once and how to revoke it: %q", r.stderr)
	}
	r = h.must("feed", "create", "--person", "bob")
	if !strings.HasPrefix(r.stdout, "http://127.0.0.1:8765/feed/asf_") {
		t.Errorf("feed create without --url: want the server's default address, got %q", r.stdout)
	}
	r = h.must("feed", "list")
	if strings.Contains(r.stdout, secret) {
		t.Fatal("feed list shows the whole secret")
	}
	if !regexp.MustCompile(`1\s+alice\s+`+secret[:12]+`…\s+Google Calendar\s+Mon 2026-10-05 09:00 \(\+02:00\)\s+-\s+valid`).MatchString(r.stdout) ||
		!regexp.MustCompile(`2\s+bob\s+asf_`).MatchString(r.stdout) {
		t.Fatalf("feed list: want id, person, prefix, label, made, last read and state, got:\n%s", r.stdout)
	}

	// The address reads alice's calendar through the handler.
	loc := h.db
	if loc == "" {
		loc = h.dbPath()
	}
	st, err := store.Open(context.Background(), loc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(feed.Handler(st, feed.Options{}))
	defer srv.Close()
	u, _ := url.Parse(addr)
	get := func() (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + u.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := get()
	if code != 200 || !strings.Contains(body, "SUMMARY:Alice's dentist") || strings.Contains(body, "Bob") {
		t.Fatalf("GET the printed address: %d\n%s", code, body)
	}
	if r = h.must("feed", "list"); regexp.MustCompile(`Google Calendar\s+\S+ \S+ \S+ \S+\s+-`).MatchString(r.stdout) {
		t.Errorf("feed list: the read is not stamped:\n%s", r.stdout)
	}

	// Bad input: exit 2 for a bad --url, 4 for an unknown person or
	// feed, 1 for what is no feed's name; nothing made.
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"feed", "create", "--url", "ftp://cal.example.org"}, 2, "“--url” must be the server's address"},
		{[]string{"feed", "create", "--url", "cal.example.org"}, 2, "“--url”"},
		{[]string{"feed", "create", "--person", "nobody"}, 4, "“nobody”"},
		{[]string{"feed", "create", "--label", "x\xff"}, 1, "“label”"},
		{[]string{"feed", "revoke", "99"}, 4, "no feed matches “99”"},
		{[]string{"feed", "revoke", "ast_abcdefgh"}, 1, "“feed” must be a feed id"},
		{[]string{"feed", "revoke"}, 2, "one feed id or prefix"},
	} {
		if r := h.run(c.args...); r.code != c.code || !strings.Contains(r.stderr, c.says) || r.stdout != "" {
			t.Errorf("%q: want exit %d saying %q, got %s", c.args, c.code, c.says, r)
		}
	}
	if r = h.must("feed", "list"); strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("a refused create made a feed:\n%s", r.stdout)
	}

	// Revoked by the whole address: the feed answers 404; bob's stays.
	r = h.must("feed", "revoke", addr)
	if strings.Contains(r.stdout, secret) || !strings.Contains(r.stdout, "Revoked feed "+secret[:12]) {
		t.Errorf("feed revoke ADDRESS: %q", r.stdout)
	}
	if code, body = get(); code != 404 || strings.Contains(body, "BEGIN") {
		t.Errorf("GET after revoke: %d %q", code, body)
	}
	if r = h.must("feed", "list"); !regexp.MustCompile(`1\s+alice.*revoked Mon`).MatchString(r.stdout) || !regexp.MustCompile(`2\s+bob.*valid`).MatchString(r.stdout) {
		t.Errorf("feed list after revoke:\n%s", r.stdout)
	}
	h.must("feed", "revoke", "2")
}
