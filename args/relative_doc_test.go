package args

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// docSection is the part of docs/time.md that defines relative dates and
// lengths; its tables are checked row by row against the readers.
func docSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "time.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## Relative dates and lengths")
	if i < 0 {
		t.Fatal(`docs/time.md has no section "## Relative dates and lengths"`)
	}
	s = s[i+3:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// docTable is one Markdown table of the section: its header cells, its
// rows, and the line of text before it that says "now is `…`", if any.
type docTable struct {
	header []string
	rows   [][]string
	now    string
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	nowIs    = regexp.MustCompile("now is `([^`]*)`")
)

func docTables(section string) []docTable {
	var tables []docTable
	var cur *docTable
	now := ""
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if m := nowIs.FindStringSubmatch(line); m != nil {
			now = m[1]
		}
		if !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case cur == nil:
			tables = append(tables, docTable{header: cells, now: now})
			cur = &tables[len(tables)-1]
		case strings.HasPrefix(cells[0], "---"):
		default:
			cur.rows = append(cur.rows, cells)
		}
	}
	return tables
}

func column(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}

// TestDocRelativeTable reads every row of the tables in docs/time.md's
// "Relative dates and lengths" and checks each text in its first column
// against the reader, at the row's now and zone, so the page and the
// program cannot drift apart.
func TestDocRelativeTable(t *testing.T) {
	tables := docTables(docSection(t))
	moments, lengths := 0, 0
	for _, tb := range tables {
		if len(tb.header) == 0 || tb.header[0] != "You write" {
			continue
		}
		if c := column(t, tb.header, "Minutes"); c >= 0 {
			for _, row := range tb.rows {
				for _, m := range codeSpan.FindAllStringSubmatch(row[0], -1) {
					lengths++
					checkLengthRow(t, m[1], row[c])
				}
			}
			continue
		}
		readAs := column(t, tb.header, "Read as")
		nowCol := column(t, tb.header, "Now")
		if readAs < 0 {
			t.Fatalf("a table of docs/time.md has no column “Read as”: %q", tb.header)
		}
		for _, row := range tb.rows {
			now := tb.now
			if nowCol >= 0 {
				now = strings.Trim(row[nowCol], "`")
			}
			if now == "" {
				t.Fatalf("row %q has no now: give a Now column or a line saying now is `…` before the table", row)
			}
			for _, m := range codeSpan.FindAllStringSubmatch(row[0], -1) {
				moments++
				checkMomentRow(t, m[1], now, row[readAs])
			}
		}
	}
	// the section must keep its tables: a renamed header must not turn
	// the test into one that checks nothing
	if moments < 40 || lengths < 20 {
		t.Fatalf("docs/time.md's tables gave %d moments and %d lengths to check; the tables were not found whole", moments, lengths)
	}
}

// checkMomentRow reads text as the argument "x" at now (a moment with its
// zone in brackets) and compares the echo with want, or wants a refusal.
func checkMomentRow(t *testing.T, text, now, want string) {
	t.Helper()
	w, err := ParseMoment("now", now, tz.UTC)
	if err != nil || !w.Bracketed {
		t.Fatalf("the now %q of a row is not a moment with its zone in brackets: %v", now, err)
	}
	raw, _ := json.Marshal(map[string]string{"x": text})
	a, err := New(raw, []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.SetHome(w.Zone)
	a.SetNow(w.At)
	_, ok := a.Moment("x", w.Zone)
	if want == "refused" {
		if ok || a.Err() == nil {
			t.Errorf("at %s, %q was read as %v; the table says it is refused", now, text, a.Readings())
		}
		return
	}
	if !ok {
		t.Errorf("at %s, %q was refused (%v); the table says %s", now, text, a.Err(), want)
		return
	}
	rs := a.Readings()
	if len(rs) != 1 || rs[0].As != want {
		t.Errorf("at %s, %q was read as %+v; the table says %s", now, text, rs, want)
	}
}

// checkLengthRow reads text as a length and compares it with want
// minutes, or wants a refusal.
func checkLengthRow(t *testing.T, text, want string) {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"x": text})
	a, err := New(raw, []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := a.Minutes("x", -1, 0, 1<<30)
	if want == "refused" {
		if a.Err() == nil {
			t.Errorf("%q was read as %d minutes; the table says it is refused", text, n)
		}
		return
	}
	wantN, err := strconv.Atoi(want)
	if err != nil {
		t.Fatalf("the row of %q says %q, not a number of minutes", text, want)
	}
	if a.Err() != nil || n != wantN {
		t.Errorf("%q was read as %d minutes (%v); the table says %d", text, n, a.Err(), wantN)
	}
}
