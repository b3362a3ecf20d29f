package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

func TestAddListGet(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		res := e.ok(e.alice, "add_event", `{"title":"Standup","start":"2026-10-05T09:30","duration":15,"rrule":"RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4","location":"Room 4","remind_before":[10]}`)
		if !strings.HasPrefix(res.Out, "Added e1 (change c1).") || !strings.Contains(res.Out, "every week on Monday and Wednesday, 4 times") {
			t.Fatalf("add: %s", res.Out)
		}
		e.ok(e.alice, "add_event", `{"title":"Trip","start":"2026-10-07","end":"2026-10-09"}`)
		list := e.ok(e.alice, "list_events", `{}`)
		golden(t, "list_week.txt", list.Out)
		ids, starts := occurrences(t, list)
		wantIDs := []string{"e1@20261005T073000Z", "e2@20261007", "e1@20261007T073000Z"}
		if !slices.Equal(ids, wantIDs) {
			t.Fatalf("ids %v, want %v", ids, wantIDs)
		}
		if starts[0] != "2026-10-05T09:30:00+02:00" || starts[1] != "2026-10-07" {
			t.Fatalf("starts %v", starts)
		}
		trip := data(t, list)["events"].([]any)[1].(map[string]any)
		if trip["end"] != "2026-10-09" || trip["all_day"] != true {
			t.Fatalf("all-day data %v: end must be the last day, inclusive", trip)
		}
		get := e.ok(e.alice, "get_event", `{"id":"e1"}`)
		for _, want := range []string{"RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE", "Reminders: 10 min before", "e1@20261014T073000Z"} {
			if !strings.Contains(get.Out, want) {
				t.Fatalf("get_event lacks %q:\n%s", want, get.Out)
			}
		}
		occ := e.ok(e.alice, "get_event", `{"id":"e1@20261007T073000Z"}`)
		if !strings.Contains(occ.Out, "Wed 2026-10-07 09:30–09:45 (+02:00)") {
			t.Fatalf("occurrence: %s", occ.Out)
		}
		// A query keeps only matching occurrences.
		q := e.ok(e.alice, "list_events", `{"query":"trip"}`)
		if ids, _ := occurrences(t, q); !slices.Equal(ids, []string{"e2@20261007"}) {
			t.Fatalf("query: %v", ids)
		}
		// A query folds as list_tasks' does: “straße” finds “STRASSE”,
		// “creme brulee” finds “Crème Brûlée”, each its own event alone.
		e.ok(e.alice, "add_event", `{"title":"STRASSE fest","start":"2026-10-08T18:00"}`)
		e.ok(e.alice, "add_event", `{"title":"Dessert","location":"Crème Brûlée café","start":"2026-10-08T20:00"}`)
		for query, want := range map[string]string{"straße": "STRASSE fest", "creme brulee": "Dessert"} {
			res := e.ok(e.alice, "list_events", fmt.Sprintf(`{"from":"2026-10-08","to":"2026-10-08","query":%q}`, query))
			if !strings.Contains(res.Out, want) || strings.Count(res.Out, "\n") != 1 {
				t.Errorf("query %q:\n%s\nwant %q alone", query, res.Out, want)
			}
		}
	})
}

