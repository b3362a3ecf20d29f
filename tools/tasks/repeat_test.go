package tasks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// step is one completion of a repeating task: the clock (civil, in the
// person's zone) and the due the task must move to ("" when it must be done
// for good).
type step struct {
	at, next string
}

func TestRepeating(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		cases := []struct {
			name  string
			add   string
			start string // the clock when the task is added
			steps []step
			rule  string // the stored rule after the last step, when it matters
		}{
			{
				name:  "daily 09:00 stays 09:00 across the Paris fall-back",
				add:   `{"title":"Pills","due":"2026-10-24T09:00","rrule":"FREQ=DAILY"}`,
				start: "2026-10-24T08:00",
				steps: []step{{"2026-10-24T09:05", "2026-10-25T09:00"}, {"2026-10-25T09:05", "2026-10-26T09:00"}},
			},
			{
				name:  "daily 02:30 in the spring-forward gap keeps its civil time",
				add:   `{"title":"Night","due":"2026-03-28T02:30","rrule":"FREQ=DAILY"}`,
				start: "2026-03-28T01:00",
				steps: []step{{"2026-03-28T03:00", "2026-03-29T02:30"}, {"2026-03-29T04:00", "2026-03-30T02:30"}},
			},
			{
				name:  "monthly on the 31st skips short months",
				add:   `{"title":"Invoice","due":"2026-01-31","rrule":"FREQ=MONTHLY;BYMONTHDAY=31"}`,
				start: "2026-01-30T10:00",
				steps: []step{{"2026-01-31T10:00", "2026-03-31"}, {"2026-03-31T10:00", "2026-05-31"}},
			},
			{
				name:  "the last day of each month",
				add:   `{"title":"Rent","due":"2026-01-31","rrule":"FREQ=MONTHLY;BYMONTHDAY=-1"}`,
				start: "2026-01-30T10:00",
				steps: []step{{"2026-01-31T10:00", "2026-02-28"}, {"2026-02-28T10:00", "2026-03-31"}, {"2026-03-31T10:00", "2026-04-30"}},
			},
			{
				name:  "Feb 29 yearly waits for leap years",
				add:   `{"title":"Leap","due":"2028-02-29","rrule":"FREQ=YEARLY"}`,
				start: "2028-02-01T10:00",
				steps: []step{{"2028-02-29T10:00", "2032-02-29"}},
			},
			{
				name:  "an overdue task moves to after now, not to the missed ones",
				add:   `{"title":"Water","due":"2026-11-02T09:00","rrule":"FREQ=DAILY"}`,
				start: "2026-11-01T10:00",
				steps: []step{{"2026-11-30T12:00", "2026-12-01T09:00"}},
			},
			{
				name:  "an overdue day task done today moves past today",
				add:   `{"title":"Stretch","due":"2026-11-02","rrule":"FREQ=DAILY"}`,
				start: "2026-11-01T10:00",
				steps: []step{{"2026-11-30T08:00", "2026-12-01"}},
			},
			{
				name:  "completing early moves past the current due",
				add:   `{"title":"Bins","due":"2026-12-03","rrule":"FREQ=WEEKLY"}`,
				start: "2026-11-30T10:00",
				steps: []step{{"2026-11-30T11:00", "2026-12-10"}},
			},
			{
				name:  "COUNT runs out and the task is done",
				add:   `{"title":"Course","due":"2026-12-01","rrule":"FREQ=WEEKLY;COUNT=3"}`,
				start: "2026-11-30T10:00",
				steps: []step{{"2026-12-01T10:00", "2026-12-08"}, {"2026-12-08T10:00", "2026-12-15"}, {"2026-12-15T10:00", ""}},
			},
			{
				name:  "COUNT counts the missed occurrences too",
				add:   `{"title":"Drops","due":"2026-12-01","rrule":"FREQ=DAILY;COUNT=5"}`,
				start: "2026-11-30T10:00",
				steps: []step{{"2026-12-03T10:00", "2026-12-04"}},
				rule:  "FREQ=DAILY;COUNT=2",
			},
			{
				name:  "UNTIL runs out",
				add:   `{"title":"Trial","due":"2026-12-01","rrule":"FREQ=DAILY;UNTIL=20261202"}`,
				start: "2026-11-30T10:00",
				steps: []step{{"2026-12-01T10:00", "2026-12-02"}, {"2026-12-02T10:00", ""}},
			},
			{
				name:  "every 3 days after completion keeps the clock time",
				add:   `{"title":"Plants","due":"2026-12-01T18:00","rrule":"FREQ=DAILY;INTERVAL=3","repeat_from":"completion"}`,
				start: "2026-11-30T10:00",
				steps: []step{{"2026-12-02T21:00", "2026-12-05T18:00"}, {"2026-12-05T08:00", "2026-12-08T18:00"}},
			},
			{
				name:  "monthly after completion takes the month's last day",
				add:   `{"title":"Filter","due":"2026-01-31","rrule":"FREQ=MONTHLY","repeat_from":"completion"}`,
				start: "2026-01-30T10:00",
				steps: []step{{"2026-01-31T10:00", "2026-02-28"}},
			},
			{
				name:  "after completion with COUNT",
				add:   `{"title":"Twice","due":"2026-12-01","rrule":"FREQ=WEEKLY;COUNT=2","repeat_from":"completion"}`,
				start: "2026-11-30T10:00",
				steps: []step{{"2026-12-02T10:00", "2026-12-09"}, {"2026-12-09T10:00", ""}},
			},
			{
				name:  "every 2 hours after completion",
				add:   `{"title":"Hydrate","due":"2026-12-01T09:00","rrule":"FREQ=HOURLY;INTERVAL=2","repeat_from":"completion"}`,
				start: "2026-12-01T08:00",
				steps: []step{{"2026-12-01T09:40", "2026-12-01T11:40"}},
			},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				h := newHarness(t, time.Time{})
				p := h.paris
				h.At("Europe/Paris", c.start)
				id := h.add(t, p, c.add)
				for i, s := range c.steps {
					h.At("Europe/Paris", s.at)
					var d written
					d, out := h.write(t, p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
					if d.Next != s.next {
						t.Fatalf("step %d at %s: next %q, want %q (%s)", i, s.at, d.Next, s.next, out)
					}
					if s.next == "" {
						if d.Task.Status != "done" || !strings.Contains(out, "run out") {
							t.Fatalf("step %d: not done for good: %s", i, out)
						}
						continue
					}
					if d.Task.Status != "open" || d.Task.Due != s.next || !strings.Contains(out, "Next due") {
						t.Fatalf("step %d: %+v: %s", i, d.Task, out)
					}
				}
				got := h.task(t, p, id)
				if c.rule != "" && got.RRule != c.rule {
					t.Fatalf("rule %q, want %q", got.RRule, c.rule)
				}
				if got.Done != len(c.steps) || len(got.Completions) != len(c.steps) {
					t.Fatalf("history has %d completions, want %d", got.Done, len(c.steps))
				}
			})
		}
	})
}

