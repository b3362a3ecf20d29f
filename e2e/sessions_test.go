package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// The example sessions of the docs run through the binary: every
// ```console block of the docs (docPaths) whose commands are
// `$ assistant call …` lines is typed into a shell as written, in one
// fresh home per block, and each command's output must be the lines shown
// under it (standard output, then standard error; "(exit N)" when the
// code is not 0). The clock is the ASSISTANT_NOW=… the text before the
// block gives, moved on a minute per command, as the sessions say ("added
// 3 minutes ago"); the person, "tester" in Europe/Paris, exists before the
// first command.

// sessionNow finds the clock a docSession's text gives.
var sessionNow = regexp.MustCompile(`ASSISTANT_NOW=([0-9T:+\-Z]+)`)

// docSession is one ```console block of `$ assistant call` commands.
type docSession struct {
	file  string
	line  int // of the opening fence
	now   time.Time
	steps []docStep
}

type docStep struct {
	command string // as typed after "$ "
	output  string // the lines shown under it, without trailing blank lines
}

// docSessions reads the example sessions of one Markdown file.
func docSessions(t *testing.T, path string) []docSession {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out     []docSession
		cur     *docSession
		before  strings.Builder // the text since the last code block
		outLine []string
	)
	endStep := func() {
		if cur == nil || len(cur.steps) == 0 {
			return
		}
		last := &cur.steps[len(cur.steps)-1]
		for len(outLine) > 0 && strings.TrimSpace(outLine[len(outLine)-1]) == "" {
			outLine = outLine[:len(outLine)-1]
		}
		last.output = strings.Join(outLine, "\n")
		outLine = nil
	}
	sc := bufio.NewScanner(f)
	inOther := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && !inOther && trimmed == "```console":
			cur = &docSession{file: path, line: n}
			if m := sessionNow.FindAllStringSubmatch(before.String(), -1); len(m) > 0 {
				at, err := time.Parse(time.RFC3339, m[len(m)-1][1])
				if err != nil {
					t.Fatalf("%s:%d: the docSession's clock %q: %v", path, n, m[len(m)-1][1], err)
				}
				cur.now = at
			}
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			inOther = !inOther
			before.Reset()
		case cur == nil:
			before.WriteString(line + "\n")
		case trimmed == "```":
			endStep()
			if len(cur.steps) > 0 && strings.HasPrefix(cur.steps[0].command, "assistant call ") {
				out = append(out, *cur)
			}
			cur = nil
			before.Reset()
		case strings.HasPrefix(line, "$ "):
			endStep()
			cur.steps = append(cur.steps, docStep{command: strings.TrimPrefix(line, "$ ")})
		case len(cur.steps) > 0:
			outLine = append(outLine, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDocSessions(t *testing.T) { storetest.Engines(t, testDocSessions) }

func testDocSessions(t *testing.T) {
	var all []docSession
	for _, p := range docPaths(t) {
		all = append(all, docSessions(t, p)...)
	}
	// The task and the event sessions at least (README.md may show them
	// again, and they run again there).
	if len(all) < 2 {
		t.Fatalf("found %d example sessions of `assistant call` in docs/, want at least 2", len(all))
	}
	for _, s := range all {
		name := fmt.Sprintf("%s:%d", filepath.ToSlash(strings.TrimPrefix(s.file, ".."+string(filepath.Separator))), s.line)
		t.Run(name, func(t *testing.T) {
			if s.now.IsZero() {
				t.Fatalf("the text before the docSession gives no clock (ASSISTANT_NOW=…)")
			}
			h := newHome(t)
			// The person exists before the session, so the first command
			// is not also the first run (which logs that it made them).
			h.must("person", "add", "tester", "--zone", "Europe/Paris")
			now := s.now
			for _, step := range s.steps {
				if !strings.HasPrefix(step.command, "assistant call ") {
					t.Fatalf("%q is not an `assistant call` command", step.command)
				}
				h.env["ASSISTANT_NOW"] = now.Format(time.RFC3339)
				r := h.runBlock(step.command)
				got := strings.TrimRight(r.stdout+r.stderr, "\n")
				if r.code != 0 {
					got += fmt.Sprintf("\n(exit %d)", r.code)
				}
				if got != step.output {
					t.Errorf("$ %s\nthe docs show:\n%s\nthe binary says:\n%s", step.command, step.output, got)
				}
				now = now.Add(time.Minute)
			}
		})
	}
}

// docCallLines are the lines of the ```sh blocks (sh, bash, shell) of the
// Markdown files at paths that run `assistant call`, each once, with the
// file and line where it first stands.
func docCallLines(t *testing.T, paths []string) (lines []string, where map[string]string) {
	t.Helper()
	where = map[string]string{}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inSh := false
		for n, line := range strings.Split(string(raw), "\n") {
			trimmed := strings.TrimSpace(line)
			switch {
			case !inSh && (trimmed == "```sh" || trimmed == "```bash" || trimmed == "```shell"):
				inSh = true
			case inSh && trimmed == "```":
				inSh = false
			case inSh && strings.Contains(line, "assistant call "):
				if _, seen := where[trimmed]; !seen {
					where[trimmed] = fmt.Sprintf("%s:%d", filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator))), n+1)
					lines = append(lines, trimmed)
				}
			}
		}
	}
	return lines, where
}

// docPaths are the Markdown files the docs are made of: docs/*.md and
// README.md.
func docPaths(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pattern := range []string{filepath.Join("..", "docs", "*.md")} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	return append(paths, filepath.Join("..", "README.md"))
}

// Every `assistant call` line of the docs' shell blocks goes through the
// binary's argument parser and the tool's argument reader as written, each
// in a fresh home with the fixed clock: it exits 0, or 4 when it names an
// item (c31, e4) that a fresh home does not have. 1 (an argument the tool
// refuses) or 2 (a usage mistake) is a wrong example.
func TestDocCallLines(t *testing.T) {
	lines, where := docCallLines(t, docPaths(t))
	if len(lines) < 10 {
		t.Fatalf("found %d `assistant call` lines in the docs' shell blocks, want at least 10", len(lines))
	}
	for _, line := range lines {
		t.Run(where[line], func(t *testing.T) {
			h := newHome(t)
			h.must("person", "add", "tester", "--zone", "Europe/Paris")
			r := h.runBlock(line)
			if r.code != 0 && r.code != 4 {
				t.Errorf("%s\n%s", line, r)
			}
		})
	}
}
