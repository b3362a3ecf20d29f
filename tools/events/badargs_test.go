package events

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// Every argument of every tool, given a wrong value, is refused with its
// sentence, and nothing is stored.
func TestBadArguments(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Standup","start":"2026-10-05T09:30","rrule":"FREQ=WEEKLY;BYDAY=MO"}`)
		e.ok(e.alice, "add_event", `{"title":"Trip","start":"2026-10-07","end":"2026-10-09","rrule":"FREQ=MONTHLY;COUNT=3"}`)
		long := func(n int) string { return strings.Repeat("𝄞", n) }
		tooManyDays := make([]string, 10001)
		for i := range tooManyDays {
			tooManyDays[i] = fmt.Sprintf(`"%s"`, time.Date(2026, 10, 7, 10, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("2006-01-02T15:04"))
		}
		manyDays := make([]string, 1001)
		for i := range manyDays {
			manyDays[i] = fmt.Sprintf(`"%s"`, time.Date(2026, 10, 7, 10, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("2006-01-02T15:04"))
		}
		cases := []struct {
			tool, raw, want string
		}{
			{"add_event", `{"start":"2026-10-06T10:00"}`, "“title” is required"},
			{"add_event", `{"title":"  ","start":"2026-10-06T10:00"}`, "“title”"},
			{"add_event", `{"title":5,"start":"2026-10-06T10:00"}`, "“title” must be one line of text"},
			{"add_event", `{"title":"x"}`, "“start” is required"},
			{"add_event", `{"title":"x","start":"friday-ish"}`, "“start”"},
			{"add_event", `{"title":"x","start":"2026-02-30"}`, "“start”"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","end":"2026-10-06T09:00"}`, "“end” 2026-10-06T09:00 is not after “start” 2026-10-06T10:00"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","end":"half past ten"}`, "“end” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “half past ten”."},
			{"add_event", `{"title":"x","start":"2026-10-06","end":"2026-13-01"}`, "“end” must be a day that exists on the calendar, not “2026-13-01”: months run from 01 to 12."},
			// Near the calendar's end: the day named, and the fix that helps.
			{"add_event", `{"title":"x","start":"9999-12-30","end":"9999-12-31"}`, "“start” 9999-12-30 runs, with its length, through 9999-12-31, the calendar's last day, whose end (the midnight after it) falls after 9999-12-31T23:59:59 (in UTC or in Europe/Paris), the last moment the calendar holds; end it by 9999-12-30, or write an earlier day."},
			{"add_event", `{"title":"x","start":"9999-12-31"}`, "“start” 9999-12-31 is the calendar's last day: its end, the midnight after it, falls after 9999-12-31T23:59:59 (in UTC or in Europe/Paris), the last moment the calendar holds; write an earlier day."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","end":"2026-10-07"}`, "“end” must be a day and a time like “start”"},
			{"add_event", `{"title":"x","start":"2026-10-06","end":"2026-10-05"}`, "“end” 2026-10-05 is before “start” 2026-10-06"},
			{"add_event", `{"title":"x","start":"2026-10-06","end":"2028-10-05"}`, "An all-day event may last at most 366 days"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","end":"2026-11-10T10:00"}`, "An event may last at most 31 days; “end” 2026-11-10T10:00 is too far after “start” 2026-10-06T10:00: write an “end” up to 2026-11-06T10:00."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","duration":0}`, "“duration” must be a number of minutes from 1"},
			{"add_event", `{"title":"x","start":"2026-10-06","duration":60}`, "“duration” is for timed events"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","duration":60,"end":"2026-10-06T12:00"}`, "Give “end” or “duration”, not both."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","time_zone":"Mars/Base"}`, "“time_zone”"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00[America/New_York]","time_zone":"Europe/Paris"}`, "“time_zone” is Europe/Paris but “start” is written in America/New_York"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","location":5}`, "“location” must be one line of text"},
			{"add_event", `{"title":"` + long(item.MaxTitle+1) + `","start":"2026-10-06T10:00"}`, "“title” may be at most 200 characters; this one has 201. Write a shorter title"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","location":"` + long(item.MaxLocation+1) + `"}`, "“location” may be at most 200 characters; this one has 201."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","notes":"` + long(item.MaxNotes+1) + `"}`, "“notes” may be at most 10000 characters; this one has 10001."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","notes":[]}`, "“notes”"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rrule":"FREQ=SOMETIMES"}`, "“rrule”"},
			{"add_event", `{"title":"x","start":"2026-10-06","rrule":"FREQ=HOURLY"}`, "“rrule” repeats"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","exdates":["2026-10-07T10:00"]}`, "“exdates” leaves out occurrences of a repeating event"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rrule":"FREQ=DAILY","exdates":["x"]}`, "“exdates”"},
			{"add_event", `{"title":"x","start":"2026-10-06","rrule":"FREQ=DAILY","exdates":["2026-10-07T10:00"]}`, "“exdates” has the time 2026-10-07T10:00, but this event is all-day"},
			{"add_event", `{"title":"x","start":"2026-10-06","rdates":["2026-10-07T10:00"]}`, "“rdates” has the time"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rdates":[` + strings.Join(manyDays, ",") + `]}`, "“rdates” may hold at most 1000 moments, and has 1001; split the event"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rrule":"FREQ=DAILY","exdates":[` + strings.Join(tooManyDays, ",") + `]}`, "“exdates” may hold at most 10000 moments, and has 10001; split the event"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rrule":"FREQ=WEEKLY","rdates":["whenever"]}`, "“rdates” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “whenever”."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rdates":["2026-10-32T10:00"]}`, "“rdates” must be a day that exists on the calendar, not “2026-10-32T10:00”: October 2026 has 31 days."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","rdates":"2026-10-08T10:00,2026-10-09T10:00"}`, "“rdates” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “2026-10-08T10:00,2026-10-09T10:00”."},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","remind_before":[-5]}`, "“remind_before”"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","remind_at":["soon"]}`, "“remind_at”"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","key":5}`, "“key” must be one line of text"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","allow_duplicate":"maybe"}`, "“allow_duplicate”"},
			{"add_event", `{"title":"x","start":"2026-10-06T10:00","colour":"red"}`, "colour"},

			{"list_events", `{"from":"x"}`, "“from”"},
			{"list_events", `{"sort":"start"}`, "“sort” is not one of this tool's arguments"},
			{"list_events", `{"to":"the week after"}`, "“to” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “the week after”."},
			{"list_events", `{"from":"2026-10-05","to":"2026-10-12T25:00"}`, "“to” must have a time of day from 00:00 to 23:59, not “2026-10-12T25:00”."},
			{"list_events", `{"from":"2026-10-06","to":"2026-10-05T10:00"}`, "“to” must be after “from”"},
			{"list_events", `{"query":5}`, "“query” must be one line of text"},
			{"list_events", `{"limit":0}`, "“limit” must be a whole number from 1 to 40"},
			{"list_events", `{"limit":41}`, "“limit” must be a whole number from 1 to 40"},
			{"list_events", `{"cursor":"zz"}`, "“cursor” must be the next_cursor of this same listing"},
			{"list_events", `{"cursor":"o999"}`, "not “o999” (a cursor holds the window and search it was given for, and the person's zone); leave it out for the first page"},

			{"get_event", `{}`, "“id” is required and was not given; write it such as {\"id\": \"e7\"}."},
			{"get_event", `{"id":"e1","verbose":true}`, "“verbose” is not one of this tool's arguments"},
			{"get_event", `{"id":"t5"}`, "“id” must be an event id such as e7"},
			{"get_event", `{"id":"e1@2026"}`, "“id” must be an event id such as e7"},
			{"get_event", `{"id":"e1@20261005T073000"}`, "“id” must be an event id such as e7"},

			{"update_event", `{"title":"x"}`, "“id” is required"},
			{"update_event", `{"id":"x1","title":"x"}`, "“id” must be an event id"},
			{"update_event", `{"id":"e1","scope":"some","title":"x"}`, "“scope”"},
			{"update_event", `{"id":"e1","scope":"this","title":"x"}`, "“scope” this needs an occurrence id"},
			{"update_event", `{"id":"e1"}`, "Nothing to change"},
			{"update_event", `{"id":"e1","title":7}`, "“title” must be one line of text"},
			{"update_event", `{"id":"e1","title":"` + long(item.MaxTitle+1) + `"}`, "“title” may be at most 200 characters"},
			{"update_event", `{"id":"e1@20261005T073000Z","location":"` + long(item.MaxLocation+1) + `"}`, "“location” may be at most 200 characters"},
			{"update_event", `{"id":"e1","notes":"` + long(item.MaxNotes+1) + `"}`, "“notes” may be at most 10000 characters"},
			{"update_event", `{"id":"e1","clear":["title"]}`, "“clear” may name location, notes"},
			{"update_event", `{"id":"e1","location":"Here","clear":["location"]}`, "“location” is both given and named in “clear”"},
			{"update_event", `{"id":"e1@20261005T073000Z","rrule":"FREQ=DAILY"}`, "“rrule” belongs to the whole series e1"},
			{"update_event", `{"id":"e1@20261005T073000Z","exdates":["2026-10-12T09:30"]}`, "“exdates” belongs to the whole series e1"},
			{"update_event", `{"id":"e1@20261005T073000Z","start":"2026-10-06"}`, "moves to a day and a time"},
			{"update_event", `{"id":"e2@20261107","start":"2026-11-08T10:00"}`, "moves to a day (such as 2026-11-08), not a time"},
			{"update_event", `{"id":"e1","end":"2026-10-05T09:00"}`, "“end” 2026-10-05T09:00 is not after the start 2026-10-05T09:30"},
			{"update_event", `{"id":"e1","colour":"red"}`, "“colour” is not one of this tool's arguments"},
			{"update_event", `{"id":"e1","end":"2026-12-01T09:00"}`, "An event may last at most 31 days; “end” 2026-12-01T09:00 is too far after the start"},
			{"update_event", `{"id":"e2","end":"2028-01-01"}`, "An all-day event may last at most 366 days"},
			{"update_event", `{"id":"e2","end":"2026-10-01"}`, "for an all-day event “end” is the last day, such as"},
			{"update_event", `{"id":"e1","duration":0}`, "“duration” must be a number of minutes from 1"},
			{"update_event", `{"id":"e2","duration":30}`, "“duration” is for timed events"},
			{"update_event", `{"id":"e1","time_zone":"Nowhere"}`, "“time_zone”"},
			{"update_event", `{"id":"e1","rrule":"FREQ=DAILY;COUNT=0"}`, "“rrule”"},
			{"update_event", `{"id":"e1","remind_before":["soon"]}`, "“remind_before”"},
			{"update_event", `{"id":"e1","rdates":["whenever"]}`, "“rdates” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “whenever”."},
			{"update_event", `{"id":"e2","rdates":["2026-12-10T10:00"]}`, "“rdates” has the time 2026-12-10T10:00, but this item is all-day; write the day alone (2026-12-10)."},
			{"update_event", `{"id":"e1","remind_at":["soon"]}`, "“remind_at” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “soon”."},
			{"update_event", `{"id":"e1@20261005T073000Z","remind_at":["2026-10-05T25:00"]}`, "“remind_at” must have a time of day from 00:00 to 23:59, not “2026-10-05T25:00”."},
			{"update_event", `{"id":"e1","start":"next monday-ish"}`, "“start” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “next monday-ish”."},
			{"update_event", `{"id":"e1","scope":"all","start":"2026-10-12T9"}`, "“start” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “2026-10-12T9”."},

			{"delete_event", `{}`, "“id” is required"},
			{"delete_event", `{"id":"e1","force":true}`, "“force” is not one of this tool's arguments"},
			{"delete_event", `{"id":"e1@x"}`, "“id” must be an event id"},
			{"delete_event", `{"id":"e1","scope":"everything"}`, "“scope”"},
			{"delete_event", `{"id":"e1","scope":"following"}`, "“scope” following needs an occurrence id"},

			{"find_free_time", `{"from":"someday"}`, "“from”"},
			{"find_free_time", `{"minutes":30}`, "“minutes” is not one of this tool's arguments"},
			{"find_free_time", `{"to":"someday"}`, "“to” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “someday”."},
			{"find_free_time", `{"from":"2026-10-05","to":"2026-02-30"}`, "“to” must be a day that exists on the calendar, not “2026-02-30”: February 2026 has 28 days."},
			{"find_free_time", `{"to":"2026-10-05T10:00","from":"2026-10-05T11:00"}`, "“to” must be after “from”"},
			{"find_free_time", `{"duration":3}`, "“duration” must be a number of minutes from 5 to 1440"},
			{"find_free_time", `{"duration":600}`, "“duration” 600 minutes is longer than the working day"},
			{"find_free_time", `{"day_start":"9am"}`, "“day_start” must be a time of day such as 09:00"},
			{"find_free_time", `{"day_end":"24:30"}`, "“day_end” must be a time of day"},
			{"find_free_time", `{"day_start":"18:00","day_end":"09:00"}`, "“day_end” 09:00 must be after “day_start” 18:00"},
			{"find_free_time", `{"weekends":"often"}`, "“weekends”"},
			{"find_free_time", `{"tasks":3}`, "“tasks”"},

			{"current_time", `{"zone":"UTC"}`, "zone"},
			{"set_time_zone", `{}`, "“time_zone” is required"},
			{"set_time_zone", `{"zone":"Asia/Tokyo"}`, "“zone” is not one of this tool's arguments, which are: time_zone."},
			{"set_time_zone", `{"time_zone":"  "}`, "“time_zone”"},
			{"set_time_zone", `{"time_zone":"Mars/Base"}`, "“time_zone”"},
			{"set_time_zone", `{"time_zone":"Europe/Pari"}`, "Europe/Paris"},
		}
		before := e.snapshot()
		var sentences strings.Builder
		ran := 0
		for _, c := range cases {
			t.Run(c.tool+" "+c.raw, func(t *testing.T) {
				e.t = t
				got := e.fail(e.alice, c.tool, c.raw, tools.CodeInvalid, c.want)
				if e.snapshot() != before {
					t.Fatal("a refused call changed the store")
				}
				fmt.Fprintf(&sentences, "%s %s\n  %s\n", c.tool, cutRunes(c.raw, 120), got)
				ran++
			})
		}
		e.t = t
		if ran != len(cases) {
			return // a case failed or -run left some out: the file would be partial
		}
		tooltest.Golden(t, "sentences.golden", sentences.String(), *update)
	})
}

// cutRunes is s cut to at most n bytes on a rune boundary, with "…" when
// cut, so the golden file stays valid UTF-8.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
