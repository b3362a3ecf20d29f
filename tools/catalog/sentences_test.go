package catalog

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sentenceGoldens are the files where the tool packages keep the sentence
// of every refused call they make (each written by its package's
// TestBadArguments from real calls, with -update).
var sentenceGoldens = []string{
	"../tasks/testdata/sentences.golden",
	"../events/testdata/sentences.golden",
	"../changes/testdata/sentences.golden",
	"../reminders/testdata/sentences.golden",
}

// refusal is one case of a sentences golden: the call and its sentence.
type refusal struct{ tool, call, sentence string }

func readRefusals(t *testing.T) []refusal {
	t.Helper()
	var out []refusal
	for _, path := range sentenceGoldens {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if s, ok := strings.CutPrefix(line, "  "); ok {
				if len(out) == 0 || out[len(out)-1].sentence != "" {
					t.Fatalf("%s: a sentence without its call: %q", filepath.Base(path), line)
				}
				out[len(out)-1].sentence = s
				continue
			}
			tool, _, _ := strings.Cut(line, " ")
			out = append(out, refusal{tool: tool, call: line})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestEveryArgumentHasARefusal holds the sentence goldens to the catalog:
// every tool has a refused call kept there, one with an argument it does
// not take, and every argument of every tool has at least one refusal
// that names it, so no sentence a model can meet goes unreviewed.
func TestEveryArgumentHasARefusal(t *testing.T) {
	refusals := readRefusals(t)
	for _, tool := range New().Tools() {
		var mine []refusal
		for _, r := range refusals {
			if r.tool == tool.Name {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			t.Errorf("%s has no refused call in the sentence goldens (%s)", tool.Name, strings.Join(sentenceGoldens, ", "))
			continue
		}
		unknown := false
		for _, r := range mine {
			unknown = unknown || strings.Contains(r.sentence, "is not one of this tool's arguments")
		}
		if !unknown {
			t.Errorf("%s: no refused call with an argument it does not take", tool.Name)
		}
		for _, p := range tool.Schema.Properties {
			named := false
			for _, r := range mine {
				named = named || strings.Contains(r.sentence, "“"+p.Name+"”")
			}
			if !named {
				t.Errorf("%s: no refusal names its argument %s; add a bad value of it to the package's TestBadArguments", tool.Name, p.Name)
			}
		}
	}
}