// The instant of a 09:00 Paris due moves by an hour across the fall-back
// while its civil time stays 09:00.
func TestRepeatingDSTInstants(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		p := h.paris
		h.At("Europe/Paris", "2026-10-24T08:00")
		id := h.add(t, p, `{"title":"Pills","due":"2026-10-24T09:00","rrule":"FREQ=DAILY"}`)
		if got := h.task(t, p, id).DueAt; got != "2026-10-24T09:00:00+02:00" {
			t.Fatalf("first due_at %s", got)
		}
		// Summer time ends at 03:00 on Sun 2026-10-25.
		want := []string{"2026-10-25T09:00:00+01:00", "2026-10-26T09:00:00+01:00"}
		for i, at := range []string{"2026-10-24T10:00", "2026-10-25T10:00"} {
			h.At("Europe/Paris", at)
			var d written
			d, _ = h.write(t, p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
			if d.Task.DueAt != want[i] || d.Task.DueZone != "Europe/Paris" {
				t.Fatalf("step %d: due_at %s %s, want %s", i, d.Task.DueAt, d.Task.DueZone, want[i])
			}
		}
	})
}

func TestRescheduleKeepsRule(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		p := h.paris
		h.At("Europe/Paris", "2026-11-30T10:00")
		id := h.add(t, p, `{"title":"Review","due":"2026-12-01T09:00","rrule":"FREQ=WEEKLY;COUNT=4"}`)
		var d written
		d, out := h.write(t, p, "update_task", fmt.Sprintf(`{"id":%q,"due":"2026-12-03T14:00"}`, id))
		if d.Task.RRule != "FREQ=WEEKLY;COUNT=4" || d.Task.Due != "2026-12-03T14:00" || !strings.Contains(out, "repeats every week") {
			t.Fatalf("rescheduling lost the rule: %+v %s", d.Task, out)
		}
		h.At("Europe/Paris", "2026-12-03T15:00")
		d, _ = h.write(t, p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
		if d.Next != "2026-12-10T14:00" {
			t.Fatalf("after a reschedule the series continues from the new due; next %q", d.Next)
		}
	})
}

// An absolute reminder keeps its offset from the due as the task moves,
// by completion of a repeating task or by a new due.
func TestRemindAtFollowsTheDue(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		cases := []struct {
			name, add, call, args, want string
		}{
			{"completion moves it with the next due",
				`{"title":"Bins","due":"2026-12-03T19:00","rrule":"FREQ=WEEKLY","remind_at":["2026-12-03T08:00"]}`,
				"complete_task", `{"id":%q}`, "2026-12-10T08:00"},
			{"a day due moves a day reminder by whole days",
				`{"title":"Rent","due":"2026-12-31","rrule":"FREQ=MONTHLY;BYMONTHDAY=-1","remind_at":["2026-12-30"]}`,
				"complete_task", `{"id":%q}`, "2027-01-30"},
			{"a new due moves it",
				`{"title":"Call","due":"2026-12-03T19:00","remind_at":["2026-12-03T18:30"]}`,
				"update_task", `{"id":%q,"due":"2026-12-04T10:00"}`, "2026-12-04T09:30"},
			{"a new due with its own reminders keeps those",
				`{"title":"Call","due":"2026-12-03T19:00","remind_at":["2026-12-03T18:30"]}`,
				"update_task", `{"id":%q,"due":"2026-12-04T10:00","remind_at":["2026-12-01T12:00"]}`, "2026-12-01T12:00"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				h := newHarness(t, time.Time{})
				p := h.paris
				h.At("Europe/Paris", "2026-12-01T10:00")
				id := h.add(t, p, c.add)
				h.At("Europe/Paris", "2026-12-03T20:00")
				h.write(t, p, c.call, fmt.Sprintf(c.args, id))
				got := h.task(t, p, id)
				if len(got.RemindAt) != 1 || got.RemindAt[0] != c.want {
					t.Fatalf("remind_at %v, want [%s]", got.RemindAt, c.want)
				}
			})
		}
	})
}
