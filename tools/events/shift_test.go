package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// weekdaysOf gives the weekdays (in Paris, as list_events' Data writes
// them) of every occurrence in [from, to].
func weekdaysOf(t *testing.T, e *env, from, to string) []string {
	t.Helper()
	_, starts := occurrences(t, e.ok(e.alice, "list_events", fmt.Sprintf(`{"from":%q,"to":%q,"limit":40}`, from, to)))
	var out []string
	for _, s := range starts {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			at, err = time.Parse(time.DateOnly, s)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, at.Weekday().String()[:3])
	}
	return out
}

// Finding 1: moving the whole series to another day moves the rule's
// weekday along; the EXDATE and the changed occurrence move with it.
func TestMoveSeriesToAnotherDay(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Club","start":"2026-10-06T20:00","rrule":"FREQ=WEEKLY;BYDAY=TU","exdates":["2026-10-20T20:00"]}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261013T180000Z","title":"Club special"}`)
		res := e.ok(e.alice, "update_event", `{"id":"e1@20261013T180000Z","scope":"all","start":"2026-10-14T20:00"}`)
		if strings.Contains(res.Out, "not one of the rule's days") || strings.Contains(res.Out, "dropped") {
			t.Fatalf("a day move must keep the series on its rule and its changes:\n%s", res.Out)
		}
		if !strings.Contains(res.Out, "RRULE:FREQ=WEEKLY;BYDAY=WE (was RRULE:FREQ=WEEKLY;BYDAY=TU)") {
			t.Fatalf("the answer must say the rule's day moved:\n%s", res.Out)
		}
		list := e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-11-01"}`)
		ids, _ := occurrences(t, list)
		if want := []string{"e1@20261007T180000Z", "e1@20261014T180000Z", "e1@20261028T190000Z"}; !slices.Equal(ids, want) {
			t.Fatalf("after the move got %v, want %v (Wednesdays only, 21 October still cancelled)", ids, want)
		}
		if !strings.Contains(list.Out, "Wed 2026-10-14 20:00–21:00 (+02:00)  Club special") {
			t.Fatalf("“Club special” must stay on Wed 14 October:\n%s", list.Out)
		}
		undo := e.ok(e.alice, "undo", fmt.Sprintf(`{"change":%q}`, data(t, res)["change"]))
		_ = undo
		ids, _ = occurrences(t, e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-11-01"}`))
		if want := []string{"e1@20261006T180000Z", "e1@20261013T180000Z", "e1@20261027T190000Z"}; !slices.Equal(ids, want) {
			t.Fatalf("undo must bring the Tuesdays back: got %v, want %v", ids, want)
		}
	})
}

