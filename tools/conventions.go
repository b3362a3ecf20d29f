package tools

import "fmt"

// Conventions returns the rules every tool follows, said once for the
// model rather than in each description: how moments and ids are written,
// what an update and its "clear" do, the scopes of an event change,
// paging, repeated adds and refusals, with day (a date, 2026-12-02) in the
// examples, so a front that knows today shows moments of today. The chat
// puts them in its system prompt (agent/system.md) and MCP in the server's
// instructions (mcpserver.Instructions), so the tool definitions a model
// is sent stay within their budget (docs/chat.md, "Small models"). One
// rule a line, each starting with "- ". Undo is left to each front, which
// says it only when it serves the undo tool.
func Conventions(day string) string {
	return fmt.Sprintf(conventions, day)
}

const conventions = `- Moments: a day as %[1]s or a word such as tomorrow, friday; a time as %[1]sT09:00 or tomorrow 9am, in 2 hours. Plain times are in the person's zone (an event's own when changing it), another written %[1]sT09:00[America/New_York]; never convert to UTC. A "to" day counts whole.
- Quote ids (task t12, event e7, occurrence e7@20261005T070000Z, change c31) as answers gave them, never invented; without one, list first.
- An update changes only the arguments given; "clear" names fields to empty.
- Event scope: this (one occurrence: the default for an occurrence id, and the choice unless asked for more), following (it and later ones, split off), all (the series; default for a series id).
- A list with more gives next_cursor: pass it as cursor.
- The same add within 10 minutes returns the first item unless allow_duplicate is true.
- A refusal says what to write: fix the arguments and call again.`
