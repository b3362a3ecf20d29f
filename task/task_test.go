package task

import (
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

var (
	paris = tz.MustZone("Europe/Paris")
	ny    = tz.MustZone("America/New_York")
)

func date(s string) tz.Date {
	d, err := tz.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func civil(s string) tz.DateTime {
	dt, err := tz.ParseDateTime(s)
	if err != nil {
		panic(err)
	}
	return dt
}

func rule(s string) *recur.Rule {
	r, err := recur.ParseRule(s)
	if err != nil {
		panic(err)
	}
	return r
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNext(t *testing.T) {
	for _, c := range []struct {
		name       string
		due        Due
		rrule      string
		repeatFrom string
		now        string // UTC
		next       string // the next due as stored, "" when ended
		nextRule   string
	}{
		{"weekly on time", Timed(civil("2026-10-05T09:00"), paris), "FREQ=WEEKLY", Schedule,
			"2026-10-05T07:30:00Z", "2026-10-12T09:00", "FREQ=WEEKLY"},
		{"early still moves past", Timed(civil("2026-10-05T09:00"), paris), "FREQ=WEEKLY", Schedule,
			"2026-10-01T07:00:00Z", "2026-10-12T09:00", "FREQ=WEEKLY"},
		{"overdue skips the missed ones", Timed(civil("2026-10-05T09:00"), paris), "FREQ=WEEKLY", Schedule,
			"2026-10-20T07:00:00Z", "2026-10-26T09:00", "FREQ=WEEKLY"},
		{"floating day done on its day", Day(date("2026-10-05")), "FREQ=DAILY", Schedule,
			"2026-10-05T21:30:00Z", "2026-10-06", "FREQ=DAILY"}, // 23:30 in Paris
		{"floating day is the person's day", Day(date("2026-10-05")), "FREQ=DAILY", Schedule,
			"2026-10-05T22:30:00Z", "2026-10-07", "FREQ=DAILY"}, // already the 6th in Paris
		{"count lowered by what is left behind", Day(date("2026-10-05")), "FREQ=DAILY;COUNT=5", Schedule,
			"2026-10-07T10:00:00Z", "2026-10-08", "FREQ=DAILY;COUNT=2"},
		{"count runs out", Day(date("2026-10-05")), "FREQ=DAILY;COUNT=2", Schedule,
			"2026-10-07T10:00:00Z", "", ""},
		{"until is inclusive", Day(date("2026-10-05")), "FREQ=DAILY;UNTIL=20261006", Schedule,
			"2026-10-05T10:00:00Z", "2026-10-06", "FREQ=DAILY;UNTIL=20261006"},
		{"until passed", Day(date("2026-10-06")), "FREQ=DAILY;UNTIL=20261006", Schedule,
			"2026-10-06T10:00:00Z", "", ""},
		{"from completion: days after it was done", Day(date("2026-10-05")), "FREQ=DAILY;INTERVAL=3", FromCompletion,
			"2026-10-09T10:00:00Z", "2026-10-12", "FREQ=DAILY;INTERVAL=3"},
		{"from completion keeps the clock", Timed(civil("2026-10-05T09:00"), ny), "FREQ=WEEKLY", FromCompletion,
			"2026-10-07T23:00:00Z", "2026-10-14T09:00", "FREQ=WEEKLY"},
		{"from completion: month end", Day(date("2026-01-31")), "FREQ=MONTHLY", FromCompletion,
			"2026-01-31T10:00:00Z", "2026-02-28", "FREQ=MONTHLY"},
		{"from completion: hourly from the instant", Timed(civil("2026-10-05T09:00"), paris), "FREQ=HOURLY;INTERVAL=2", FromCompletion,
			"2026-10-05T08:10:00Z", "2026-10-05T12:10", "FREQ=HOURLY;INTERVAL=2"},
		{"from completion: count", Day(date("2026-10-05")), "FREQ=DAILY;COUNT=3", FromCompletion,
			"2026-10-05T10:00:00Z", "2026-10-06", "FREQ=DAILY;COUNT=2"},
		{"from completion: last of the count", Day(date("2026-10-05")), "FREQ=DAILY;COUNT=1", FromCompletion,
			"2026-10-05T10:00:00Z", "", ""},
		{"from completion: until", Day(date("2026-10-05")), "FREQ=WEEKLY;UNTIL=20261010", FromCompletion,
			"2026-10-05T10:00:00Z", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := Task{Due: c.due, HasDue: true, Rule: rule(c.rrule), RepeatFrom: c.repeatFrom, Status: Open}
			adv, err := Next(tk, paris, utc(c.now))
			if err != nil {
				t.Fatal(err)
			}
			if c.next == "" {
				if !adv.Ended {
					t.Fatalf("next %s, want the end", adv.Next)
				}
				return
			}
			if adv.Ended {
				t.Fatalf("ended, want %s", c.next)
			}
			if got := adv.Next.String(); got != c.next {
				t.Errorf("next %s, want %s", got, c.next)
			}
			if got := adv.Rule.String(); got != c.nextRule {
				t.Errorf("rule %s, want %s", got, c.nextRule)
			}
			if adv.Next.HasTime {
				want, _ := adv.Next.Zone.Instant(adv.Next.DateTime)
				if !adv.Next.At.Equal(want) {
					t.Errorf("instant %s, want %s", adv.Next.At, want)
				}
			}
		})
	}
}

func TestNextInDSTGap(t *testing.T) {
	// 02:30 does not exist on 2027-03-28 in Paris: the next due keeps its
	// civil time, falls at 03:30 and says it was moved (RFC 5545 §3.3.5).
	tk := Task{Due: Timed(civil("2027-03-21T02:30"), paris), HasDue: true, Rule: rule("FREQ=WEEKLY"), RepeatFrom: Schedule}
	adv, err := Next(tk, paris, utc("2027-03-21T05:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if adv.Next.String() != "2027-03-28T02:30" || !adv.Next.Moved || !adv.Next.At.Equal(utc("2027-03-28T01:30:00Z")) {
		t.Errorf("next %s at %s moved %v", adv.Next, adv.Next.At, adv.Next.Moved)
	}
}

func TestComplete(t *testing.T) {
	now := utc("2026-10-05T08:00:00Z")
	single := Task{ID: 3, Title: "Call", Due: Day(date("2026-10-05")), HasDue: true, Status: Open}
	after, done, adv, err := Complete(single, paris, now)
	if err != nil {
		t.Fatal(err)
	}
	if !adv.Ended || after.Status != Done || !after.CompletedAt.Equal(now) || after.Due != single.Due {
		t.Errorf("single: %+v %+v", after, adv)
	}
	if done.TaskID != 3 || done.Due != single.Due || !done.HasDue || !done.At.Equal(now) {
		t.Errorf("single's completion: %+v", done)
	}

	rep := Task{ID: 4, Title: "Water", Due: Timed(civil("2026-10-05T09:00"), paris), HasDue: true,
		Rule: rule("FREQ=DAILY;COUNT=3"), RepeatFrom: Schedule, Status: Open,
		Reminders: item.Reminders{Before: []int{10}, At: []tz.Moment{tz.TimeMoment(civil("2026-10-05T08:00"))}}}
	after, done, adv, err = Complete(rep, paris, now)
	if err != nil {
		t.Fatal(err)
	}
	if adv.Ended || after.Status != Open || !after.CompletedAt.IsZero() {
		t.Fatalf("repeating: %+v %+v", after, adv)
	}
	if after.Due.String() != "2026-10-06T09:00" || after.Rule.String() != "FREQ=DAILY;COUNT=2" {
		t.Errorf("repeating moved to %s %s", after.Due, after.Rule)
	}
	if got := after.Reminders.At[0].String(); got != "2026-10-06T08:00" {
		t.Errorf("reminder moved to %s, want 2026-10-06T08:00", got)
	}
	if rep.Reminders.At[0].String() != "2026-10-05T08:00" {
		t.Error("Complete changed the task it was given")
	}
	if done.Due != rep.Due {
		t.Errorf("the completion records %s, want the occurrence done, %s", done.Due, rep.Due)
	}

	last := rep
	last.Rule = rule("FREQ=DAILY;COUNT=1")
	after, _, adv, _ = Complete(last, paris, now)
	if !adv.Ended || after.Status != Done {
		t.Errorf("last of a count: %+v", adv)
	}
}

func TestAddMonths(t *testing.T) {
	for _, c := range []struct {
		from string
		n    int
		want string
	}{
		{"2026-01-31", 1, "2026-02-28"},
		{"2028-01-31", 1, "2028-02-29"},
		{"2028-02-29", 12, "2029-02-28"},
		{"2026-03-31", -1, "2026-02-28"},
		{"2026-01-15", -1, "2025-12-15"},
		{"2026-11-30", 3, "2027-02-28"},
		{"2026-05-10", 0, "2026-05-10"},
	} {
		if got := AddMonths(date(c.from), c.n).String(); got != c.want {
			t.Errorf("AddMonths(%s, %d) = %s, want %s", c.from, c.n, got, c.want)
		}
	}
}

func TestShiftAt(t *testing.T) {
	m := func(s string) tz.Moment {
		x, err := tz.ParseMoment(s)
		if err != nil {
			panic(err)
		}
		return x
	}
	for _, c := range []struct {
		name      string
		at        []string
		old, next Due
		want      []string
	}{
		{"whole days keep a day a day", []string{"2026-10-04", "2026-10-05T08:00"},
			Day(date("2026-10-05")), Day(date("2026-10-08")), []string{"2026-10-07", "2026-10-08T08:00"}},
		{"hours move a day to a time", []string{"2026-10-05"},
			Day(date("2026-10-05")), Timed(civil("2026-10-05T09:30"), paris), []string{"2026-10-05T09:30"}},
		{"no move", []string{"2026-10-05T08:00"},
			Day(date("2026-10-05")), Day(date("2026-10-05")), []string{"2026-10-05T08:00"}},
		{"none", nil, Day(date("2026-10-05")), Day(date("2026-10-06")), nil},
	} {
		var at []tz.Moment
		for _, s := range c.at {
			at = append(at, m(s))
		}
		var got []string
		for _, x := range ShiftAt(at, c.old, c.next) {
			got = append(got, x.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestDue(t *testing.T) {
	d := Timed(civil("2026-10-05T23:30"), ny) // 05:30 on the 6th in Paris
	if got := d.PersonDay(paris).String(); got != "2026-10-06" {
		t.Errorf("PersonDay %s", got)
	}
	if d.SeriesZone(paris).Name() != "America/New_York" || !d.Start(paris).Equal(utc("2026-10-06T03:30:00Z")) {
		t.Errorf("timed: %s %s", d.SeriesZone(paris), d.Start(paris))
	}
	f := Day(date("2026-10-05"))
	if f.SeriesZone(ny).Name() != "America/New_York" || !f.Start(paris).Equal(utc("2026-10-04T22:00:00Z")) || f.PersonDay(ny) != date("2026-10-05") {
		t.Errorf("floating: %s %s", f.SeriesZone(ny), f.Start(paris))
	}
}

func TestTags(t *testing.T) {
	tags := AddTag(AddTag([]string{"home"}, "Home"), "errands")
	if !slices.Equal(tags, []string{"home", "errands"}) {
		t.Errorf("AddTag: %v", tags)
	}
	if got := RemoveTag(tags, "HOME"); !slices.Equal(got, []string{"errands"}) || len(tags) != 2 {
		t.Errorf("RemoveTag: %v (from %v)", got, tags)
	}
	if !SameTags([]string{"a", "B"}, []string{"b", "A"}) || SameTags([]string{"a"}, []string{"a", "b"}) {
		t.Error("SameTags")
	}
	tk := Task{Tags: []string{"de\u200bep"}}
	if !tk.HasTag("DEEP") {
		t.Error("HasTag does not see through an invisible character")
	}
}

func TestDiffers(t *testing.T) {
	a := Task{Priority: 2, Tags: []string{"x"}, Rule: rule("FREQ=DAILY"), RepeatFrom: Schedule}
	b := a
	b.Tags = []string{"X"}
	if d := Differs(a, b); len(d) != 0 {
		t.Errorf("same request differs in %v", d)
	}
	b.RepeatFrom, b.Priority = FromCompletion, 3
	if d := Differs(a, b); !slices.Equal(d, []string{"priority", "rrule"}) {
		t.Errorf("differs in %v", d)
	}
	if !PlainRule(rule("FREQ=DAILY;INTERVAL=3")) || PlainRule(rule("FREQ=WEEKLY;BYDAY=MO")) {
		t.Error("PlainRule")
	}
	if Label(12) != "t12" {
		t.Error("Label")
	}
}

// TestMadeID: MadeID reads back exactly what MadeUID writes, and nothing
// else, so a UID that merely looks alike is a client's own.
func TestMadeID(t *testing.T) {
	for _, id := range []int64{1, 9, 10, 12345, 1<<63 - 1} {
		if got, ok := MadeID(MadeUID(id)); !ok || got != id {
			t.Errorf("MadeID(%q) = %d, %v", MadeUID(id), got, ok)
		}
	}
	for _, uid := range []string{"t0@assistant", "t012@assistant", "t+12@assistant", "t-1@assistant", "T12@assistant",
		"t12@Assistant", "t@assistant", "t12@assistant.x", "xt12@assistant", "t12 @assistant", "t9223372036854775808@assistant",
		"t99999999999999999999@assistant", "t１２@assistant", "12@assistant", ""} {
		if id, ok := MadeID(uid); ok {
			t.Errorf("MadeID(%q) = %d, true; want false", uid, id)
		}
	}
}
