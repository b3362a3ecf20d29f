// Package docs holds the parts the README is assembled from, and the test
// that keeps README.md equal to them: each part stays next to the code and
// tests that check it (the tool reference, the example sessions), and the
// README shows them all in one page.
package docs

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../README.md from docs/readme/*.md")

// parts is the README's order. Every file under readme/ must be listed.
var parts = []string{
	"intro.md",
	"chat.md",
	"mcp.md",
	"remind.md",
	"tasks.md",
	"events.md",
	"recur.md",
	"time-zones.md",
	"ics.md",
	"data.md",
	"cli.md",
	"tools.md",
	"development.md",
}

// assemble joins the parts, each headed at level two: a part whose first
// heading is a level-one heading has all its headings moved down a level.
func assemble(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("<!-- Assembled from docs/readme/*.md by `go test ./docs -update`; edit those files, not this one. -->\n\n")
	for i, name := range parts {
		raw, err := os.ReadFile(filepath.Join("readme", name))
		if err != nil {
			t.Fatalf("README part %s: %v", name, err)
		}
		text := strings.TrimSpace(string(raw))
		if i > 0 {
			b.WriteString("\n\n")
			if strings.HasPrefix(text, "# ") {
				text = demote(text)
			}
		}
		b.WriteString(text)
	}
	b.WriteString("\n")
	return b.String()
}

// demote adds one level to every Markdown heading outside code blocks.
func demote(text string) string {
	var out []string
	inCode := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(line, "#") {
			line = "#" + line
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func TestReadmeIsAssembled(t *testing.T) {
	want := assemble(t)
	if *update {
		if err := os.WriteFile(filepath.Join("..", "README.md"), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("README.md is not the assembly of docs/readme/*.md; run: go test ./docs -update")
	}
}

func TestEveryPartListed(t *testing.T) {
	entries, err := os.ReadDir("readme")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, p := range parts {
		listed[p] = true
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			t.Errorf("docs/readme/%s is not in the README's parts list", e.Name())
		}
	}
}

// TestReadmeStartsWithTheTwoCommands keeps the promise of the README's
// first lines: how to run the chat and how to run the tests.
func TestReadmeStartsWithTheTwoCommands(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	head := strings.Join(lines[:min(20, len(lines))], "\n")
	for _, cmd := range []string{"go run ./cmd/assistant chat", "bash scripts/test.sh"} {
		if !strings.Contains(head, cmd) {
			t.Errorf("the README's first lines do not give %q", cmd)
		}
	}
}

// TestReadmeFirstSteps keeps what a new user needs before the first
// command: that the quick start needs no model server, how to put the
// installed binary on PATH, and to set the zone on a machine in UTC; and,
// for cron, the log level and the session bus that notify-send needs.
func TestReadmeFirstSteps(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	quick := text[strings.Index(text, "## Quick start"):]
	quick = quick[:strings.Index(quick, "<!-- /quickstart -->")]
	for _, want := range []string{"needs no model server", `export PATH="$PATH:$(go env GOPATH)/bin"`, "UTC", "assistant person set-zone"} {
		if !strings.Contains(quick, want) {
			t.Errorf("the quick start does not say %q", want)
		}
	}
	cron := regexp.MustCompile(`(?m)^\* \* \* \* \* .*$`).FindAllString(text, -1)
	if len(cron) == 0 {
		t.Fatal("no cron line in the README")
	}
	for _, line := range cron {
		if !strings.Contains(line, "--log-level warn") {
			t.Errorf("the cron line logs every run: %s", line)
		}
	}
	if !strings.Contains(text, "DBUS_SESSION_BUS_ADDRESS") {
		t.Errorf("the README does not say that notify-send from cron needs DBUS_SESSION_BUS_ADDRESS")
	}
}

// TestReadmeMCPPersonInItsDB: a desktop-client snippet that gives the
// server --person P and --db F is preceded by the command that adds P to F,
// since the server otherwise exits 4 (no such person).
func TestReadmeMCPPersonInItsDB(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	snippet := regexp.MustCompile(`"args": \["mcp", "--person", "([^"]+)", "--db", "([^"]+)"\]`)
	found := snippet.FindAllStringSubmatchIndex(text, -1)
	if len(found) == 0 {
		t.Fatal("no MCP snippet with --person and --db in the README")
	}
	for _, m := range found {
		person, db := text[m[2]:m[3]], text[m[4]:m[5]]
		before := text[max(0, m[0]-600):m[0]]
		if want := "assistant --db " + db + " person add " + person; !strings.Contains(before, want) {
			t.Errorf("the snippet for %s in %s is not preceded by `%s`", person, db, want)
		}
	}
}
