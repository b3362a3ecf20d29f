package calendar

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// event builds an event for a test: start "2026-10-05T10:00" (30
// minutes long) or "2026-10-05" (one day), zone, rule text ("" for none).
func event(t *testing.T, start, zone, rule string) *Event {
	t.Helper()
	e := &Event{ID: 7, Zone: tz.MustZone(zone), Start: moment(t, start)}
	if rule != "" {
		e.Rule = recur.MustRule(rule)
	}
	e.SetLength(30*time.Minute, 1)
	return e
}

func TestSetLength(t *testing.T) {
	for _, c := range []struct {
		start, zone    string
		dur            time.Duration
		days           int
		end            string
		startAt, endAt string
	}{
		{"2026-10-05T10:00", "Europe/Paris", 90 * time.Minute, 0, "2026-10-05T11:30", "2026-10-05T08:00:00Z", "2026-10-05T09:30:00Z"},
		{"2026-10-05T10:00", "UTC", 0, 0, "2026-10-05T11:00", "2026-10-05T10:00:00Z", "2026-10-05T11:00:00Z"},
		// Across the end of summer time: 3 h of elapsed time is 2 h on the clock.
		{"2026-10-25T01:00", "Europe/Paris", 3 * time.Hour, 0, "2026-10-25T03:00", "2026-10-24T23:00:00Z", "2026-10-25T02:00:00Z"},
		{"2026-10-05", "Europe/Paris", 0, 3, "2026-10-08", "2026-10-04T22:00:00Z", "2026-10-07T22:00:00Z"},
		{"2026-10-05", "UTC", 0, 0, "2026-10-06", "2026-10-05T00:00:00Z", "2026-10-06T00:00:00Z"},
	} {
		e := &Event{Zone: tz.MustZone(c.zone), Start: moment(t, c.start)}
		e.SetLength(c.dur, c.days)
		if e.End.String() != c.end || e.StartAt.Format(time.RFC3339) != c.startAt || e.EndAt.Format(time.RFC3339) != c.endAt {
			t.Errorf("%s %v %d: end %s, %s to %s; want %s, %s to %s", c.start, c.dur, c.days,
				e.End, e.StartAt.Format(time.RFC3339), e.EndAt.Format(time.RFC3339), c.end, c.startAt, c.endAt)
		}
		if e.AllDay != !e.Start.HasTime {
			t.Errorf("%s: AllDay %v", c.start, e.AllDay)
		}
	}
}

func TestOccurrenceKey(t *testing.T) {
	for _, c := range []struct {
		allDay         bool
		zone, original string
		want           string
	}{
		{false, "Europe/Paris", "2026-10-05T09:00", "20261005T070000Z"},
		{false, "America/New_York", "2026-10-05T21:30", "20261006T013000Z"},
		{true, "Europe/Paris", "2026-10-05", "20261005"},
		// A historical offset in seconds (Amsterdam summer time, +01:19:32) is kept.
		{false, "Europe/Amsterdam", "1930-06-01T12:00", "19300601T104028Z"},
	} {
		if got := OccurrenceKey(c.allDay, tz.MustZone(c.zone), moment(t, c.original)); got != c.want {
			t.Errorf("OccurrenceKey(%v, %s, %s) = %s, want %s", c.allDay, c.zone, c.original, got, c.want)
		}
	}
	// For every minute-aligned start it is the key recur gives.
	e := event(t, "2026-10-05T09:00", "Europe/Paris", "FREQ=DAILY;COUNT=40")
	for _, o := range e.Series(e.Zone).All(40) {
		if got := OccurrenceKey(false, e.Zone, o.Original); got != o.Key() {
			t.Fatalf("%s: %s, recur %s", o.Original, got, o.Key())
		}
	}
}