// The rule's days follow a move of the start by whole days, for scope all
// and following, whatever the frequency, as long as the days are plain
// weekdays.
func TestMoveRuleDays(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, c := range []struct {
			name, rule, start, id, scope, to string
			wantRule                         string // of the series shown after the move
			from, until                      string // window checked
			days                             []string
		}{
			{"weekly TU to WE, all", "FREQ=WEEKLY;BYDAY=TU", "2026-10-06T20:00", "e1", "all", "2026-10-07T20:00",
				"FREQ=WEEKLY;BYDAY=WE", "2026-10-05", "2026-10-25", []string{"Wed", "Wed", "Wed"}},
			{"weekly TU to WE, following", "FREQ=WEEKLY;BYDAY=TU", "2026-10-06T20:00", "e1@20261020T180000Z", "following", "2026-10-21T20:00",
				"FREQ=WEEKLY;BYDAY=WE", "2026-10-05", "2026-11-01", []string{"Tue", "Tue", "Wed", "Wed"}},
			{"MO,WE,FR by one day", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "2026-10-05T10:00", "e1", "all", "2026-10-06T10:00",
				"FREQ=WEEKLY;BYDAY=TU,TH,SA", "2026-10-05", "2026-10-11", []string{"Tue", "Thu", "Sat"}},
			{"SU to MO across the week's end", "FREQ=WEEKLY;BYDAY=SU", "2026-10-11T18:00", "e1", "all", "2026-10-12T18:00",
				"FREQ=WEEKLY;BYDAY=MO", "2026-10-05", "2026-10-25", []string{"Mon", "Mon"}},
			{"every other week SA,SU to SU,MO keeps its weeks", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU", "2026-10-10T18:00", "e1", "all", "2026-10-11T18:00",
				"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=TU", "2026-10-05", "2026-10-31", []string{"Sun", "Mon", "Sun", "Mon"}},
			{"weekdays by one day", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "2026-10-05T08:00", "e1", "all", "2026-10-06T08:00",
				"FREQ=DAILY;BYDAY=TU,WE,TH,FR,SA", "2026-10-05", "2026-10-11", []string{"Tue", "Wed", "Thu", "Fri", "Sat"}},
			{"weekdays, following, with a new time", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "2026-10-05T08:00", "e1@20261008T060000Z", "following", "2026-10-09T09:30",
				"FREQ=DAILY;BYDAY=TU,WE,TH,FR,SA", "2026-10-05", "2026-10-11", []string{"Mon", "Tue", "Wed", "Fri", "Sat"}},
			{"time only leaves BYDAY alone", "FREQ=WEEKLY;BYDAY=TU", "2026-10-06T20:00", "e1@20261013T180000Z", "all", "2026-10-13T07:30",
				"FREQ=WEEKLY;BYDAY=TU", "2026-10-05", "2026-10-18", []string{"Tue", "Tue"}},
			{"a whole week later", "FREQ=WEEKLY;BYDAY=TU", "2026-10-06T20:00", "e1", "all", "2026-10-13T20:00",
				"FREQ=WEEKLY;BYDAY=TU", "2026-10-05", "2026-10-25", []string{"Tue", "Tue"}},
			{"all-day weekly one day earlier", "FREQ=WEEKLY;BYDAY=TU", "2026-10-06", "e1", "all", "2026-10-05",
				"FREQ=WEEKLY;BYDAY=MO", "2026-10-05", "2026-10-18", []string{"Mon", "Mon"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t)
				e.ok(e.alice, "add_event", fmt.Sprintf(`{"title":"X","start":%q,"rrule":%q}`, c.start, c.rule))
				res := e.ok(e.alice, "update_event", fmt.Sprintf(`{"id":%q,"scope":%q,"start":%q}`, c.id, c.scope, c.to))
				if !strings.Contains(res.Out, "(RRULE:"+c.wantRule+")") {
					t.Fatalf("want rule %s in:\n%s", c.wantRule, res.Out)
				}
				if strings.Contains(res.Out, "not one of the rule's days") {
					t.Fatalf("the moved start must be on its rule:\n%s", res.Out)
				}
				if got := weekdaysOf(t, e, c.from, c.until); !slices.Equal(got, c.days) {
					t.Fatalf("days %v, want %v", got, c.days)
				}
			})
		}
	})
}

// Day parts that cannot move along are refused with a rule to write
// instead, and nothing is stored; given with “rrule”, the move is made.
func TestMoveRuleDaysRefused(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, c := range []struct {
			name, rule, start, to, want string
		}{
			{"monthly by month day", "FREQ=MONTHLY;BYMONTHDAY=6", "2026-10-06T09:00", "2026-10-07T09:00",
				"“start” moves e1 by 1 day, but its rule (RRULE:FREQ=MONTHLY;BYMONTHDAY=6) picks days by parts that cannot move along; give the new “rrule” in the same call, such as rrule=\"FREQ=MONTHLY;BYMONTHDAY=7\"."},
			{"monthly first Tuesday", "FREQ=MONTHLY;BYDAY=1TU", "2026-10-06T09:00", "2026-10-07T09:00",
				"such as rrule=\"FREQ=MONTHLY;BYDAY=1WE\"."},
			{"yearly by month day", "FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=6", "2026-10-06", "2026-10-09",
				"such as rrule=\"FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=9\"."},
			{"weekly in one month", "FREQ=WEEKLY;BYMONTH=10;BYDAY=TU", "2026-10-06T09:00", "2026-10-07T09:00",
				"such as rrule=\"FREQ=WEEKLY;BYMONTH=10;BYDAY=WE\"."},
		} {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t)
				e.ok(e.alice, "add_event", fmt.Sprintf(`{"title":"X","start":%q,"rrule":%q}`, c.start, c.rule))
				before := e.snapshot()
				e.fail(e.alice, "update_event", fmt.Sprintf(`{"id":"e1","start":%q}`, c.to), tools.CodeInvalid, c.want)
				if e.snapshot() != before {
					t.Fatal("a refused move stored something")
				}
			})
		}
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Pay","start":"2026-10-06","rrule":"FREQ=MONTHLY;BYMONTHDAY=6"}`)
		res := e.ok(e.alice, "update_event", `{"id":"e1","start":"2026-10-07","rrule":"FREQ=MONTHLY;BYMONTHDAY=7"}`)
		if !strings.Contains(res.Out, "(RRULE:FREQ=MONTHLY;BYMONTHDAY=7)") {
			t.Fatalf("a rule given with the move is used as given:\n%s", res.Out)
		}
	})
}