// A weekly 09:00 Europe/Paris series stays 09:00 local on both sides of
// both changes of 2026 (29 March, 25 October).
func TestWeeklyParisAcrossDST(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Yoga","start":"2026-03-16T09:00","rrule":"FREQ=WEEKLY"}`)
		for _, c := range []struct {
			from, to string
			want     []string
		}{
			{"2026-03-23", "2026-04-05", []string{"2026-03-23T09:00:00+01:00", "2026-03-30T09:00:00+02:00"}},
			{"2026-10-19", "2026-11-01", []string{"2026-10-19T09:00:00+02:00", "2026-10-26T09:00:00+01:00"}},
		} {
			res := e.ok(e.alice, "list_events", fmt.Sprintf(`{"from":%q,"to":%q}`, c.from, c.to))
			if _, starts := occurrences(t, res); !slices.Equal(starts, c.want) {
				t.Fatalf("%s..%s: %v, want %v", c.from, c.to, starts, c.want)
			}
		}
		// A daily 02:30 series on the spring-forward day is 03:30 that day only,
		// and the listing says why.
		e.ok(e.alice, "add_event", `{"title":"Backup","start":"2027-03-27T02:30","duration":10,"rrule":"FREQ=DAILY;COUNT=3"}`)
		res := e.ok(e.alice, "list_events", `{"from":"2027-03-27","to":"2027-03-29","query":"backup"}`)
		if _, starts := occurrences(t, res); !slices.Equal(starts, []string{"2027-03-27T02:30:00+01:00", "2027-03-28T03:30:00+02:00", "2027-03-29T02:30:00+02:00"}) {
			t.Fatalf("gap day: %v", starts)
		}
		if !strings.Contains(res.Out, "02:30 does not exist that day in Europe/Paris; moved to 03:30") {
			t.Fatalf("gap note missing:\n%s", res.Out)
		}
		add := e.ok(e.alice, "add_event", `{"title":"Night","start":"2027-03-28T02:15"}`)
		if !strings.Contains(add.Out, "2027-03-28T02:15 does not exist in Europe/Paris (the clocks jump forward then), so it starts at 03:15.") {
			t.Fatalf("add in a gap: %s", add.Out)
		}
	})
}

// A New York 09:00 series seen by a Paris person is 15:00, and 14:00 in
// the weeks when the two zones' DST rules differ.
func TestNewYorkSeenFromParis(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"NY sync","start":"2026-03-02T09:00","time_zone":"America/New_York","rrule":"FREQ=WEEKLY"}`)
		var b strings.Builder
		for _, w := range []struct {
			from, to, want string
		}{
			{"2026-03-02", "2026-03-08", "15:00"}, // both on standard time
			{"2026-03-09", "2026-03-15", "14:00"}, // New York on DST, Paris not yet
			{"2026-03-30", "2026-04-05", "15:00"}, // both on DST
			{"2026-10-26", "2026-11-01", "14:00"}, // Paris back on standard time, New York not yet
			{"2026-11-02", "2026-11-08", "15:00"},
		} {
			res := e.ok(e.alice, "list_events", fmt.Sprintf(`{"from":%q,"to":%q}`, w.from, w.to))
			lines := strings.Split(res.Out, "\n")
			if len(lines) != 2 || !strings.Contains(lines[1], " "+w.want+"–") || !strings.Contains(lines[1], "(America/New_York: 09:00–10:00)") {
				t.Fatalf("%s: want %s Paris, 09:00 New York:\n%s", w.from, w.want, res.Out)
			}
			b.WriteString(lines[1] + "\n")
		}
		golden(t, "new_york_from_paris.txt", b.String())
	})
}

func TestUpdateThis(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Standup","start":"2026-10-05T09:30","duration":15,"rrule":"FREQ=WEEKLY;BYDAY=MO"}`)
		res := e.ok(e.alice, "update_event", `{"id":"e1@20261012T073000Z","start":"2026-10-12T11:00","title":"Standup (late)"}`)
		if !strings.Contains(res.Out, "Moved from: Mon 2026-10-12 09:30–09:45 (+02:00)") {
			t.Fatalf("update this: %s", res.Out)
		}
		list := e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-10-19"}`)
		_, starts := occurrences(t, list)
		if !slices.Equal(starts, []string{"2026-10-05T09:30:00+02:00", "2026-10-12T11:00:00+02:00", "2026-10-19T09:30:00+02:00"}) {
			t.Fatalf("starts %v", starts)
		}
		if !strings.Contains(list.Out, "e1@20261012T073000Z  Mon 2026-10-12 11:00–11:15 (+02:00)  Standup (late) (moved)") {
			t.Fatalf("list:\n%s", list.Out)
		}
		// Only this occurrence: the rule belongs to the series.
		e.fail(e.alice, "update_event", `{"id":"e1@20261012T073000Z","rrule":"FREQ=DAILY"}`, tools.CodeInvalid, "“rrule” belongs to the whole series e1")
		// An override moved outside the series' own span is still listed.
		e.ok(e.alice, "update_event", `{"id":"e1@20261005T073000Z","start":"2026-10-04T08:00"}`)
		list = e.ok(e.alice, "list_events", `{"from":"2026-10-04","to":"2026-10-04"}`)
		if ids, _ := occurrences(t, list); !slices.Equal(ids, []string{"e1@20261005T073000Z"}) {
			t.Fatalf("moved before DTSTART: %v", ids)
		}
	})
}

