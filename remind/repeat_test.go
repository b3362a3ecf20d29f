package remind

import (
	"fmt"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"

	"github.com/assistant-dev/assistant/tz"
)

const paris = "Europe/Paris"

// fireOnce passes a minute before civil (Paris), when nothing may go out,
// then at civil, when exactly one reminder must, and returns it. The pass a
// minute before records everything due up to then, so a reminder left at
// an old time or offset shows up there.
func (e *env) fireOnce(eng *Engine, civil string) Message {
	e.t.Helper()
	at := civilAt(e.t, paris, civil)
	e.now = at.Add(-time.Minute)
	e.pass(eng)
	if got := e.rec.take(); len(got) != 0 {
		e.t.Fatalf("before %s: %d reminders, want none: %+v", civil, len(got), got)
	}
	e.now = at
	e.pass(eng)
	got := e.rec.take()
	if len(got) != 1 {
		e.t.Fatalf("at %s: %d reminders, want 1: %+v", civil, len(got), got)
	}
	return got[0]
}

// repeatStep is one week of a repeating item: an optional tool call made
// first (at its own time, Paris), then the one reminder that must fire.
type repeatStep struct {
	name     string
	at, tool string // when tool is set, it runs at at with args
	args     string // %s is the item's id
	fire     string // Paris civil time the reminder fires
	start    string // the occurrence's start or due, RFC 3339
	trigger  string
}

func runRepeatSteps(t *testing.T, e *env, eng *Engine, id string, steps []repeatStep) {
	t.Helper()
	for _, s := range steps {
		if s.tool != "" {
			e.at(paris, s.at)
			e.call(e.ada, s.tool, fmt.Sprintf(s.args, id))
		}
		m := e.fireOnce(eng, s.fire)
		wantFire := civilAt(t, paris, s.fire)
		if m.Item.ID != id || m.FireAt != tz.RFC3339(wantFire, tz.MustZone(paris)) ||
			m.Occurrence.Start != s.start || m.Trigger != s.trigger {
			t.Errorf("%s: got item %s fire %s start %s trigger %s; want %s fire %s start %s trigger %s",
				s.name, m.Item.ID, m.FireAt, m.Occurrence.Start, m.Trigger, id, s.fire, s.start, s.trigger)
		}
	}
}

// A weekly task due Monday 09:00 with a reminder at Monday 08:00 fires at
// 08:00 every Monday (an absolute reminder keeps its offset from
// the due), across the October DST change; after complete_task or a
// reschedule moves the due, it fires at the new due minus the same hour.
func TestRemindAtRepeatingTask(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-04T12:00"))
		id := e.call(e.ada, "add_task", `{"title":"Weekly report","due":"2026-10-05T09:00","rrule":"FREQ=WEEKLY",
			"remind_at":["2026-10-05T08:00"]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		runRepeatSteps(t, e, eng, id, []repeatStep{
			{name: "first Monday", fire: "2026-10-05T08:00", start: "2026-10-05T09:00:00+02:00",
				trigger: "at:2026-10-05T08:00"},
			{name: "completed: the next Monday", at: "2026-10-05T10:00", tool: "complete_task", args: `{"id":%q}`,
				fire: "2026-10-12T08:00", start: "2026-10-12T09:00:00+02:00", trigger: "at:2026-10-12T08:00"},
			{name: "not completed: still every Monday", fire: "2026-10-19T08:00", start: "2026-10-19T09:00:00+02:00",
				trigger: "at:2026-10-12T08:00"},
			{name: "completed: across the DST change", at: "2026-10-19T10:00", tool: "complete_task", args: `{"id":%q}`,
				fire: "2026-10-26T08:00", start: "2026-10-26T09:00:00+01:00", trigger: "at:2026-10-26T08:00"},
			{name: "rescheduled to 10:30", at: "2026-10-27T09:00", tool: "update_task",
				args: `{"id":%q,"due":"2026-11-02T10:30"}`,
				fire: "2026-11-02T09:30", start: "2026-11-02T10:30:00+01:00", trigger: "at:2026-11-02T09:30"},
			{name: "the rule goes on from the new due", fire: "2026-11-09T09:30", start: "2026-11-09T10:30:00+01:00",
				trigger: "at:2026-11-02T09:30"},
		})
	})
}

// The same for a weekly event: remind_at keeps its hour before the start
// on every occurrence, a moved occurrence included, across the DST change;
// an occurrence given its own remind_at fires at that moment.
func TestRemindAtRepeatingEvent(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-04T12:00"))
		id := e.call(e.ada, "add_event", `{"title":"Planning","start":"2026-10-05T09:00","duration":30,"rrule":"FREQ=WEEKLY",
			"remind_at":["2026-10-05T08:00"]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		runRepeatSteps(t, e, eng, id, []repeatStep{
			{name: "first Monday", fire: "2026-10-05T08:00", start: "2026-10-05T09:00:00+02:00",
				trigger: "at:2026-10-05T08:00"},
			{name: "one occurrence moved to 14:00", at: "2026-10-05T12:00", tool: "update_event",
				args: `{"id":"%s@20261012T070000Z","scope":"this","start":"2026-10-12T14:00"}`,
				fire: "2026-10-12T13:00", start: "2026-10-12T14:00:00+02:00", trigger: "at:2026-10-05T08:00"},
			{name: "the series' time again", fire: "2026-10-19T08:00", start: "2026-10-19T09:00:00+02:00",
				trigger: "at:2026-10-05T08:00"},
			{name: "across the DST change", fire: "2026-10-26T08:00", start: "2026-10-26T09:00:00+01:00",
				trigger: "at:2026-10-05T08:00"},
			{name: "one occurrence with its own remind_at", at: "2026-10-27T12:00", tool: "update_event",
				args: `{"id":"%s@20261102T080000Z","scope":"this","remind_at":["2026-11-02T08:30"]}`,
				fire: "2026-11-02T08:30", start: "2026-11-02T09:00:00+01:00", trigger: "at:2026-11-02T08:30"},
			{name: "the week after keeps the series' reminder", fire: "2026-11-09T08:00",
				start: "2026-11-09T09:00:00+01:00", trigger: "at:2026-10-05T08:00"},
			{name: "moved and given its own remind_at", at: "2026-11-10T12:00", tool: "update_event",
				args: `{"id":"%s@20261116T080000Z","scope":"this","start":"2026-11-16T15:00","remind_at":["2026-11-16T07:15"]}`,
				fire: "2026-11-16T07:15", start: "2026-11-16T15:00:00+01:00", trigger: "at:2026-11-16T07:15"},
			{name: "own remind_before, the series' remind_at kept", at: "2026-11-17T12:00", tool: "update_event",
				args: `{"id":"%s@20261123T080000Z","scope":"this","remind_before":[10]}`,
				fire: "2026-11-23T08:00", start: "2026-11-23T09:00:00+01:00", trigger: "at:2026-10-05T08:00"},
			{name: "and its remind_before", fire: "2026-11-23T08:50", start: "2026-11-23T09:00:00+01:00",
				trigger: "before:10"},
		})
	})
}
