package tasks

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A due written with an offset or Z in the repeated hour of a fall-back
// change keeps its instant (the second 02:30 of Paris's 2026-10-25 is
// 01:30Z), through add, get, an unrelated edit and list; a due without an
// offset takes the first of the two (RFC 5545 §3.3.5).
func TestDueInTheRepeatedHourIsKept(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC))
		for _, c := range []struct{ due, at string }{
			{"2026-10-25T01:30Z", "2026-10-25T02:30:00+01:00"},
			{"2026-10-25T02:30+01:00", "2026-10-25T02:30:00+01:00"},
			{"2026-10-25T02:30", "2026-10-25T02:30:00+02:00"},
		} {
			id := h.add(t, h.paris, `{"title":"Night `+c.due+`","due":"`+c.due+`"}`)
			if got := h.task(t, h.paris, id).DueAt; got != c.at {
				t.Errorf("due=%s: get_task gives due_at %s, want %s", c.due, got, c.at)
			}
			h.ok(t, h.paris, "update_task", `{"id":"`+id+`","title":"Renamed `+c.due+`"}`)
			if got := h.task(t, h.paris, id).DueAt; got != c.at {
				t.Errorf("due=%s: after a rename due_at is %s, want %s", c.due, got, c.at)
			}
		}
		out := h.ok(t, h.ny, "add_task", `{"title":"NY","due":"2026-11-01T06:30Z"}`)
		if !strings.Contains(out, "01:30 (-05:00)") {
			t.Errorf("New York due=2026-11-01T06:30Z: want 01:30 (-05:00) in:\n%s", out)
		}
	})
}

// A text query folds as titles do: full case folding and compatibility
// forms, so "strasse" finds "Straße" and "fi" finds the ligature "ﬁ", and
// the letters Unicode does not decompose read as typed ("aesir" finds
// "Æsir", "istanbul" "İstanbul", "diyarbakir" "Diyarbakır"), by the index
// and by the Go path alike.
func TestQueryFoldsLikeTitles(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		street := h.add(t, h.paris, `{"title":"Call Hauptstraße office"}`)
		lig := h.add(t, h.paris, `{"title":"Pay the ﬁne"}`)
		h.add(t, h.paris, `{"title":"Street party"}`)
		saga := h.add(t, h.paris, `{"title":"Read the Æsir saga","notes":"Œuvres complètes"}`)
		city := h.add(t, h.paris, `{"title":"Fly to İstanbul via Diyarbakır"}`)
		bridge := h.add(t, h.paris, `{"title":"Cross Øresund by Łódź"}`)
		for _, goPath := range []bool{false, true} {
			forceGoPath = goPath
			for q, want := range map[string]string{"strasse": street, "STRASSE": street, "straße": street, "fine": lig, "ＦＩＮＥ": lig,
				"aesir": saga, "Æsir": saga, "oeuvres": saga, "istanbul": city, "ISTANBUL": city, "diyarbakir": city,
				"DİYARBAKIR": city, "oresund": bridge, "lodz": bridge} {
				var page struct{ Tasks []taskData }
				h.data(t, h.paris, "list_tasks", `{"query":"`+q+`"}`, &page)
				if len(page.Tasks) != 1 || page.Tasks[0].ID != want {
					t.Errorf("go path %v: query %q lists %+v, want only %s", goPath, q, page.Tasks, want)
				}
			}
		}
		forceGoPath = false
	})
}