// following splits: COUNT becomes UNTIL on the old series and the new one
// gets the remaining count; overrides and RDATEs after the split move.
func TestFollowingSplitsCount(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Course","start":"2026-10-05T18:00","rrule":"FREQ=WEEKLY;COUNT=10","rdates":["2026-10-06T18:00","2026-11-03T18:00"]}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261026T170000Z","title":"Course (room B)"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261012T160000Z","location":"Hall"}`)
		before := e.ok(e.alice, "get_event", `{"id":"e1"}`).Out
		res := e.ok(e.alice, "update_event", `{"id":"e1@20261019T160000Z","scope":"following","start":"2026-10-19T19:00"}`)
		change := data(t, res)["change"].(string)
		old := data(t, e.ok(e.alice, "get_event", `{"id":"e1"}`))["event"].(map[string]any)
		neu := data(t, e.ok(e.alice, "get_event", `{"id":"e2"}`))["event"].(map[string]any)
		if old["rrule"] != "FREQ=WEEKLY;UNTIL=20261019T155900Z" {
			t.Fatalf("old rule %v", old["rrule"])
		}
		if neu["rrule"] != "FREQ=WEEKLY;COUNT=8" || neu["start"] != "2026-10-19T19:00:00+02:00" {
			t.Fatalf("new series %v %v", neu["rrule"], neu["start"])
		}
		if fmt.Sprint(old["rdates"]) != "[2026-10-06T18:00]" || fmt.Sprint(neu["rdates"]) != "[2026-11-03T19:00]" {
			t.Fatalf("rdates old %v new %v", old["rdates"], neu["rdates"])
		}
		// The override of 26 October moved to e2, re-keyed by the one-hour shift.
		ex := neu["exceptions"].([]any)
		if len(ex) != 1 || ex[0].(map[string]any)["id"] != "e2@20261026T180000Z" {
			t.Fatalf("new exceptions %v", ex)
		}
		if ex := old["exceptions"].([]any); len(ex) != 1 || ex[0].(map[string]any)["id"] != "e1@20261012T160000Z" {
			t.Fatalf("old exceptions %v", ex)
		}
		// Eight weekly occurrences plus the RDATE remain in the new series.
		list := e.ok(e.alice, "list_events", `{"from":"2026-10-19","to":"2027-01-31"}`)
		ids, _ := occurrences(t, list)
		if len(ids) != 9 || ids[0] != "e2@20261019T170000Z" || ids[len(ids)-1] != "e2@20261207T180000Z" {
			t.Fatalf("after split %v", ids)
		}
		// A stale id is answered with the new one.
		e.fail(e.alice, "get_event", `{"id":"e1@20261102T170000Z"}`, tools.CodeNotFound,
			"e1@20261102T170000Z is no longer an occurrence id: the series e1 was split and this part is now e2; that occurrence is now e2@20261102T180000Z.")
		// Undo of the split restores both series as they were.
		e.ok(e.alice, "undo", `{"change":"`+change+`"}`)
		if after := e.ok(e.alice, "get_event", `{"id":"e1"}`).Out; after != before {
			t.Fatalf("undo of the split:\n%s\nwant\n%s", after, before)
		}
		e.fail(e.alice, "get_event", `{"id":"e2"}`, tools.CodeNotFound, "There is no event e2")
	})
}

