package events

import "github.com/assistant-dev/assistant/tools"

// The members every answer that names the clock has (nowData).
var nowMembers = []tools.Property{
	tools.Str("now", "The current moment, RFC 3339 with the zone's offset."),
	tools.Str("date", "Today's date in the zone, 2026-10-05."),
	tools.Str("time", "The time of day in the zone, 09:00."),
	tools.Str("weekday", "Today's weekday, in English."),
	tools.Str("time_zone", "The IANA zone."),
	tools.Str("offset", "The zone's UTC offset now, +02:00."),
}

var nowNames = []string{"now", "date", "time", "weekday", "time_zone", "offset"}

// The Output schemas of the event and time tools (MCP outputSchema).
var (
	changeMember = tools.Str("change", "The change id to give undo; empty when nothing changed.")
	eventMember  = tools.Nested[seriesData]("event", "The event as get_event shows it.")

	addOutput = tools.Schema{Properties: []tools.Property{
		eventMember,
		tools.Bool("added", "False when an earlier event was returned instead of a copy."),
		changeMember,
		tools.Strs("warnings", "What the person should know about the event, in words."),
	}, Required: []string{"event", "added"}}.Output()
	listOutput = tools.Schema{Properties: []tools.Property{
		tools.NestedList[occData]("events", "The occurrences of this page, in time order."),
		tools.Int("total", "How many occurrences the window holds, on every page."),
		tools.Str("next_cursor", "The cursor of the next page; empty on the last."),
		tools.Str("time_zone", "The zone the times are shown in."),
		tools.Str("from", "The start of the window."),
		tools.Str("to", "The end of the window."),
	}, Required: []string{"events"}}.Output()
	getOutput = tools.Schema{Properties: []tools.Property{
		eventMember,
		tools.Nested[occData]("occurrence", "For an occurrence id: that occurrence."),
		tools.Str("series", "For an occurrence id: the id of its series."),
		tools.Str("original_start", "For a moved occurrence: where its rule put it."),
	}}.Output()
	updateOutput = tools.Schema{Properties: []tools.Property{
		changeMember,
		tools.Obj("event", "What was changed, as get_event shows it: the event, or the occurrence."),
		tools.Strs("notes", "What the change did besides, in words."),
	}, Required: []string{"change"}}.Output()
	deleteOutput = tools.Schema{Properties: []tools.Property{
		changeMember,
		tools.Str("deleted", "The id deleted."),
		tools.Str("scope", "What was deleted: this, following or all."),
	}, Required: []string{"change", "deleted"}}.Output()
	freeOutput = tools.Schema{Properties: []tools.Property{
		tools.Objs("free", "The free spans, each with start, end (RFC 3339) and minutes."),
		tools.Int("total", "How many free spans there are."),
		tools.Str("time_zone", "The zone the times are shown in."),
		tools.Bool("tasks_counted", "Whether tasks with a due time count as busy."),
	}, Required: []string{"free"}}.Output()
	nowOutput  = tools.Schema{Properties: nowMembers, Required: nowNames}.Output()
	zoneOutput = tools.Schema{Properties: append(append([]tools.Property(nil), nowMembers...),
		changeMember, tools.Str("was", "The zone before the change.")), Required: nowNames}.Output()
)
