package events

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// editEnv is one person in zone on a fresh store at 2025-12-01 09:00 UTC,
// the clock of the edit repros.
func editEnv(t *testing.T, zone string) (*env, tools.Person) {
	t.Helper()
	e := &env{Env: tooltest.Open(t, time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC), Register, changes.Register), t: t}
	e.alice = e.Person("alice", zone)
	return e, e.alice
}

// listed is list_events from..to as "id start" lines, in order.
func (e *env) listed(who tools.Person, from, to string) string {
	e.t.Helper()
	ids, starts := occurrences(e.t, e.ok(who, "list_events", fmt.Sprintf(`{"from":%q,"to":%q}`, from, to)))
	var out []string
	for i := range ids {
		out = append(out, ids[i]+" "+starts[i])
	}
	return strings.Join(out, "\n")
}

func wantListed(t *testing.T, what, got string, want ...string) {
	t.Helper()
	if w := strings.Join(want, "\n"); got != w {
		t.Errorf("%s:\n got\n%s\nwant\n%s", what, got, w)
	}
}

// Moving a whole series later moves its UNTIL with it: no occurrence is
// lost at the end.
func TestMoveSeriesMovesUntil(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, tc := range []struct {
			name, update string
			want         []string
		}{
			{"later", `{"id":"e1","start":"2026-10-05T12:00"}`, []string{
				"e1@20261005T100000Z 2026-10-05T12:00:00+02:00",
				"e1@20261012T100000Z 2026-10-12T12:00:00+02:00",
				"e1@20261019T100000Z 2026-10-19T12:00:00+02:00",
			}},
			{"east to west", `{"id":"e1","time_zone":"America/New_York"}`, []string{
				"e1@20261005T140000Z 2026-10-05T10:00:00-04:00",
				"e1@20261012T140000Z 2026-10-12T10:00:00-04:00",
				"e1@20261019T140000Z 2026-10-19T10:00:00-04:00",
			}},
			{"earlier", `{"id":"e1","start":"2026-10-05T08:00"}`, []string{
				"e1@20261005T060000Z 2026-10-05T08:00:00+02:00",
				"e1@20261012T060000Z 2026-10-12T08:00:00+02:00",
				"e1@20261019T060000Z 2026-10-19T08:00:00+02:00",
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e, p := editEnv(t, "Europe/Paris")
				e.ok(p, "add_event", `{"title":"T","start":"2026-10-05T10:00","duration":30,"rrule":"FREQ=WEEKLY;BYDAY=MO;UNTIL=20261019T080000Z"}`)
				e.ok(p, "update_event", tc.update)
				wantListed(t, tc.update, e.listed(p, "2026-10-01", "2026-11-30"), tc.want...)
			})
		}
	})
}