func TestFollowingOnFirstIsAll(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Course","start":"2026-10-05T18:00","rrule":"FREQ=WEEKLY;COUNT=3"}`)
		res := e.ok(e.alice, "update_event", `{"id":"e1@20261005T160000Z","scope":"following","title":"Lesson"}`)
		if !strings.Contains(res.Out, "is the first occurrence, so “following” changed the whole series") {
			t.Fatalf("%s", res.Out)
		}
		if !strings.Contains(e.ok(e.alice, "get_event", `{"id":"e1"}`).Out, "Lesson") {
			t.Fatal("following on the first occurrence must change the series in place")
		}
		e.fail(e.alice, "get_event", `{"id":"e2"}`, tools.CodeNotFound, "There is no event e2")
	})
}

// all: a time or zone shift re-keys overrides and EXDATEs by the same
// shift; a rule change drops overrides that no longer match and says which.
func TestAllShiftsAndRuleChanges(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Review","start":"2026-10-05T14:00","rrule":"FREQ=WEEKLY;BYDAY=MO"}`)
		e.ok(e.alice, "delete_event", `{"id":"e1@20261019T120000Z"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261012T120000Z","title":"Review (short)"}`)
		// Moving one occurrence's time with scope all moves them all.
		res := e.ok(e.alice, "update_event", `{"id":"e1@20261012T120000Z","scope":"all","start":"2026-10-12T15:30"}`)
		if !strings.Contains(res.Out, "e1@20261012T120000Z is now e1@20261012T133000Z") {
			t.Fatalf("re-key note missing: %s", res.Out)
		}
		list := e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-10-26"}`)
		ids, starts := occurrences(t, list)
		if !slices.Equal(ids, []string{"e1@20261005T133000Z", "e1@20261012T133000Z", "e1@20261026T143000Z"}) {
			t.Fatalf("after shift %v %v (the EXDATE of 19 October must follow)", ids, starts)
		}
		if !strings.Contains(list.Out, "Review (short)") {
			t.Fatalf("override lost in the shift:\n%s", list.Out)
		}
		e.fail(e.alice, "get_event", `{"id":"e1@20261026T130000Z"}`, tools.CodeNotFound,
			"e1@20261026T130000Z is no longer an occurrence id: the series e1 was moved; that occurrence is now e1@20261026T143000Z.")
		// A zone change keeps the clock time and re-keys.
		e.ok(e.alice, "update_event", `{"id":"e1","time_zone":"Europe/London"}`)
		list = e.ok(e.alice, "list_events", `{"from":"2026-10-12","to":"2026-10-12"}`)
		if ids, _ := occurrences(t, list); !slices.Equal(ids, []string{"e1@20261012T143000Z"}) || !strings.Contains(list.Out, "(Europe/London: 15:30–16:30)") {
			t.Fatalf("zone change: %v\n%s", ids, list.Out)
		}
		// A rule change drops the overrides the new rule has no place for.
		res = e.ok(e.alice, "update_event", `{"id":"e1","rrule":"FREQ=WEEKLY;BYDAY=TU"}`)
		if !strings.Contains(res.Out, "their changes were dropped: e1@20261012T143000Z") {
			t.Fatalf("drop note: %s", res.Out)
		}
	})
}

func TestDeleteScopes(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Gym","start":"2026-10-05T19:00","rrule":"FREQ=DAILY;COUNT=5"}`)
		e.ok(e.alice, "delete_event", `{"id":"e1@20261006T170000Z"}`)
		get := data(t, e.ok(e.alice, "get_event", `{"id":"e1"}`))["event"].(map[string]any)
		if fmt.Sprint(get["exdates"]) != "[2026-10-06T19:00]" {
			t.Fatalf("delete this must add an EXDATE: %v", get["exdates"])
		}
		e.fail(e.alice, "get_event", `{"id":"e1@20261006T170000Z"}`, tools.CodeNotFound, "e1@20261006T170000Z was deleted from the series e1; undo can bring it back.")
		res := e.ok(e.alice, "delete_event", `{"id":"e1@20261008T170000Z","scope":"following"}`)
		if !strings.Contains(res.Out, "its last occurrence is now e1@20261007T170000Z") {
			t.Fatalf("following: %s", res.Out)
		}
		ids, _ := occurrences(t, e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-10-12"}`))
		if !slices.Equal(ids, []string{"e1@20261005T170000Z", "e1@20261007T170000Z"}) {
			t.Fatalf("after delete following: %v", ids)
		}
		del := e.ok(e.alice, "delete_event", `{"id":"e1"}`)
		if ids, _ := occurrences(t, e.ok(e.alice, "list_events", `{}`)); len(ids) != 0 {
			t.Fatalf("after delete all: %v", ids)
		}
		e.ok(e.alice, "undo", fmt.Sprintf(`{"change":%q}`, data(t, del)["change"]))
		if ids, _ := occurrences(t, e.ok(e.alice, "list_events", `{}`)); len(ids) != 2 {
			t.Fatalf("after undo: %v", ids)
		}
	})
}

