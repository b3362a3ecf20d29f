package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/tz"
)

var accepted = []string{"from", "to", "cursor", "remind_before", "remind_at"}

func read(t *testing.T, raw string) *args.Args {
	t.Helper()
	a, err := args.New([]byte(raw), accepted, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReadWindow(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	// 2026-11-29 23:30 in Paris is already 22:30 UTC the same day; choose an
	// instant where UTC's day differs from the person's: 00:30 Paris = 23:30 UTC the day before.
	now := time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC) // Mon 2026-11-30 00:30 in Paris
	cases := []struct {
		raw      string
		from, to string // RFC 3339 in Paris
		err      string
		text     string
	}{
		{`{}`, "2026-11-30T00:00:00+01:00", "2026-12-07T00:00:00+01:00", "", "Mon 2026-11-30 to Sun 2026-12-06"},
		{`{"from":"2026-12-01","to":"2026-12-01"}`, "2026-12-01T00:00:00+01:00", "2026-12-02T00:00:00+01:00", "", "Tue 2026-12-01"},
		{`{"from":"2026-12-01T09:00","to":"2026-12-01T12:00"}`, "2026-12-01T09:00:00+01:00", "2026-12-01T12:00:00+01:00", "", ""},
		{`{"from":"2026-12-01T08:00Z"}`, "2026-12-01T09:00:00+01:00", "2026-12-08T09:00:00+01:00", "", ""},
		{`{"to":"2026-12-10"}`, "2026-12-04T00:00:00+01:00", "2026-12-11T00:00:00+01:00", "", ""},
		{`{"from":"2026-03-25","to":"2026-03-30"}`, "2026-03-25T00:00:00+01:00", "2026-03-31T00:00:00+02:00", "", "Wed 2026-03-25 to Mon 2026-03-30"},
		{`{"from":"2026-12-02","to":"2026-12-01T10:00"}`, "", "", "“to” must be after “from”", ""},
		{`{"from":"tomorrow"}`, "", "", "“from”", ""},
	}
	for _, c := range cases {
		t.Run(c.raw, func(t *testing.T) {
			a := read(t, c.raw)
			w := ReadWindow(a, paris, now)
			if c.err != "" {
				if a.Err() == nil || !strings.Contains(a.Err().Error(), c.err) {
					t.Fatalf("err = %v, want %q", a.Err(), c.err)
				}
				return
			}
			if a.Err() != nil {
				t.Fatal(a.Err())
			}
			if got := tz.RFC3339(w.From, paris); got != c.from {
				t.Errorf("from = %s, want %s", got, c.from)
			}
			if got := tz.RFC3339(w.To, paris); got != c.to {
				t.Errorf("to = %s, want %s", got, c.to)
			}
			if c.text != "" && w.String(paris) != c.text {
				t.Errorf("String = %q, want %q", w.String(paris), c.text)
			}
		})
	}
}

func TestWindowContains(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := Window{From: base, To: base.Add(24 * time.Hour)}
	h := time.Hour
	cases := []struct {
		start, end time.Duration
		want       bool
	}{
		{-2 * h, -h, false},
		{-h, 0, false}, // ends exactly at from: no overlap
		{-h, h, true},
		{23 * h, 25 * h, true},
		{24 * h, 25 * h, false}, // starts at to: outside
		{0, 0, true},            // instant at from
		{24 * h, 24 * h, false}, // instant at to
	}
	for _, c := range cases {
		if got := w.Contains(base.Add(c.start), base.Add(c.end)); got != c.want {
			t.Errorf("Contains(%v, %v) = %v", c.start, c.end, got)
		}
	}
}

func TestReminders(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	a := read(t, `{"remind_before":["30", 1440, 30],"remind_at":"2026-12-01T08:00"}`)
	r := ReadReminders(a, paris)
	if a.Err() != nil {
		t.Fatal(a.Err())
	}
	if r.BeforeJSON() != "[30,1440]" || r.AtJSON() != `["2026-12-01T08:00"]` {
		t.Fatalf("got %s %s", r.BeforeJSON(), r.AtJSON())
	}
	back, err := item.ParseReminders(r.BeforeJSON(), r.AtJSON())
	if err != nil || back.Describe() != r.Describe() || r.Describe() != "30 min, 1 day before; at 2026-12-01T08:00" {
		t.Fatalf("round trip: %+v %v %q", back, err, r.Describe())
	}
	if (item.Reminders{}).BeforeJSON() != "[]" || (item.Reminders{}).AtJSON() != "[]" {
		t.Fatal("empty reminders must be []")
	}
	for _, bad := range []string{`{"remind_before":[-5]}`, `{"remind_before":[50000]}`, `{"remind_at":["soon"]}`,
		`{"remind_before":[1,2,3,4,5,6,7,8,9,10,11]}`} {
		a := read(t, bad)
		ReadReminders(a, paris)
		if a.Err() == nil || !strings.Contains(a.Err().Error(), "“remind_") {
			t.Errorf("%s: err = %v", bad, a.Err())
		}
	}
}

func TestCursor(t *testing.T) {
	if NextCursor(0, 20, 20) != "" || NextCursor(0, 20, 21) != "o20" {
		t.Fatal("NextCursor")
	}
	a := read(t, `{"cursor":"o20"}`)
	if ReadCursor(a, 30) != 20 || a.Err() != nil {
		t.Fatal("ReadCursor o20")
	}
	for _, bad := range []string{`{"cursor":"20"}`, `{"cursor":"o-1"}`, `{"cursor":"o99"}`} {
		a := read(t, bad)
		ReadCursor(a, 30)
		if a.Err() == nil || !strings.Contains(a.Err().Error(), "“cursor”") {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestNormTitleAndFingerprint(t *testing.T) {
	if item.NormTitle("  Buy   Milk.. ") != "buy milk" || item.NormTitle("Ça va?") != "ça va" {
		t.Fatal(item.NormTitle("  Buy   Milk.. "))
	}
	a := Fingerprint(map[string]any{"a": 1, "b": "x"})
	b := Fingerprint(map[string]any{"b": "x", "a": 1})
	if a != b || a == Fingerprint(map[string]any{"a": 2, "b": "x"}) || len(a) != 64 {
		t.Fatal("fingerprint not stable or not distinct")
	}
	if item.Lead(90) != "90 min" || item.Lead(120) != "2 h" || item.Lead(2880) != "2 days" || item.Lead(10080) != "1 week" {
		t.Fatal("Lead")
	}
}
