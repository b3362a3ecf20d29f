package recur

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// rfcVector is one entry of the shared rrule/rfc5545.json (see its
// "format" notes).
type rfcVector struct {
	Name     string   `json:"name"`
	DTStart  string   `json:"dtstart"`
	RRule    string   `json:"rrule"`
	ExDates  []string `json:"exdates"`
	Count    int      `json:"count"`
	Window   *struct{ Start, End string }
	Expected []string `json:"expected"`
}

func loadVectors(t *testing.T) []rfcVector {
	t.Helper()
	dir := os.Getenv("ASSISTANT_TESTDATA")
	if dir == "" {
		t.Skip("ASSISTANT_TESTDATA is unset; set it to the shared test data folder to run the RFC 5545 vectors")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "rrule", "rfc5545.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Vectors []rfcVector }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) == 0 {
		t.Fatal("no vectors in rfc5545.json")
	}
	return file.Vectors
}

func TestRFC5545Vectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			lines := append([]string{v.DTStart, "RRULE:" + v.RRule}, v.ExDates...)
			s, err := ParseSeries(strings.Join(lines, "\r\n"), tz.UTC)
			if err != nil {
				t.Fatal(err)
			}
			var got []Occurrence
			switch {
			case v.Window != nil:
				from, _ := time.Parse(time.RFC3339, v.Window.Start)
				to, _ := time.Parse(time.RFC3339, v.Window.End)
				got = s.Between(from, to)
			case v.Count > 0:
				got = s.All(v.Count)
			default:
				got = s.All(10 * len(v.Expected))
				if _, _, bounded := s.Bounds(); !bounded {
					t.Errorf("a rule with COUNT or UNTIL should be bounded")
				}
			}
			var texts []string
			for _, o := range got {
				texts = append(texts, o.Start.In(s.Zone.Location()).Format(time.RFC3339))
			}
			if strings.Join(texts, " ") != strings.Join(v.Expected, " ") {
				t.Errorf("got %d occurrences:\n%v\nwant %d:\n%v", len(texts), texts, len(v.Expected), v.Expected)
			}
			// After walks the same set one by one.
			if len(got) > 1 {
				next, ok := s.After(got[0].Start)
				if !ok || !next.Start.Equal(got[1].Start) {
					t.Errorf("After(first) = %v, %v; want %v", next.Start, ok, got[1].Start)
				}
			}
		})
	}
}
