package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Arguments shown on a tool line, in this order: the one quoted text that
// says what the call is about, then ids, then times, then the rest.
var (
	showQuoted = []string{"title", "query", "text", "name", "tag"}
	showBare   = []string{"id", "change"}
	showTimes  = []string{"due", "start", "end", "from", "to", "at"}
	showOther  = []string{"scope", "status", "duration", "time_zone", "limit"}
)

// toolLine is the one line a tool call shows on Out:
//
//	→ add_task "Dentist" due Tue 2026-12-01 15:00 ✓ t12
//
// the tool's name, its most telling arguments, and ✓ with how many items
// a list answer holds (answerCount) or the id the answer is about (see
// answerID), or ✗ with the first words of the error. Times are shown as
// the person reads them: a time the model wrote as an instant (…Z, an
// offset) is shown in the person's zone.
func toolLine(name, rawArgs string, res tools.ExecResult, zone tz.Zone) string {
	var b strings.Builder
	b.WriteString("→ ")
	b.WriteString(name)
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(rawArgs))
	dec.UseNumber()
	if dec.Decode(&m) == nil {
		for _, k := range showQuoted {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				fmt.Fprintf(&b, " %q", clip(oneLine(s), 40))
				break
			}
		}
		for _, k := range showBare {
			if v, ok := m[k]; ok && v != nil {
				fmt.Fprintf(&b, " %s", clip(oneLine(fmt.Sprint(v)), 40))
			}
		}
		for _, k := range showTimes {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				fmt.Fprintf(&b, " %s %s", k, humanMoment(strings.TrimSpace(s), zone))
				if as := readAs(res, k); as != "" {
					b.WriteString(" = " + as) // words, and what they were read as
				}
			}
		}
		for _, k := range showOther {
			if v, ok := m[k]; ok && v != nil && fmt.Sprint(v) != "" {
				fmt.Fprintf(&b, " %s %s", k, clip(oneLine(fmt.Sprint(v)), 30))
			}
		}
	} else if strings.TrimSpace(rawArgs) != "" {
		fmt.Fprintf(&b, " %s", clip(oneLine(rawArgs), 40))
	}
	if res.OK() {
		b.WriteString(" ✓")
		if n := answerCount(res); n != "" {
			b.WriteString(" " + n)
		} else if id := answerID(res); id != "" {
			b.WriteString(" " + id)
		}
	} else {
		b.WriteString(" ✗ ")
		b.WriteString(firstWords(res.TextOut(), 8))
	}
	return b.String()
}

// readAs is what the call read the words of the argument name as ("Wed
// 2026-12-02 09:00 (+01:00)"), or "" when it read no words there.
func readAs(res tools.ExecResult, name string) string {
	for _, r := range res.Readings {
		if r.Name == name {
			return r.As
		}
	}
	return ""
}

// answerID is what a tool line shows after ✓: the item the call was
// about. An undo's answer names the change it undid and the new change
// that records the undo; the person asked about the first, so it is
// shown as "undid c7", read from the result's data (its "undid" field)
// rather than guessed from the words. Other answers show the first id
// their text quotes ("Added t12 …").
func answerID(res tools.ExecResult) string {
	if len(res.Data) > 0 {
		var d struct {
			Undid string `json:"undid"`
		}
		if json.Unmarshal(res.Data, &d) == nil && firstID.MatchString(d.Undid) {
			return "undid " + firstID.FindString(d.Undid)
		}
	}
	return firstID.FindString(res.TextOut())
}

// listed are the lists a list answer's data holds, and the noun a tool
// line counts them with (one, many).
var listed = []struct{ key, one, many string }{
	{"tasks", "task", "tasks"},
	{"events", "event", "events"},
	{"changes", "change", "changes"},
	{"free", "free slot", "free slots"},
}

// answerCount is what a tool line shows after ✓ for a list answer: how
// many items it found ("12 tasks"), read from the result's data (its
// "total" field, or the length of its list when there is no total); ""
// for an answer whose data holds no list. The first id of a list says
// nothing of the answer.
func answerCount(res tools.ExecResult) string {
	if len(res.Data) == 0 {
		return ""
	}
	var d map[string]json.RawMessage
	if json.Unmarshal(res.Data, &d) != nil {
		return ""
	}
	for _, l := range listed {
		var items []json.RawMessage
		if raw, ok := d[l.key]; !ok || json.Unmarshal(raw, &items) != nil || items == nil && string(raw) != "[]" {
			continue
		}
		n := len(items)
		var total int
		if raw, ok := d["total"]; ok && json.Unmarshal(raw, &total) == nil && total >= n {
			n = total
		}
		if n == 1 {
			return "1 " + l.one
		}
		return fmt.Sprintf("%d %s", n, l.many)
	}
	return ""
}

// firstID finds an id as answers quote them: t12, e7, c31,
// e7@20261005T070000Z, e7@20261005.
var firstID = regexp.MustCompile(`\b[a-z][0-9]+(?:@[0-9]{8}(?:T[0-9]{6}Z)?)?\b`)

// humanMoment writes a moment with its weekday, as the person reads it:
// "2026-12-01T15:00" → "Tue 2026-12-01 15:00". It is read with the
// moment grammar the tools use ([args.ParseMoment]), in the person's zone,
// so "2026-07-14T07:00Z" shows as "Tue 2026-07-14 09:00" for a person in
// Paris. Anything the grammar refuses is shown as written.
func humanMoment(s string, zone tz.Zone) string {
	w, err := args.ParseMoment("m", s, zone)
	if err != nil {
		return clip(oneLine(s), 30)
	}
	m := w.In(zone)
	if !m.HasTime {
		return tz.FormatDateModel(m.Date)
	}
	return fmt.Sprintf("%s %02d:%02d", tz.FormatDateModel(m.Date), m.Hour, m.Minute)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func firstWords(s string, n int) string {
	w := strings.Fields(s)
	if len(w) <= n {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:n], " ") + " …"
}

// lineWriter writes text to the person and keeps track of whether the
// last thing written ended a line, so a tool line never starts in the
// middle of streamed text. A nil writer discards.
type lineWriter struct {
	w       io.Writer
	midLine bool
}

func (l *lineWriter) text(s string) {
	if l.w == nil || s == "" {
		return
	}
	_, _ = io.WriteString(l.w, s)
	l.midLine = !strings.HasSuffix(s, "\n")
}

func (l *lineWriter) line(s string) {
	if l.w == nil {
		return
	}
	var b bytes.Buffer
	if l.midLine {
		b.WriteByte('\n')
	}
	b.WriteString(s)
	b.WriteByte('\n')
	_, _ = l.w.Write(b.Bytes())
	l.midLine = false
}

// end finishes the answer's last line.
func (l *lineWriter) end() {
	if l.w != nil && l.midLine {
		_, _ = io.WriteString(l.w, "\n")
		l.midLine = false
	}
}