// A series that turns between all-day and timed keeps its last
// occurrence: its UNTIL moves by the days its occurrences move and
// becomes a date, whether the whole series turns or the part from an
// occurrence on, and through a turn and back in another zone.
func TestMoveSeriesKindKeepsUntil(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "Europe/Berlin")
		e.ok(p, "add_event", `{"title":"A","start":"2026-04-06","rrule":"FREQ=WEEKLY;BYDAY=MO;UNTIL=20260504"}`)
		e.ok(p, "update_event", `{"id":"e1","start":"2026-04-08T10:00"}`)
		wantListed(t, "all-day to timed", e.listed(p, "2026-04-01", "2026-06-01"),
			"e1@20260408T080000Z 2026-04-08T10:00:00+02:00",
			"e1@20260415T080000Z 2026-04-15T10:00:00+02:00",
			"e1@20260422T080000Z 2026-04-22T10:00:00+02:00",
			"e1@20260429T080000Z 2026-04-29T10:00:00+02:00",
			"e1@20260506T080000Z 2026-05-06T10:00:00+02:00")

		e.ok(p, "add_event", `{"title":"B","start":"2026-03-02","end":"2026-03-03","rrule":"FREQ=WEEKLY;BYDAY=MO;UNTIL=20260330"}`)
		e.ok(p, "update_event", `{"id":"e2@20260316","scope":"following","start":"2026-03-18T10:00"}`)
		got := e.listed(p, "2026-03-01", "2026-04-04")
		if n := strings.Count(got, "\n") + 1; n != 5 || !strings.HasSuffix(got, "e3@20260401T080000Z 2026-04-01T10:00:00+02:00") {
			t.Errorf("the part from e2@20260316 turned timed: %d occurrences, want 5 ending on 2026-04-01:\n%s", n, got)
		}

		e.ok(p, "add_event", `{"title":"C","start":"2026-09-07T09:00","rrule":"FREQ=WEEKLY;UNTIL=20261026T080000Z"}`)
		e.ok(p, "update_event", `{"id":"e4","start":"2026-09-07"}`)
		e.ok(p, "update_event", `{"id":"e4","start":"2026-09-07T23:30","time_zone":"America/New_York"}`)
		got = e.listed(p, "2026-09-01", "2026-11-30")
		if n := strings.Count(got, "e4@"); n != 8 || !strings.Contains(got, "e4@20261027T033000Z") {
			t.Errorf("timed to all-day and back in New York: %d occurrences, want 8 ending on 2026-10-26 23:30 there:\n%s", n, got)
		}
	})
}

// The UNTIL a "following" split leaves moves with a later move of the
// first part, so the occurrence the split handed on does not come back.
func TestMoveSeriesAfterSplitKeepsCut(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "UTC")
		e.ok(p, "add_event", `{"title":"S","start":"2026-10-05T10:00","rrule":"FREQ=WEEKLY;COUNT=4"}`)
		e.ok(p, "update_event", `{"id":"e1@20261026T100000Z","scope":"following","start":"2026-10-26T14:00"}`)
		e.ok(p, "update_event", `{"id":"e1","start":"2026-10-05T08:00"}`)
		wantListed(t, "after split and move", e.listed(p, "2026-10-01", "2026-11-30"),
			"e1@20261005T080000Z 2026-10-05T08:00:00+00:00",
			"e1@20261012T080000Z 2026-10-12T08:00:00+00:00",
			"e1@20261019T080000Z 2026-10-19T08:00:00+00:00",
			"e2@20261026T140000Z 2026-10-26T14:00:00+00:00")
	})
}

// A changed occurrence keeps its own time when the series moves, even
// past the old UNTIL; one whose own time is the series' new time is an
// ordinary occurrence again.
func TestMoveSeriesKeepsChangedOccurrences(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "Europe/Paris")
		e.ok(p, "add_event", `{"title":"T","start":"2026-10-05T10:00","duration":30,"rrule":"FREQ=WEEKLY;BYDAY=MO;UNTIL=20261019T080000Z"}`)
		e.ok(p, "update_event", `{"id":"e1@20261012T080000Z","start":"2026-10-12T12:00"}`)
		e.ok(p, "update_event", `{"id":"e1@20261019T080000Z","start":"2026-10-19T15:00","title":"Late"}`)
		res := e.ok(p, "update_event", `{"id":"e1","start":"2026-10-05T12:00"}`)
		if strings.Contains(res.Out, "no such occurrences") {
			t.Errorf("the move dropped a changed occurrence: %s", res.Out)
		}
		wantListed(t, "after the move", e.listed(p, "2026-10-01", "2026-11-30"),
			"e1@20261005T100000Z 2026-10-05T12:00:00+02:00",
			"e1@20261012T100000Z 2026-10-12T12:00:00+02:00",
			"e1@20261019T100000Z 2026-10-19T15:00:00+02:00")
		ex := e.seriesOf("e1")["exceptions"].([]any)
		if len(ex) != 1 || !strings.Contains(fmt.Sprint(ex[0]), "20261019T100000Z") {
			t.Errorf("exceptions %v, want only e1@20261019T100000Z (the one back at the series' time is ordinary)", ex)
		}
		e.ok(p, "undo", fmt.Sprintf(`{"change":%q}`, data(t, res)["change"]))
		wantListed(t, "after undo", e.listed(p, "2026-10-01", "2026-11-30"),
			"e1@20261005T080000Z 2026-10-05T10:00:00+02:00",
			"e1@20261012T080000Z 2026-10-12T12:00:00+02:00",
			"e1@20261019T080000Z 2026-10-19T15:00:00+02:00")
	})
}

