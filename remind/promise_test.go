package remind

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// A sender that stops (killed) after claiming and before recording is no
// failed attempt: however many times it happens, the delivery is taken up
// again once its lease runs out on the real clock, and sent; retries are
// used up only by notifiers' errors, whose text is kept.
func TestStoppedSenderIsNoFailure(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
		real := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		eng := e.engine(Options{LeaseClock: func() time.Time { return real }})
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-05T08:45")
		p := e.personOf(eng, e.ada.ID)
		if _, err := eng.recordDue(e.ctx, p, e.now, &Result{}); err != nil {
			t.Fatal(err)
		}
		for i := range 6 { // more than the 4 attempts a failing delivery gets
			var r Result
			d, _, err := eng.claim(e.ctx, p, &r)
			if err != nil || d == nil {
				t.Fatalf("claim %d: %v, %+v", i+1, err, d)
			}
			real = real.Add(DefaultLease + time.Second) // the sender died; its lease runs out
		}
		e.rec.fail = 1
		if r := e.pass(eng); r.Failed != 1 || r.GaveUp != 0 {
			t.Fatalf("the first real failure: %+v", r)
		}
		rows := e.rows()
		if len(rows) != 1 || rows[0].Status != "pending" || rows[0].LastError != "recorder: the receiver is down" {
			t.Fatalf("after stops and one failure: %+v", rows)
		}
		e.at("Europe/Paris", "2026-10-05T08:46")
		if r := e.pass(eng); r.Sent != 1 || !r.OK() {
			t.Fatalf("the retry: %+v", r)
		}
		if got := e.rec.take(); len(got) != 1 || got[0].Attempt != 8 {
			t.Errorf("sent %+v, want one message of attempt 8", got)
		}
	})
}

// A delivery whose senders only ever stopped is given up past --max-late
// as failed, saying so (never "last error: none"), and the pass is not OK,
// so --once exits non-zero; so is a pass that skips a reminder missed by
// more than --max-late.
func TestGivingUpIsNotOK(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
		real := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		eng := e.engine(Options{LeaseClock: func() time.Time { return real }, MaxLate: time.Hour})
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-05T08:45")
		var r Result
		if _, err := eng.recordDue(e.ctx, e.personOf(eng, e.ada.ID), e.now, &r); err != nil {
			t.Fatal(err)
		}
		if d, _, err := eng.claim(e.ctx, e.personOf(eng, e.ada.ID), &r); err != nil || d == nil {
			t.Fatalf("claim: %v", err)
		}
		real = real.Add(3 * time.Hour)
		e.at("Europe/Paris", "2026-10-05T10:00")
		r = e.pass(eng)
		if r.GaveUp != 1 || r.OK() {
			t.Fatalf("past --max-late after a stopped sender: %+v, want given up and not OK", r)
		}
		rows := e.rows()
		if len(rows) != 1 || rows[0].Status != "failed" || strings.Contains(rows[0].LastError, "none") ||
			!strings.Contains(rows[0].LastError, "stopped once before recording a result") {
			t.Fatalf("rows %+v", rows)
		}

		e.call(e.ada, "add_task", `{"title":"Call","due":"2026-10-05T11:00","remind_before":[0]}`)
		e.at("Europe/Paris", "2026-10-05T12:30")
		if r := e.pass(eng); r.Skipped != 1 || r.TooLate != 1 || r.OK() {
			t.Fatalf("missed by more than --max-late: %+v, want skipped and not OK", r)
		}
	})
}