func TestBounds(t *testing.T) {
	str := func(s string) *string { return &s }
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	for _, c := range []struct {
		name, start, rule string
		ovs               map[string]*Override
		first, last       string // last "" : unbounded
	}{
		{name: "single", start: "2026-10-05T10:00", first: "2026-10-05T10:00:00Z", last: "2026-10-05T10:30:00Z"},
		{name: "count", start: "2026-10-05T10:00", rule: "FREQ=DAILY;COUNT=3", first: "2026-10-05T10:00:00Z", last: "2026-10-07T10:30:00Z"},
		{name: "forever", start: "2026-10-05T10:00", rule: "FREQ=DAILY", first: "2026-10-05T10:00:00Z"},
		{name: "all-day slack", start: "2026-10-05", first: "2026-10-03T22:00:00Z", last: "2026-10-07T02:00:00Z"},
		{name: "an override moved earlier and later", start: "2026-10-05T10:00", rule: "FREQ=DAILY;COUNT=3",
			ovs: map[string]*Override{
				"20261005T100000Z": {HasTime: true, StartAt: at("2026-10-01T08:00:00Z"), EndAt: at("2026-10-01T09:00:00Z")},
				"20261007T100000Z": {HasTime: true, StartAt: at("2026-10-09T08:00:00Z"), EndAt: at("2026-10-09T09:00:00Z")},
			}, first: "2026-10-01T08:00:00Z", last: "2026-10-09T09:00:00Z"},
		{name: "cancelled and text-only overrides change nothing", start: "2026-10-05T10:00", rule: "FREQ=DAILY;COUNT=3",
			ovs: map[string]*Override{
				"20261005T100000Z": {Cancel: true, HasTime: true, StartAt: at("2026-10-01T08:00:00Z"), EndAt: at("2026-10-01T09:00:00Z")},
				"20261006T100000Z": {Title: str("x")},
			}, first: "2026-10-05T10:00:00Z", last: "2026-10-07T10:30:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := event(t, c.start, "UTC", c.rule)
			first, last, bounded := Bounds(e, c.ovs)
			if first.UTC().Format(time.RFC3339) != c.first || bounded != (c.last != "") || bounded && last.UTC().Format(time.RFC3339) != c.last {
				t.Errorf("Bounds = %s, %s, %v; want %s, %q", first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339), bounded, c.first, c.last)
			}
		})
	}
}

