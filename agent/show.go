package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/tools"
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
// the tool's name, its most telling arguments as the model wrote them, and
// ✓ with the first id of the answer, or ✗ with the first words of the
// error.
func toolLine(name, rawArgs string, res tools.ExecResult) string {
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
				fmt.Fprintf(&b, " %s %s", k, humanMoment(strings.TrimSpace(s)))
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
		if id := firstID.FindString(res.TextOut()); id != "" {
			b.WriteString(" " + id)
		}
	} else {
		b.WriteString(" ✗ ")
		b.WriteString(firstWords(res.TextOut(), 8))
	}
	return b.String()
}

// firstID finds an id as answers quote them: t12, e7, c31,
// e7@20261005T070000Z, e7@20261005.
var firstID = regexp.MustCompile(`\b[a-z][0-9]+(?:@[0-9]{8}(?:T[0-9]{6}Z)?)?\b`)

var momentShape = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[Tt ]([0-9]{2}:[0-9]{2})(?::[0-9]{2}(?:\.[0-9]+)?)?)?(.*)$`)

// humanMoment writes an ISO day or day-and-time with its weekday, as a
// person reads it: "2026-12-01T15:00" → "Tue 2026-12-01 15:00". An offset,
// Z or a bracketed zone the model wrote stays on the end. Anything else
// is shown as written.
func humanMoment(s string) string {
	p := momentShape.FindStringSubmatch(s)
	if p == nil {
		return clip(oneLine(s), 30)
	}
	d, err := time.Parse("2006-01-02", p[1])
	if err != nil {
		return clip(oneLine(s), 30)
	}
	out := d.Format("Mon") + " " + p[1]
	if p[2] != "" {
		out += " " + p[2]
	}
	return out + clip(oneLine(p[3]), 30)
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