// update_event scope=all with the id of a moved occurrence shifts the
// series by the distance from that occurrence's original time to the new
// start, and the named occurrence lands on the new start.
func TestMoveSeriesFromMovedOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "UTC")
		e.ok(p, "add_event", `{"title":"D","start":"2026-10-05T10:00","rrule":"FREQ=DAILY;COUNT=3"}`)
		e.ok(p, "update_event", `{"id":"e1@20261006T100000Z","start":"2026-10-06T14:00"}`)
		e.ok(p, "update_event", `{"id":"e1@20261006T100000Z","scope":"all","start":"2026-10-06T15:00"}`)
		wantListed(t, "after the move", e.listed(p, "2026-10-01", "2026-11-30"),
			"e1@20261005T150000Z 2026-10-05T15:00:00+00:00",
			"e1@20261006T150000Z 2026-10-06T15:00:00+00:00",
			"e1@20261007T150000Z 2026-10-07T15:00:00+00:00")
		if ex := e.seriesOf("e1")["exceptions"].([]any); len(ex) != 0 {
			t.Errorf("exceptions %v, want none: the named occurrence is at the series' time", ex)
		}
	})
}

// A changed occurrence whose original time fell in a DST gap moves with
// the series as its occurrence does.
func TestMoveSeriesKeepsGapOverride(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "Europe/London")
		e.ok(p, "add_event", `{"title":"S","start":"2027-03-21T01:00","rrule":"FREQ=WEEKLY;COUNT=3"}`)
		e.ok(p, "update_event", `{"id":"e1@20270328T010000Z","start":"2027-03-30T10:00"}`)
		e.ok(p, "update_event", `{"id":"e1","start":"2027-03-21T09:00"}`)
		wantListed(t, "after the move", e.listed(p, "2027-03-15", "2027-04-30"),
			"e1@20270321T090000Z 2027-03-21T09:00:00+00:00",
			"e1@20270328T080000Z 2027-03-30T10:00:00+01:00",
			"e1@20270404T080000Z 2027-04-04T09:00:00+01:00")
		e.fail(p, "get_event", `{"id":"e1@20270328T010000Z"}`, tools.CodeNotFound, "that occurrence is now e1@20270328T080000Z")
	})
}

// "following" from an RDATE moves that RDATE and the later occurrences by
// the same shift; the rule keeps its days and its COUNT.
func TestFollowingFromRDate(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "UTC")
		e.ok(p, "add_event", `{"title":"M","start":"2026-07-17T14:00","rrule":"FREQ=MONTHLY;COUNT=5","rdates":["2026-09-01T14:00"]}`)
		e.ok(p, "update_event", `{"id":"e1@20260901T140000Z","scope":"following","start":"2026-09-01T16:00"}`)
		wantListed(t, "after following", e.listed(p, "2026-07-01", "2027-03-01"),
			"e1@20260717T140000Z 2026-07-17T14:00:00+00:00",
			"e1@20260817T140000Z 2026-08-17T14:00:00+00:00",
			"e2@20260901T160000Z 2026-09-01T16:00:00+00:00",
			"e2@20260917T160000Z 2026-09-17T16:00:00+00:00",
			"e2@20261017T160000Z 2026-10-17T16:00:00+00:00",
			"e2@20261117T160000Z 2026-11-17T16:00:00+00:00")
	})
}