// A reminder of an event occurrence that is over is not sent: it is
// recorded as skipped, and --status says why. One sent after the event
// began says "started".
func TestLateReminderOfAnEventOver(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		e.call(e.ada, "add_event", `{"title":"Standup","start":"2026-10-05T09:00","end":"2026-10-05T09:30","remind_before":[15]}`)
		e.call(e.ada, "add_event", `{"title":"Review","start":"2026-10-05T09:00","end":"2026-10-05T11:00","remind_before":[10]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-05T09:40")
		before, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ps := before[0]; len(ps.Missed) != 1 || ps.Missed[0].Title != "Standup" || len(ps.Due) != 1 {
			t.Errorf("status before the pass: due %+v, will be skipped %+v", ps.Due, ps.Missed)
		}
		r := e.pass(eng)
		got := e.rec.take()
		if r.Sent != 1 || r.Skipped != 1 || len(got) != 1 || got[0].Title != "Review" {
			t.Fatalf("result %+v, sent %+v", r, got)
		}
		if want := "Review: started Mon 2026-10-05 09:00 (+02:00), 40 min ago. (sent 50 min late)"; got[0].Text != want {
			t.Errorf("text %q, want %q", got[0].Text, want)
		}
		if !r.OK() {
			t.Errorf("a reminder of an event over is no failure: %+v", r)
		}
		reports, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteStatus(&b, reports); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "skipped: 1") ||
			!strings.Contains(b.String(), "the event ended Mon 2026-10-05 09:30 (+02:00), before its reminder could be sent") {
			t.Errorf("status:\n%s", b.String())
		}
	})
}

// After the person's zone changes, a date-only reminder already sent for
// that day is not sent again at the new zone's midnight; the next day's
// fires at the new zone's midnight.
func TestZoneChangeKeepsADaysReminderSent(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T12:00"))
		e.call(e.ada, "add_task", `{"title":"Rent","due":"2026-10-06","remind_before":[0]}`)
		e.call(e.ada, "add_event", `{"title":"Holiday","start":"2026-10-06","rrule":"FREQ=DAILY;COUNT=2","remind_before":[0]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-06T00:10")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 2 {
			t.Fatalf("at midnight in Paris: %+v", got)
		}
		e.call(e.ada, "set_time_zone", `{"time_zone":"America/New_York"}`)
		e.at("America/New_York", "2026-10-06T00:10")
		reports, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ps := reports[0]; len(ps.Due) != 0 {
			t.Errorf("status at New York's midnight lists as due: %+v", ps.Due)
		}
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("sent again at New York's midnight: %+v", got)
		}
		e.at("America/New_York", "2026-10-07T00:10")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 1 || got[0].Occurrence.Start != "2026-10-07T00:00:00-04:00" {
			t.Fatalf("the next day: %+v, want the holiday's second day at New York's midnight", got)
		}
	})
}

// personOf is the engine's view of person id.
func (e *env) personOf(eng *Engine, id int64) person {
	e.t.Helper()
	ps, err := eng.persons(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, p := range ps {
		if p.ID == id {
			return p
		}
	}
	e.t.Fatalf("no person %d", id)
	return person{}
}

// A remind_at read in the zone of the call (--tz) fires at the instant it
// named, not at that wall-clock time in the person's stored zone, and
// the task shows in which zone it was written.
func TestRemindAtKeepsTheCallsZone(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, time.Date(2026, 10, 5, 10, 0, 0, 0, time.UTC))
		utc := e.person("cy", "UTC")
		underTZ := utc
		underTZ.Zone = tz.MustZone("Europe/Paris") // assistant --tz Europe/Paris
		e.call(underTZ, "add_task", `{"title":"X","remind_at":["2026-10-05T17:48"]}`)
		e.call(underTZ, "add_task", `{"title":"Y","due":"2026-10-06","remind_at":["2026-10-05T18:00"]}`)
		eng := e.engine(Options{People: []int64{utc.ID}})
		e.pass(eng)
		e.now = time.Date(2026, 10, 5, 15, 47, 0, 0, time.UTC)
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("fired before 17:48 Paris: %+v", got)
		}
		e.now = time.Date(2026, 10, 5, 16, 0, 0, 0, time.UTC)
		e.pass(eng)
		got := e.rec.take()
		if len(got) != 2 || got[0].FireAt != "2026-10-05T15:48:00+00:00" || got[1].FireAt != "2026-10-05T16:00:00+00:00" {
			t.Fatalf("sent %+v, want X at 15:48Z (17:48 Paris) and Y at 16:00Z (18:00 Paris)", got)
		}
		tc := &tools.ToolContext{}
		tools.Insert(tc, utc)
		tools.Insert(tc, e.s)
		tools.Insert(tc, tools.Clock(e.time))
		res, _ := e.reg.Call(e.ctx, tc, "get_task", []byte(`{"id":"t1"}`))
		if !res.OK() || !strings.Contains(res.Out, "2026-10-05T17:48 (Europe/Paris)") {
			t.Errorf("get_task in the stored zone: %s", res.Out)
		}
	})
}