// MoveSeries moves the occurrence named and every other by the same civil
// shift; the kind of a series changes with the days only.
func TestMoveSeries(t *testing.T) {
	for _, c := range []struct {
		name, start, zone, rule string
		from, to, into          string
		newRule                 bool
		wantStart, wantRule     string
		shift                   time.Duration
		err                     bool
	}{
		{name: "later the same day", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=WEEKLY;BYDAY=MO;COUNT=3",
			from: "2026-10-12T10:00", to: "2026-10-12T12:00", wantStart: "2026-10-05T12:00", wantRule: "FREQ=WEEKLY;COUNT=3;BYDAY=MO", shift: 2 * time.Hour},
		{name: "a day on, weekdays along", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;BYDAY=MO,WE",
			from: "2026-10-05T10:00", to: "2026-10-06T10:00", wantStart: "2026-10-06T10:00", wantRule: "FREQ=WEEKLY;BYDAY=TU,TH", shift: 24 * time.Hour},
		{name: "a new rule is left to the caller", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;BYDAY=MO,WE",
			from: "2026-10-05T10:00", to: "2026-10-06T10:00", newRule: true, wantStart: "2026-10-06T10:00", wantRule: "FREQ=WEEKLY;BYDAY=MO,WE", shift: 24 * time.Hour},
		{name: "zone change keeps the wall time", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=DAILY;COUNT=2",
			from: "2026-10-05T10:00", to: "2026-10-05T10:00", into: "America/New_York", wantStart: "2026-10-05T10:00", wantRule: "FREQ=DAILY;COUNT=2"},
		{name: "timed to all-day", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;BYDAY=MO",
			from: "2026-10-05T10:00", to: "2026-10-06", wantStart: "2026-10-06", wantRule: "FREQ=WEEKLY;BYDAY=TU"},
		{name: "all-day to timed", start: "2026-10-05", zone: "UTC",
			from: "2026-10-05", to: "2026-10-05T09:30", wantStart: "2026-10-05T09:30"},
		{name: "all-day to timed, UNTIL along", start: "2026-04-06", zone: "Europe/Berlin", rule: "FREQ=WEEKLY;BYDAY=MO;UNTIL=20260504",
			from: "2026-04-06", to: "2026-04-08T10:00", wantStart: "2026-04-08T10:00", wantRule: "FREQ=WEEKLY;UNTIL=20260506;BYDAY=WE"},
		{name: "timed to all-day, UNTIL after that day's occurrence", start: "2026-09-07T09:00", zone: "Europe/Berlin", rule: "FREQ=WEEKLY;UNTIL=20261026T080000Z",
			from: "2026-09-07T09:00", to: "2026-09-07", wantStart: "2026-09-07", wantRule: "FREQ=WEEKLY;UNTIL=20261026"},
		{name: "timed to all-day, UNTIL before that day's occurrence", start: "2026-09-07T09:00", zone: "Europe/Berlin", rule: "FREQ=WEEKLY;UNTIL=20261026T075900Z",
			from: "2026-09-07T09:00", to: "2026-09-07", wantStart: "2026-09-07", wantRule: "FREQ=WEEKLY;UNTIL=20261025"},
		{name: "timed to all-day, COUNT as it is", start: "2026-09-07T09:00", zone: "Europe/Berlin", rule: "FREQ=DAILY;COUNT=3",
			from: "2026-09-07T09:00", to: "2026-09-09", wantStart: "2026-09-09", wantRule: "FREQ=DAILY;COUNT=3"},
		{name: "UNTIL moved past the calendar's end stops there", start: "9999-12-20T18:00", zone: "Europe/Berlin", rule: "FREQ=DAILY;UNTIL=99991230T170000Z",
			from: "9999-12-20T18:00", to: "9999-12-23T18:00", wantStart: "9999-12-23T18:00", wantRule: "FREQ=DAILY;UNTIL=99991231T225959Z", shift: 72 * time.Hour},
		{name: "a date UNTIL moved past the calendar's end stops there", start: "9999-12-20", zone: "UTC", rule: "FREQ=DAILY;UNTIL=99991230",
			from: "9999-12-20", to: "9999-12-23", wantStart: "9999-12-23", wantRule: "FREQ=DAILY;UNTIL=99991231", shift: 72 * time.Hour},
		{name: "a day of the month that cannot follow", start: "2026-01-31T10:00", zone: "UTC", rule: "FREQ=MONTHLY",
			from: "2026-01-31T10:00", to: "2026-02-01T10:00", err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := event(t, c.start, c.zone, c.rule)
			zone := e.Zone
			if c.into != "" {
				zone = tz.MustZone(c.into)
			}
			was := e.Clone()
			n, shift, err := MoveSeries(e, moment(t, c.from), moment(t, c.to), zone, c.newRule)
			if c.err {
				var de *DaysError
				if !errors.As(err, &de) {
					t.Fatalf("err %v, want a *DaysError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n.Start.String() != c.wantStart || ruleText(n.Rule) != c.wantRule || shift != c.shift || n.Zone.Name() != zone.Name() {
				t.Errorf("got %s %q shift %v zone %s; want %s %q shift %v", n.Start, ruleText(n.Rule), shift, n.Zone.Name(), c.wantStart, c.wantRule, c.shift)
			}
			if e.Start != was.Start || ruleText(e.Rule) != ruleText(was.Rule) {
				t.Error("MoveSeries changed its argument")
			}
		})
	}
}

func TestCanChangeKind(t *testing.T) {
	single := event(t, "2026-10-05T10:00", "UTC", "")
	weekly := event(t, "2026-10-05T10:00", "UTC", "FREQ=WEEKLY")
	withEx := weekly.Clone()
	withEx.ExDates = []tz.Moment{moment(t, "2026-10-12T10:00")}
	ovs := map[string]*Override{"20261012T100000Z": {Cancel: true}}
	for _, c := range []struct {
		e    *Event
		ovs  map[string]*Override
		want bool
	}{{single, ovs, true}, {weekly, nil, true}, {weekly, ovs, false}, {withEx, nil, false}} {
		if got := CanChangeKind(c.e, c.ovs); got != c.want {
			t.Errorf("CanChangeKind(%s, %d overrides, %d exdates) = %v", c.e.Start, len(c.ovs), len(c.e.ExDates), got)
		}
	}
}

func TestShiftRemindAt(t *testing.T) {
	got, err := ShiftRemindAt(`["2026-10-05T08:00","2026-10-04"]`, 2*time.Hour, moment(t, "2026-10-05T10:00").DateTime)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "2026-10-05T10:00") {
		t.Errorf("ShiftRemindAt = %s", got)
	}
	if _, err := ShiftRemindAt(`[nope`, time.Hour, tz.DateTime{}); err == nil {
		t.Error("malformed JSON read")
	}
}