// delete_event scope=following from an RDATE removes it and what follows
// and never extends the rule.
func TestDeleteFollowingFromRDate(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "UTC")
		e.ok(p, "add_event", `{"title":"W","start":"2026-10-05T10:00","rrule":"FREQ=WEEKLY;COUNT=2","rdates":["2026-11-30T10:00","2026-12-07T10:00"]}`)
		e.ok(p, "delete_event", `{"id":"e1@20261207T100000Z","scope":"following"}`)
		wantListed(t, "after delete following", e.listed(p, "2026-10-01", "2027-01-31"),
			"e1@20261005T100000Z 2026-10-05T10:00:00+00:00",
			"e1@20261012T100000Z 2026-10-12T10:00:00+00:00",
			"e1@20261130T100000Z 2026-11-30T10:00:00+00:00")
	})
}

// "following" from an RDATE with a new rule starts the new rule there.
func TestFollowingFromRDateWithNewRule(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "UTC")
		e.ok(p, "add_event", `{"title":"M","start":"2026-07-17T14:00","rrule":"FREQ=MONTHLY;COUNT=5","rdates":["2026-09-01T14:00"]}`)
		e.ok(p, "update_event", `{"id":"e1@20260901T140000Z","scope":"following","rrule":"FREQ=WEEKLY;COUNT=2"}`)
		wantListed(t, "after following", e.listed(p, "2026-07-01", "2027-03-01"),
			"e1@20260717T140000Z 2026-07-17T14:00:00+00:00",
			"e1@20260817T140000Z 2026-08-17T14:00:00+00:00",
			"e2@20260901T140000Z 2026-09-01T14:00:00+00:00",
			"e2@20260908T140000Z 2026-09-08T14:00:00+00:00")
	})
}

// "following" to another day and time takes the rule's weekdays and the
// user's UNTIL along, across a DST change; an all-day series' UNTIL moves
// by days.
func TestFollowingMovesUntil(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, p := editEnv(t, "Europe/Paris")
		e.ok(p, "add_event", `{"title":"T","start":"2026-10-05T10:00","duration":30,"rrule":"FREQ=WEEKLY;BYDAY=MO;UNTIL=20261026T090000Z"}`)
		e.ok(p, "update_event", `{"id":"e1@20261012T080000Z","scope":"following","start":"2026-10-13T12:00"}`)
		wantListed(t, "after following", e.listed(p, "2026-10-01", "2026-11-30"),
			"e1@20261005T080000Z 2026-10-05T10:00:00+02:00",
			"e2@20261013T100000Z 2026-10-13T12:00:00+02:00",
			"e2@20261020T100000Z 2026-10-20T12:00:00+02:00",
			"e2@20261027T110000Z 2026-10-27T12:00:00+01:00")

		e.ok(p, "add_event", `{"title":"A","start":"2026-11-02","rrule":"FREQ=WEEKLY;UNTIL=20261116"}`)
		e.ok(p, "update_event", `{"id":"e3","start":"2026-11-04"}`)
		ids, _ := occurrences(t, e.ok(p, "list_events", `{"from":"2026-11-01","to":"2026-12-31"}`))
		if got := strings.Join(ids, " "); !strings.Contains(got, "e3@20261104 e3@20261111 e3@20261118") {
			t.Errorf("all-day series after the move: %s, want e3@20261104 e3@20261111 e3@20261118", got)
		}
	})
}