// Finding 11: a monthly rule from the 29th to 31st says that short months
// are skipped, and how to say the last day of the month.
func TestMonthEndNote(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, c := range []struct{ start, rule, want string }{
			{"2026-10-31", "FREQ=MONTHLY", "Note: RFC 5545 skips the months without a 31st, so this rule has no occurrence in them; rrule=\"FREQ=MONTHLY;BYMONTHDAY=-1\" means the last day of every month instead."},
			{"2026-10-30T09:00", "FREQ=MONTHLY;INTERVAL=2", "rrule=\"FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=-1\""},
			{"2028-02-29", "FREQ=YEARLY", "rrule=\"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1\" means the last day of February every year instead."},
			{"2026-10-28", "FREQ=MONTHLY", ""},
			{"2026-10-31", "FREQ=MONTHLY;BYMONTHDAY=-1", ""},
			{"2026-10-31", "FREQ=WEEKLY", ""},
		} {
			e := newEnv(t)
			res := e.ok(e.alice, "add_event", fmt.Sprintf(`{"title":"Rent","start":%q,"rrule":%q}`, c.start, c.rule))
			has := strings.Contains(res.Out, "RFC 5545 skips")
			if c.want == "" && has || c.want != "" && !strings.Contains(res.Out, c.want) {
				t.Fatalf("%s %s: want note %q in:\n%s", c.start, c.rule, c.want, res.Out)
			}
		}
	})
}

// Finding 10: times in answers are in the person's zone, in the model's
// format; EXDATEs are sorted.
func TestTimesInPersonsZone(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Club","start":"2026-10-06T20:00","rrule":"FREQ=WEEKLY;BYDAY=TU","exdates":["2026-10-27T20:00","2026-10-13T20:00"]}`)
		get := e.ok(e.alice, "get_event", `{"id":"e1"}`)
		if !strings.Contains(get.Out, "Deleted occurrences (EXDATE): Tue 2026-10-13 20:00 (+02:00), Tue 2026-10-27 20:00 (+01:00)") {
			t.Fatalf("EXDATEs sorted in the person's zone:\n%s", get.Out)
		}
		if got := fmt.Sprint(data(t, get)["event"].(map[string]any)["exdates"]); got != "[2026-10-13T20:00 2026-10-27T20:00]" {
			t.Fatalf("Data exdates sorted: %s", got)
		}
		res := e.ok(e.alice, "delete_event", `{"id":"e1@20261103T190000Z","scope":"following"}`)
		if !strings.Contains(res.Out, "from Tue 2026-11-03 20:00 (+01:00) on") {
			t.Fatalf("delete following: %s", res.Out)
		}
		get = e.ok(e.alice, "get_event", `{"id":"e1"}`)
		if !strings.Contains(get.Out, "until Tue 2026-11-03 19:59 (+01:00) (RRULE:") || strings.Contains(get.Out, "UTC") {
			t.Fatalf("UNTIL in the person's zone:\n%s", get.Out)
		}
		// Seen from New York, the same series reads in New York's time.
		e.ok(e.bob, "add_event", `{"title":"Call","start":"2026-10-06T20:00[Europe/Paris]","rrule":"FREQ=DAILY;UNTIL=20261010T180000Z"}`)
		if get := e.ok(e.bob, "get_event", `{"id":"e2"}`); !strings.Contains(get.Out, "until Sat 2026-10-10 14:00 (-04:00)") {
			t.Fatalf("UNTIL from New York:\n%s", get.Out)
		}
		// find_free_time's window reads as list_events': a date-only “to”
		// is the last day it includes, also when the search starts now.
		e.Now = time.Date(2026, 10, 5, 9, 7, 0, 0, time.UTC)
		free := e.ok(e.alice, "find_free_time", `{"to":"2026-10-06"}`)
		if !strings.Contains(free.Out, "from Mon 2026-10-05 11:15 (+02:00) to the end of Tue 2026-10-06 within") {
			t.Fatalf("find_free_time window:\n%s", free.Out)
		}
	})
}