func TestRecordMove(t *testing.T) {
	e := event(t, "2026-10-05T10:00", "Europe/Paris", "FREQ=DAILY")
	if RecordMove(e, e.Clone()) {
		t.Error("an unmoved series recorded a move")
	}
	n := e.Clone()
	n.Zone = tz.MustZone("UTC")
	if !RecordMove(e, n) || len(n.PrevStarts) != 1 || n.PrevStarts[0] != (PrevStart{Start: "2026-10-05T10:00", TZID: "Europe/Paris"}) {
		t.Errorf("zone change: %v", n.PrevStarts)
	}
	for i := range MaxPrevStarts + 3 {
		m := n.Clone()
		m.Start = moment(t, "2026-10-05T10:00")
		m.Start.DateTime = m.Start.DateTime.AddMinutes(i + 1)
		RecordMove(n, m)
		n = m
	}
	if len(n.PrevStarts) != MaxPrevStarts || n.PrevStarts[MaxPrevStarts-1].Start != "2026-10-05T10:"+twoDigits(MaxPrevStarts+2) {
		t.Errorf("bounded: %v", n.PrevStarts)
	}
	if len(e.PrevStarts) != 0 {
		t.Error("RecordMove changed the series before")
	}
}

func twoDigits(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// FollowSeries re-keys the overrides of a moved series, drops those whose
// occurrence is gone, and makes ordinary again one whose own time is now
// the series'.
func TestFollowSeries(t *testing.T) {
	str := func(s string) *string { return &s }
	e := event(t, "2026-10-05T10:00", "UTC", "FREQ=DAILY;COUNT=3")
	moved := &Override{ID: 2, EventID: 7, Key: "20261006T100000Z", HasTime: true, Zone: tz.UTC,
		Start: moment(t, "2026-10-06T12:00"), End: moment(t, "2026-10-06T12:30")}
	moved.StartAt, moved.EndAt = time.Date(2026, 10, 6, 12, 0, 0, 0, time.UTC), time.Date(2026, 10, 6, 12, 30, 0, 0, time.UTC)
	titled := &Override{ID: 3, EventID: 7, Key: "20261007T100000Z", Title: str("Other")}
	ovs := map[string]*Override{moved.Key: moved, titled.Key: titled}

	// Two hours later: the moved occurrence is now at the series' time and
	// changes nothing else, so it goes; the titled one is re-keyed.
	n, shift, err := MoveSeries(e, e.Start, moment(t, "2026-10-05T12:00"), e.Zone, false)
	if err != nil {
		t.Fatal(err)
	}
	n.SetLength(e.Duration(), 0)
	f := FollowSeries(e, n, ovs, shift, "", tz.UTC)
	if len(f.Edits) != 2 || !f.Edits[0].Delete || f.Edits[0].Before != moved ||
		f.Edits[1].Delete || f.Edits[1].After.Key != "20261007T120000Z" || *f.Edits[1].After.Title != "Other" {
		t.Fatalf("edits %+v", f.Edits)
	}
	if len(f.Rekeyed) != 1 || f.Rekeyed[0] != [2]string{"20261007T100000Z", "20261007T120000Z"} || len(f.Dropped) != 0 {
		t.Errorf("rekeyed %v dropped %v", f.Rekeyed, f.Dropped)
	}
	if titled.Key != "20261007T100000Z" {
		t.Error("FollowSeries changed an override it was given")
	}

	// A rule with one occurrence: both overrides' occurrences are gone.
	one := e.Clone()
	one.Rule = recur.MustRule("FREQ=DAILY;COUNT=1")
	f = FollowSeries(e, one, ovs, 0, "", tz.UTC)
	if len(f.Dropped) != 2 || !f.Edits[0].Delete || !f.Edits[1].Delete {
		t.Errorf("dropped %v edits %+v", f.Dropped, f.Edits)
	}

	// The occurrence a call names gives its own time up, keeping the rest.
	moved.Title = str("Moved")
	f = FollowSeries(e, e.Clone(), ovs, 0, moved.Key, tz.UTC)
	if f.Edits[0].Delete || f.Edits[0].After.HasTime || *f.Edits[0].After.Title != "Moved" {
		t.Errorf("named: %+v", f.Edits[0])
	}
}

func TestSplitEvent(t *testing.T) {
	e := event(t, "2026-10-05T10:00", "Europe/Paris", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6")
	e.UID, e.Title, e.RemindOnce = "u@x", "Standup", `["2026-10-12T06:00:00Z"]`
	s := e.Series(e.Zone)
	r := occ(t, s, "2026-10-12T10:00")
	head, tail, err := SplitEvent(e, r, tz.UTC, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := starts(head.Series(tz.UTC)); got != "2026-10-05T10:00:00+02:00 2026-10-07T10:00:00+02:00" {
		t.Errorf("head %s", got)
	}
	if got := starts(tail.Series(tz.UTC)); got != "2026-10-12T10:00:00+02:00 2026-10-14T10:00:00+02:00 2026-10-19T10:00:00+02:00 2026-10-21T10:00:00+02:00" {
		t.Errorf("tail %s", got)
	}
	if head.ID != 7 || tail.ID != 0 || tail.SplitFrom != 7 || tail.Title != "Standup" || !tail.StartAt.Equal(r.Start) || tail.Duration() != e.Duration() ||
		head.RemindOnce != e.RemindOnce || tail.RemindOnce != "" {
		t.Errorf("tail %+v", tail)
	}

	// Restarted at a Wednesday, for a new rule the caller sets.
	r = occ(t, s, "2026-10-14T10:00")
	_, tail, err = SplitEvent(e, r, tz.UTC, true)
	if err != nil || tail.Start.String() != "2026-10-14T10:00" {
		t.Errorf("restart: %v %s", err, tail.Start)
	}

	if _, _, err := SplitEvent(e, occ(t, s, "2026-10-05T10:00"), tz.UTC, false); !errors.Is(err, ErrSplitAtFirst) {
		t.Errorf("at the first: %v", err)
	}
}

func TestKeyFrom(t *testing.T) {
	s := series(t, "2026-10-05T10:00", "UTC", "FREQ=DAILY", nil, nil)
	r := occ(t, s, "2026-10-07T10:00")
	for key, want := range map[string]bool{
		"20261006T100000Z": false, "20261007T100000Z": true, "20261008T100000Z": true,
		"20261006": false, "20261007": true, "bad": false,
	} {
		if KeyFrom(key, r) != want {
			t.Errorf("KeyFrom(%s) = %v", key, !want)
		}
	}
}

func TestMoveOccurrence(t *testing.T) {
	e := event(t, "2026-10-05T10:00", "Europe/Paris", "FREQ=DAILY")
	r := occ(t, e.Series(e.Zone), "2026-10-06T10:00")
	o := &Override{}
	MoveOccurrence(e, o, r, tz.Date{}, 0, moment(t, "2026-10-06T15:00"), tz.MustZone("Europe/London"), time.Hour)
	if !o.HasTime || o.StartAt.Format(time.RFC3339) != "2026-10-06T14:00:00Z" || o.End.String() != "2026-10-06T16:00" || o.Zone.Name() != "Europe/London" {
		t.Errorf("timed: %+v", o)
	}
	MoveOccurrence(e, o, r, tz.Date{}, 0, moment(t, "2026-10-06T10:00"), e.Zone, 30*time.Minute)
	if o.HasTime {
		t.Error("back at its own time, the override still has one")
	}

	d := event(t, "2026-10-05", "Europe/Paris", "FREQ=DAILY")
	r = occ(t, d.Series(d.Zone), "2026-10-06")
	MoveOccurrence(d, o, r, moment(t, "2026-10-08").Date, 2, tz.Moment{}, d.Zone, 0)
	if !o.HasTime || o.Start.String() != "2026-10-08" || o.End.String() != "2026-10-10" {
		t.Errorf("all-day: %+v", o)
	}
	MoveOccurrence(d, o, r, moment(t, "2026-10-06").Date, 1, tz.Moment{}, d.Zone, 0)
	if o.HasTime {
		t.Error("all-day back at its own day, the override still has a time")
	}
}

func TestOverrideEmpty(t *testing.T) {
	s := ""
	for _, c := range []struct {
		o    Override
		want bool
	}{{Override{}, true}, {Override{Cancel: true}, false}, {Override{HasTime: true}, false}, {Override{Notes: &s}, false}, {Override{RemindAt: &s}, false}} {
		if c.o.Empty() != c.want {
			t.Errorf("%+v.Empty() = %v", c.o, !c.want)
		}
	}
}
