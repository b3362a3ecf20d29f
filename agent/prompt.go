package agent

import (
	_ "embed"
	"strings"
	"text/template"
	"time"

	"github.com/assistant-dev/assistant/tools"
)

// systemText is the system prompt, a text/template filled for every
// request (see promptData).
//
//go:embed system.md
var systemText string

var systemTemplate = template.Must(template.New("system").Option("missingkey=error").Parse(systemText))

// promptData is what system.md can use: the person's name (Named is false
// when it is only a placeholder, see placeholderName), and now in the
// person's zone as a date (2026-10-05), an English weekday (Monday), a
// 24-hour time (14:03), the IANA zone name and its current UTC offset
// (+02:00); Undo says whether the registry has the undo tool;
// Conventions are the rules of every tool (tools.Conventions), with
// today as their example day.
type promptData struct {
	Name, Date, Weekday, Time, Zone, Offset, Conventions string
	Named, Undo                                          bool
}

// placeholderName reports a person's name that is no name to address
// them by: empty, or a word a host falls back on when it knows none (the
// CLI's local person is "me" when $USER is unset). The prompt then speaks
// of "the person you are talking with", so it never reads "the assistant
// of me".
func placeholderName(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "me", "myself", "i", "you", "user", "person", "someone", "nobody", "anonymous":
		return true
	}
	return false
}

// systemPrompt renders the system prompt for now. It is called for every
// request so that a chat resumed tomorrow, or one running past midnight,
// knows the day.
func systemPrompt(p tools.Person, now time.Time, undo bool) string {
	name := strings.TrimSpace(p.Name)
	local := now.In(p.Zone.Location())
	d := promptData{
		Name:    name,
		Named:   !placeholderName(name),
		Date:    local.Format("2006-01-02"),
		Weekday: local.Weekday().String(),
		Time:    local.Format("15:04"),
		Zone:    p.Zone.Name(),
		Offset:  local.Format("-07:00"),
		Undo:    undo,

		Conventions: tools.Conventions(local.Format("2006-01-02")),
	}
	var b strings.Builder
	if err := systemTemplate.Execute(&b, d); err != nil {
		// The template is embedded and its fields fixed: a failure is a bug
		// caught by the tests, not something a run can meet.
		panic("agent: system prompt: " + err.Error())
	}
	return strings.TrimSpace(b.String())
}