// A series that a delete of the following occurrences cut down to its
// first one moves like any other: its rule is its own, not one the call
// gave, and is not refused as never repeating.
func TestMoveSeriesCutToOne(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, tc := range []struct{ name, add, del, update, want string }{
			{"timed", `{"title":"T","start":"2026-12-07T09:00","rrule":"FREQ=WEEKLY;COUNT=4"}`,
				`{"id":"e1@20261214T080000Z","scope":"following"}`, `{"id":"e1","start":"2026-12-08T10:00"}`,
				"e1@20261208T090000Z 2026-12-08T10:00:00+01:00"},
			{"all-day", `{"title":"A","start":"2026-12-04","rrule":"FREQ=WEEKLY;COUNT=4"}`,
				`{"id":"e1@20261211","scope":"following"}`, `{"id":"e1","scope":"all","start":"2026-12-05"}`,
				"e1@20261205 2026-12-05"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e, who := editEnv(t, "Europe/Paris")
				e.ok(who, "add_event", tc.add)
				e.ok(who, "delete_event", tc.del)
				e.ok(who, "update_event", tc.update)
				wantListed(t, "after the move", e.listed(who, "2026-12-01", "2027-01-31"), tc.want)
			})
		}
	})
}

// A zone given to an all-day series moves none of its days, and the
// answer says so instead of a bare "Updated".
func TestAllDayZoneChangeSaysItMovesNothing(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e, who := editEnv(t, "Europe/Paris")
		e.ok(who, "add_event", `{"title":"Trip","start":"2026-12-04","end":"2026-12-06","rrule":"FREQ=MONTHLY;BYMONTHDAY=4;COUNT=3"}`)
		before := e.listed(who, "2026-12-01", "2027-03-01")
		r := e.ok(who, "update_event", `{"id":"e1","time_zone":"America/New_York"}`)
		if !strings.Contains(r.TextOut(), "all-day") || !strings.Contains(r.TextOut(), "does not move them") {
			t.Errorf("the answer does not say an all-day series keeps its days:\n%s", r.TextOut())
		}
		wantListed(t, "after the zone change", e.listed(who, "2026-12-01", "2027-03-01"), before)
	})
}

// A moment given twice in “exdates” or “rdates” is kept once, on add and
// on update: they are sets (RFC 5545 §3.8.5.1, §3.8.5.2).
func TestRepeatedMomentsKeptOnce(t *testing.T) {
	e, p := editEnv(t, "UTC")
	e.ok(p, "add_event", `{"title":"D","start":"2026-10-05T10:00","rrule":"FREQ=DAILY;COUNT=5","exdates":["2026-10-06T10:00","2026-10-06T10:00","2026-10-07T10:00"],"rdates":["2026-10-20T10:00","2026-10-20T10:00"]}`)
	for _, step := range []string{"add", "update"} {
		if step == "update" {
			e.ok(p, "update_event", `{"id":"e1","exdates":["2026-10-08T10:00","2026-10-08T10:00"],"rdates":["2026-10-21T10:00","2026-10-21T10:00","2026-10-21T10:00"]}`)
		}
		ev := data(t, e.ok(p, "get_event", `{"id":"e1"}`))["event"].(map[string]any)
		ex, _ := ev["exdates"].([]any)
		rd, _ := ev["rdates"].([]any)
		want := map[string][2]int{"add": {2, 1}, "update": {1, 1}}[step]
		if len(ex) != want[0] || len(rd) != want[1] {
			t.Errorf("after %s: exdates %v, rdates %v; want %d and %d moments", step, ev["exdates"], ev["rdates"], want[0], want[1])
		}
	}
}

// A refusal of a “following” edit names the part of the series it was
// to move, not the id the split-off part would have had: nothing is
// stored, so that id names no event.
func TestFollowingRefusalNamesTheSeries(t *testing.T) {
	e, p := editEnv(t, "UTC")
	e.ok(p, "add_event", `{"title":"M","start":"2026-02-15","rrule":"FREQ=MONTHLY;BYMONTHDAY=15;COUNT=6"}`)
	msg := e.fail(p, "update_event", `{"id":"e1@20260415","scope":"following","start":"2026-04-16"}`, tools.CodeInvalid, "“start” moves e1 from e1@20260415 on by 1 day")
	if strings.Contains(msg, "e2") {
		t.Errorf("the refusal names e2, which was never stored: %s", msg)
	}
	e.fail(p, "get_event", `{"id":"e2"}`, tools.CodeNotFound, "e2")
}