// Person B never sees A's events: the same answer as for a missing id.
func TestOwnership(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Secret","start":"2026-10-05T10:00","rrule":"FREQ=DAILY"}`)
		if ids, _ := occurrences(t, e.ok(e.bob, "list_events", `{}`)); len(ids) != 0 {
			t.Fatalf("bob sees %v", ids)
		}
		snap := e.snapshot()
		for _, c := range []struct{ tool, raw string }{
			{"get_event", `{"id":"e1"}`}, {"get_event", `{"id":"e1@20261006T080000Z"}`},
			{"update_event", `{"id":"e1","title":"Mine"}`}, {"delete_event", `{"id":"e1"}`},
			{"delete_event", `{"id":"e1@20261006T080000Z"}`},
		} {
			res, _ := e.call(e.bob, c.tool, c.raw)
			missing, _ := e.call(e.bob, c.tool, strings.Replace(c.raw, `"e1`, `"e99`, 1))
			if res.Code != tools.CodeNotFound || strings.ReplaceAll(res.Err, "e1", "e99") != missing.Err {
				t.Fatalf("%s %s as bob: %d %q; missing id: %q", c.tool, c.raw, res.Code, res.Err, missing.Err)
			}
		}
		if e.snapshot() != snap {
			t.Fatal("bob's calls changed the store")
		}
		busy := e.ok(e.bob, "find_free_time", `{"from":"2026-10-06","to":"2026-10-06","day_start":"04:00","day_end":"05:00"}`)
		if !strings.Contains(busy.Out, "04:00–05:00") {
			t.Fatalf("alice's event blocks bob's time:\n%s", busy.Out)
		}
	})
}

func TestIdempotencyAndDuplicates(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-06T10:00","key":"k1"}`)
		again := e.ok(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-06T10:00","key":"k1"}`)
		if !strings.Contains(again.Out, "The key “k1” was already used: e1") || data(t, again)["added"] != false {
			t.Fatalf("repeat with key: %s", again.Out)
		}
		e.fail(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-06T11:00","key":"k1"}`, tools.CodeConflict, "The key “k1” was already used for e1 with other arguments")
		e.Now = e.Now.Add(3 * time.Minute)
		dup := e.ok(e.alice, "add_event", `{"title":"dentist.","start":"2026-10-06T10:00"}`)
		if !strings.Contains(dup.Out, "e1 “Dentist” with the same title, start, end, place and rule was added 3 min ago") {
			t.Fatalf("duplicate window: %s", dup.Out)
		}
		e.ok(e.alice, "add_event", `{"title":"dentist.","start":"2026-10-06T10:00","allow_duplicate":true}`)
		e.Now = e.Now.Add(20 * time.Minute)
		if out := e.ok(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-06T10:00"}`).Out; !strings.HasPrefix(out, "Added e3") {
			t.Fatalf("after the window: %s", out)
		}
	})
}

