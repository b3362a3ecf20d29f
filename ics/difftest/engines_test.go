package difftest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// engine is one outside reader of the exports: a command given a manifest
// file, printing one JSON line per case.
type engine struct {
	name string
	cmd  func(manifest string) *exec.Cmd
}

// engines finds python3 with icalendar and recurring_ical_events, and
// node with ical.js (in $ASSISTANT_ICALJS_DIR, by default the .node
// folder .ci/run installs it into). Missing ones are named in missing.
func engines(t *testing.T) (es []engine, missing []string) {
	dir, _ := os.Getwd()
	py := ""
	for _, p := range []string{os.Getenv("ASSISTANT_PYTHON"), "/usr/bin/python3", "python3"} {
		if p == "" {
			continue
		}
		if exec.Command(p, "-c", "import icalendar, recurring_ical_events").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		missing = append(missing, "python3 with icalendar and recurring_ical_events (apt-get install -y python3-icalendar python3-recurring-ical-events)")
	} else {
		es = append(es, engine{"recurring-ical-events", func(m string) *exec.Cmd {
			return exec.Command(py, filepath.Join(dir, "read.py"), m)
		}})
	}
	jsDir := os.Getenv("ASSISTANT_ICALJS_DIR")
	if jsDir == "" {
		jsDir = filepath.Join(dir, ".node")
	}
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(jsDir, "node_modules", "ical.js")); err != nil || serr != nil {
		missing = append(missing, "node with ical.js (npm install --prefix ics/difftest/.node ical.js@2)")
	} else {
		es = append(es, engine{"ical.js", func(m string) *exec.Cmd {
			c := exec.Command(node, filepath.Join(dir, "read.mjs"), m)
			c.Env = append(os.Environ(), "ICALJS_DIR="+jsDir)
			return c
		}})
	}
	return es, missing
}

// readAll runs e over every export at once and returns each case's
// occurrences as keys (or an error line).
func (e engine) readAll(t *testing.T, dir string, names []string, exports [][]byte) map[string][]string {
	var m struct {
		From, To string
		Cases    []map[string]string `json:"cases"`
	}
	m.From, m.To = utc(winFrom), utc(winTo)
	for i, n := range names {
		f := filepath.Join(dir, n+".ics")
		if err := os.WriteFile(f, exports[i], 0o644); err != nil {
			t.Fatal(err)
		}
		m.Cases = append(m.Cases, map[string]string{"name": n, "file": f})
	}
	mf := filepath.Join(dir, "manifest-"+strings.ReplaceAll(e.name, ".", "")+".json")
	b, _ := json.Marshal(map[string]any{"from": m.From, "to": m.To, "cases": m.Cases})
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := e.cmd(mf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", e.name, err, stderr.String())
	}
	got := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct {
			Case  string
			Occ   [][3]string
			Error string
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s printed %q: %v", e.name, sc.Text(), err)
		}
		if l.Error != "" {
			got[l.Case] = []string{"error: " + l.Error}
			continue
		}
		ks := []string{}
		for _, o := range l.Occ {
			if k := o[0] + "|" + o[1] + "|" + o[2]; in(k) {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		got[l.Case] = ks
	}
	return got
}

// tally counts failures by what failed.
type tally map[string]int

func (t tally) String() string {
	var ks []string
	for k := range t {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "%s %d; ", k, t[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// fixedCases are the shrunk failures kept under testdata/cases.
func fixedCases(t *testing.T) ([]Case, []string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.json"))
	slices.Sort(files)
	var cs []Case
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c Case
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cs = append(cs, c)
	}
	return cs, files
}
