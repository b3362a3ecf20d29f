package args

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

func TestParseMoment(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	cases := []struct {
		in        string
		moment    string // Moment as written
		zone      string
		bracketed bool
		at        string // RFC 3339 in UTC
		moved     bool
		err       string // in the sentence; "" for none
	}{
		{"2026-10-05", "2026-10-05", "Europe/Paris", false, "2026-10-04T22:00:00Z", false, ""},
		{" 2026-10-05T09:00 ", "2026-10-05T09:00", "Europe/Paris", false, "2026-10-05T07:00:00Z", false, ""},
		{"20261005T0900", "2026-10-05T09:00", "Europe/Paris", false, "2026-10-05T07:00:00Z", false, ""},
		// a time in Paris's spring gap: kept as written, the instant moved
		{"2026-03-29T02:30", "2026-03-29T02:30", "Europe/Paris", false, "2026-03-29T01:30:00Z", true, ""},
		// an instant: the reading of Paris's clock at it
		{"2026-10-05T07:00Z", "2026-10-05T09:00", "Europe/Paris", false, "2026-10-05T07:00:00Z", false, ""},
		{"2026-10-05T09:00+03:00", "2026-10-05T08:00", "Europe/Paris", false, "2026-10-05T06:00:00Z", false, ""},
		{"2026-10-05T09:00[+03:00]", "2026-10-05T08:00", "Europe/Paris", false, "2026-10-05T06:00:00Z", false, ""},
		// a zone in brackets: read there, kept as written, even in its gap
		{"2026-10-05T09:00[America/New_York]", "2026-10-05T09:00", "America/New_York", true, "2026-10-05T13:00:00Z", false, ""},
		{"2026-03-08T02:30[America/New_York]", "2026-03-08T02:30", "America/New_York", true, "2026-03-08T07:30:00Z", true, ""},
		{"20260308T0230[America/New_York]", "2026-03-08T02:30", "America/New_York", true, "2026-03-08T07:30:00Z", true, ""},
		{"2026-10-05T09:00-04:00[America/New_York]", "2026-10-05T09:00", "America/New_York", true, "2026-10-05T13:00:00Z", false, ""},
		{"2026-10-05[Asia/Tokyo]", "2026-10-05", "Asia/Tokyo", true, "2026-10-04T15:00:00Z", false, ""},
		// the second 01:30 of Paris's fall-back, written with its offset
		{"2026-10-25T01:30Z", "2026-10-25T02:30", "Europe/Paris", false, "2026-10-25T01:30:00Z", false, ""},
		{"tomorrow", "", "", false, "", false, "“due” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “tomorrow”."},
		{"2026-02-30", "", "", false, "", false, "“due” must be a day that exists on the calendar, not “2026-02-30”: February 2026 has 28 days."},
		{"2026-10-05T09:00[CEST]", "", "", false, "", false, "not the abbreviation “CEST”; write the zone of the place, such as Europe/Paris"},
		{"2026-10-05T09:00+05:00[!Europe/Paris]", "", "", false, "", false, "“due” has the offset +05:00, but Europe/Paris is at +02:00 then"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			w, err := ParseMoment("due", c.in, paris)
			if c.err != "" {
				e, ok := err.(*Error)
				if !ok || e.Name != "due" || !strings.Contains(e.Sentence, c.err) {
					t.Fatalf("err = %#v, want a sentence with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			written := tz.Moment{DateTime: w.Moment.Clock(), HasTime: w.Moment.HasTime}.String()
			if written != c.moment || w.Zone.Name() != c.zone || w.Bracketed != c.bracketed ||
				w.At.Format(time.RFC3339) != c.at || w.At.Location() != time.UTC || w.Moved != c.moved {
				t.Fatalf("got %s %s %v %s %v, want %s %s %v %s %v", written, w.Zone, w.Bracketed, w.At.Format(time.RFC3339), w.Moved,
					c.moment, c.zone, c.bracketed, c.at, c.moved)
			}
			if back, _ := w.Zone.Instant(w.Moment.DateTime); w.Moment.HasTime && !back.Equal(w.At) {
				t.Fatalf("Zone.Instant(Moment) = %v, not At %v", back, w.At)
			}
		})
	}
}

// TestWhenAgreesWithMoment: for every text, Args.When reads what
// Args.Moment and Args.MomentZone read, with the same sentence when it
// refuses.
func TestWhenAgreesWithMoment(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	for _, s := range []string{"2026-10-05", "2026-10-05T09:00", "2026-03-29T02:30", "2026-10-25T02:30", "2026-10-25T00:30Z",
		"2026-10-25T01:30Z", "2026-10-05T09:00[America/New_York]", "2026-03-08T02:30[America/New_York]", "2026-10-05T09:00Z[Asia/Tokyo]",
		"2026-10-05T09:00[+03:00]", "2026-10-05[Asia/Tokyo]", "0001-01-01T00:30+01:00", "9999-12-31T23:30-01:00", "2026-10-05T24:00", "soon",
		"2026-10-05T09:00[Mars/Olympus]", "2026-10-05T09:00[EST]"} {
		raw, _ := json.Marshal(map[string]string{"due": s})
		read := func() *Args {
			a, err := New(raw, []string{"due"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a.SetHome(paris)
			return a
		}
		a, b := read(), read()
		w, ok := a.When("due", paris)
		zone := paris
		if z, br := b.MomentZone("due"); br {
			zone = z
		}
		m, mok := b.Moment("due", zone)
		if fmt.Sprint(a.Err()) != fmt.Sprint(b.Err()) || ok != mok {
			t.Errorf("%s: When %v %v, Moment %v %v", s, ok, a.Err(), mok, b.Err())
			continue
		}
		if !ok {
			continue
		}
		if w.Zone.Name() != zone.Name() || w.In(zone) != m {
			t.Errorf("%s: When.In = %v in %s, Moment = %v in %s", s, w.In(zone), w.Zone, m, zone)
		}
		if pm, err := ParseMoment("due", s, paris); err != nil || pm != w {
			t.Errorf("%s: ParseMoment = %+v %v, When = %+v", s, pm, err, w)
		}
	}
}

// ExampleParseMoment reads a due once: the civil time as written, the
// zone, the instant, and whether a DST gap moved it.
func ExampleParseMoment() {
	paris := tz.MustZone("Europe/Paris")
	for _, s := range []string{"2026-10-05T09:00", "2026-03-29T02:30", "2026-03-08T02:30[America/New_York]", "2026-10-05T07:00Z", "2026-10-05"} {
		w, err := ParseMoment("due", s, paris)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-35s %s in %s at %s moved=%v\n", s, w.Moment, w.Zone, w.At.Format(time.RFC3339), w.Moved)
	}
	_, err := ParseMoment("due", "next friday", paris)
	fmt.Println(err)
	// Output:
	// 2026-10-05T09:00                    2026-10-05T09:00 in Europe/Paris at 2026-10-05T07:00:00Z moved=false
	// 2026-03-29T02:30                    2026-03-29T02:30 in Europe/Paris at 2026-03-29T01:30:00Z moved=true
	// 2026-03-08T02:30[America/New_York]  2026-03-08T02:30 in America/New_York at 2026-03-08T07:30:00Z moved=true
	// 2026-10-05T07:00Z                   2026-10-05T09:00 in Europe/Paris at 2026-10-05T07:00:00Z moved=false
	// 2026-10-05                          2026-10-05 in Europe/Paris at 2026-10-04T22:00:00Z moved=false
	// “due” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “next friday”.
}