// Only a call that repeats every field that makes an event (title, start,
// end, zone, place, rule, EXDATEs, RDATEs) answers with the first event; one
// that differs in any of them is another request: it is added, with a
// warning that names the event much like it.
func TestDuplicateWindowComparesEveryField(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Ping","start":"2026-10-06T10:00","rrule":"FREQ=HOURLY;COUNT=3","location":"Desk"}`)
		cases := []struct {
			raw, differs string // differs is "" for the same request
		}{
			{`{"title":"ping","start":"2026-10-06T10:00","rrule":"FREQ=HOURLY;COUNT=3","location":"Desk","notes":"again"}`, ""},
			{`{"title":"Ping","start":"2026-10-06T10:00","rrule":"FREQ=MINUTELY;COUNT=3","location":"Desk"}`, "rrule"},
			{`{"title":"Ping","start":"2026-10-06T10:00","rrule":"FREQ=HOURLY;COUNT=3","location":"Desk","duration":30}`, "end"},
			{`{"title":"Ping","start":"2026-10-06T10:00","rrule":"FREQ=HOURLY;COUNT=3","location":"Room 2"}`, "location"},
			{`{"title":"Ping","start":"2026-10-06T10:00","rrule":"FREQ=HOURLY;COUNT=3","location":"Desk","rdates":["2026-10-09T10:00"]}`, "rdates"},
			{`{"title":"Ping","start":"2026-10-06T10:00","rrule":"FREQ=HOURLY;COUNT=3","location":"Desk","exdates":["2026-10-06T11:00"]}`, "exdates"},
		}
		for _, c := range cases {
			res := e.ok(e.alice, "add_event", c.raw)
			added := data(t, res)["added"] == true
			if c.differs == "" {
				if added || !strings.HasPrefix(res.Out, "e1 “Ping” with the same title, start, end, place and rule was added") {
					t.Errorf("%s: not answered with e1:\n%s", c.raw, res.Out)
				}
				continue
			}
			want := "Warning: e1 “Ping”, added 1 min ago, has the same title and start but another " + c.differs + "; if one of the two is a copy, delete it with delete_event."
			if !added || !strings.Contains(res.Out, want) {
				t.Errorf("%s: want it added with %q:\n%s", c.raw, want, res.Out)
			}
			if added {
				e.ok(e.alice, "delete_event", fmt.Sprintf(`{"id":%q}`, data(t, res)["event"].(map[string]any)["id"]))
			}
		}
		// An all-day event's first_at is widened from its start, and a
		// series with an RDATE before its DTSTART begins before it: the
		// same call sent twice is still answered with the first.
		for _, raw := range []string{
			`{"title":"Fair","start":"2026-10-06","end":"2026-10-08","rrule":"FREQ=YEARLY;COUNT=3"}`,
			`{"title":"Early","start":"2026-10-06T10:00","rrule":"FREQ=DAILY;COUNT=3","rdates":["2026-10-01T09:00"]}`,
		} {
			first := data(t, e.ok(e.alice, "add_event", raw))["event"].(map[string]any)["id"].(string)
			if res := e.ok(e.alice, "add_event", raw); data(t, res)["added"] != false || !strings.HasPrefix(res.Out, first+" “") {
				t.Errorf("%s sent twice was not answered with %s:\n%s", raw, first, res.Out)
			}
		}
	})
}

func TestOverlapWarning(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-07T10:00","duration":30}`)
		e.ok(e.alice, "add_event", `{"title":"Holiday","start":"2026-10-05","end":"2026-10-09"}`)
		res := e.ok(e.alice, "add_event", `{"title":"Sync","start":"2026-10-05T10:15","rrule":"FREQ=DAILY"}`)
		if !strings.Contains(res.Out, "Warning: it overlaps e1@20261007T080000Z “Dentist”, Wed 2026-10-07 10:00–10:30 (+02:00).") || strings.Contains(res.Out, "Holiday") {
			t.Fatalf("overlap: %s", res.Out)
		}
		if w := data(t, res)["warnings"].([]any); len(w) != 1 {
			t.Fatalf("warnings %v", w)
		}
	})
}

