package events

import (
	"slices"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// find_free_time gives Saturday and Sunday slots with weekends=true and
// none without it or with weekends=false.
func TestFreeTimeWeekends(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Market","start":"2026-10-10T10:00","duration":120}`)
		slots := func(raw string) []string {
			var got []string
			for _, s := range data(t, e.ok(e.alice, "find_free_time", raw))["free"].([]any) {
				m := s.(map[string]any)
				got = append(got, m["start"].(string)+" "+m["end"].(string))
			}
			return got
		}
		weekend := `"from":"2026-10-10","to":"2026-10-11","duration":60`
		want := []string{
			"2026-10-10T09:00:00+02:00 2026-10-10T10:00:00+02:00",
			"2026-10-10T12:00:00+02:00 2026-10-10T18:00:00+02:00",
			"2026-10-11T09:00:00+02:00 2026-10-11T18:00:00+02:00",
		}
		if got := slots(`{` + weekend + `,"weekends":true}`); !slices.Equal(got, want) {
			t.Errorf("weekends=true: %v, want %v", got, want)
		}
		for _, raw := range []string{`{` + weekend + `}`, `{` + weekend + `,"weekends":false}`} {
			if got := slots(raw); len(got) != 0 {
				t.Errorf("%s: %v, want no slot on a weekend", raw, got)
			}
		}
		// Over a whole week the weekdays are there either way; the weekend
		// only when asked for.
		week := `"from":"2026-10-06","to":"2026-10-12","duration":60`
		days := func(raw string) []string {
			var got []string
			for _, s := range slots(raw) {
				if d := s[:10]; !slices.Contains(got, d) {
					got = append(got, d)
				}
			}
			return got
		}
		if got := days(`{` + week + `}`); !slices.Equal(got, []string{"2026-10-06", "2026-10-07", "2026-10-08", "2026-10-09", "2026-10-12"}) {
			t.Errorf("a week without weekends: days %v", got)
		}
		if got := days(`{` + week + `,"weekends":true}`); len(got) != 7 {
			t.Errorf("a week with weekends: days %v, want all 7", got)
		}
	})
}