// out runs a tool as who, fails the test unless it succeeded, and returns
// the answer's text.
func (e *env) out(who tools.Person, name, raw string) string {
	e.t.Helper()
	tc := &tools.ToolContext{}
	tools.Insert(tc, who)
	tools.Insert(tc, e.s)
	tools.Insert(tc, tools.Clock(e.time))
	res, _ := e.reg.Call(e.ctx, tc, name, []byte(raw))
	if !res.OK() {
		e.t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.Err)
	}
	return res.Out
}

// A reminder time already past when it is set (add or update, task or
// event) is said in the answer, naming the time, and recorded as skipped
// at once: --status lists it under skipped, never as due, and a pass
// sends nothing. Of a repeating event only the occurrences still to come
// count.
func TestReminderAlreadyPastWhenSet(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:50"))
		eng := e.engine(Options{})
		e.pass(eng)
		cases := []struct{ tool, args, want string }{
			{"add_task", `{"title":"A","remind_at":["2026-10-05T08:49"]}`, "the reminder time Mon 2026-10-05 08:49 (+02:00) has already passed; it will not fire."},
			{"add_event", `{"title":"Standup","start":"2026-10-05T09:00","remind_before":[15]}`, "the reminder time Mon 2026-10-05 08:45 (+02:00) has already passed; it will not fire."},
			{"add_event", `{"title":"Weekly","start":"2026-09-28T09:00","rrule":"FREQ=WEEKLY","remind_before":[15, 20]}`,
				"the reminder times Mon 2026-10-05 08:40 (+02:00) and Mon 2026-10-05 08:45 (+02:00) have already passed; they will not fire."},
			{"add_task", `{"title":"B","due":"2026-10-05T09:00","remind_before":[5]}`, ""},
			{"update_task", `{"id":"t2","remind_before":[30, 5]}`, "the reminder time Mon 2026-10-05 08:30 (+02:00) has already passed; it will not fire."},
			{"update_event", `{"id":"e1","start":"2026-10-05T08:55"}`, "the reminder time Mon 2026-10-05 08:40 (+02:00) has already passed; it will not fire."},
		}
		for _, c := range cases {
			out := e.out(e.ada, c.tool, c.args)
			if c.want == "" {
				if strings.Contains(out, "already passed") {
					t.Errorf("%s %s: a warning for a reminder still to come:\n%s", c.tool, c.args, out)
				}
			} else if !strings.Contains(out, "Warning: "+c.want) {
				t.Errorf("%s %s: the answer lacks %q:\n%s", c.tool, c.args, c.want, out)
			}
		}
		reports, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteStatus(&b, reports); err != nil {
			t.Fatal(err)
		}
		st := b.String()
		for _, want := range []string{"due now: 0", "skipped: 6", "its time had already passed when it was set (Mon 2026-10-05 08:50 (+02:00))"} {
			if !strings.Contains(st, want) {
				t.Errorf("status lacks %q:\n%s", want, st)
			}
		}
		if r := e.pass(eng); r.Sent != 0 || len(e.rec.take()) != 0 {
			t.Errorf("a pass sent %+v", r)
		}
		e.at("Europe/Paris", "2026-10-05T08:55")
		if r := e.pass(eng); r.Sent != 1 {
			t.Errorf("t2's reminder 5 min before is still to come: %+v", r)
		}
	})
}