func TestFindFreeTime(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"A","start":"2026-10-06T10:00","duration":60}`)
		e.ok(e.alice, "add_event", `{"title":"B","start":"2026-10-06T10:30","end":"2026-10-06T12:00"}`)
		e.ok(e.alice, "add_event", `{"title":"Off","start":"2026-10-06"}`)
		if _, err := e.Store.DB().Exec(`INSERT INTO tasks (owner_id, title, title_norm, due_date, due_time, due_zone, due_at, created_at)
		VALUES (?, 'Report', 'report', '2026-10-06', '2026-10-06T16:00', 'Europe/Paris', ?, 0)`, e.alice.ID,
			time.Date(2026, 10, 6, 14, 0, 0, 0, time.UTC).Unix()); err != nil {
			t.Fatal(err)
		}
		res := e.ok(e.alice, "find_free_time", `{"from":"2026-10-06","to":"2026-10-06","duration":60}`)
		golden(t, "free_time.txt", res.Out)
		want := []string{"2026-10-06T09:00:00+02:00", "2026-10-06T12:00:00+02:00"}
		var got []string
		for _, s := range data(t, res)["free"].([]any) {
			got = append(got, s.(map[string]any)["start"].(string))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("free %v, want %v", got, want)
		}
		res = e.ok(e.alice, "find_free_time", `{"from":"2026-10-06","to":"2026-10-06","duration":60,"tasks":true}`)
		got = nil
		for _, s := range data(t, res)["free"].([]any) {
			m := s.(map[string]any)
			got = append(got, m["start"].(string)+" "+m["end"].(string))
		}
		if !slices.Equal(got, []string{"2026-10-06T09:00:00+02:00 2026-10-06T10:00:00+02:00",
			"2026-10-06T12:00:00+02:00 2026-10-06T15:30:00+02:00", "2026-10-06T16:00:00+02:00 2026-10-06T18:00:00+02:00"}) {
			t.Fatalf("with tasks %v", got)
		}
		// Weekends are left out unless asked for; the past is never free.
		res = e.ok(e.alice, "find_free_time", `{"from":"2026-10-03","to":"2026-10-05"}`)
		if !strings.Contains(res.Out, "Mon 2026-10-05 09:00–18:00 (+02:00) (9 h)") || strings.Contains(res.Out, "Sat") {
			t.Fatalf("weekend/past: %s", res.Out)
		}
	})
}

func TestClockTools(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		res := e.ok(e.alice, "current_time", `{}`)
		if res.Out != "It is Mon 2026-10-05 09:00 (+02:00) in Europe/Paris." || data(t, res)["offset"] != "+02:00" {
			t.Fatalf("current_time: %s %s", res.Out, res.Data)
		}
		res = e.ok(e.alice, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
		if !strings.HasPrefix(res.Out, "Your time zone is now Asia/Tokyo (it was Europe/Paris): it is Mon 2026-10-05 16:00 (+09:00) there.") {
			t.Fatalf("set_time_zone: %s", res.Out)
		}
		p, err := e.Store.PersonByID(e.Ctx, e.alice.ID)
		if err != nil || p.Zone != "Asia/Tokyo" {
			t.Fatalf("stored zone %q %v", p.Zone, err)
		}
	})
}

// A full page of the longest lines list_events can write stays under the
// model's limit, so the default and maximum limits never spill.
func TestFullPageFits(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		title := strings.Repeat("𝄞", item.MaxTitle-2)
		place := strings.Repeat("𝄞", item.MaxLocation)
		for i := range listMax {
			raw := fmt.Sprintf(`{"title":%q,"location":%q,"start":"2026-10-%02dT23:%02d[Pacific/Kiritimati]","duration":1500,"allow_duplicate":true}`,
				title+fmt.Sprint(i), place, 5+i%5, i)
			e.ok(e.alice, "add_event", raw)
		}
		e.ok(e.alice, "update_event", `{"id":"e1","title":"`+title+`"}`)
		res := e.ok(e.alice, "list_events", fmt.Sprintf(`{"from":"2026-10-01","to":"2026-10-20","limit":%d}`, listMax))
		if ids, _ := occurrences(t, res); len(ids) != listMax {
			t.Fatalf("%d occurrences", len(ids))
		}
		if n := len(res.Out); n > tools.ModelLimit {
			t.Fatalf("a full page is %d bytes, over the limit of %d", n, tools.ModelLimit)
		}
		if res.Spill(tools.ModelLimit).DidSpill {
			t.Fatal("a full page spilled")
		}
	})
}
