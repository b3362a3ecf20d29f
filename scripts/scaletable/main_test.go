package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/assistant-dev/assistant/store
cpu: Test CPU @ 2.00GHz
BenchmarkScaleListTasks/sqlite/rows=10k-2   	    1000	    200000 ns/op	    4096 B/op	      40 allocs/op
BenchmarkScaleListTasks/sqlite/rows=1k-2    	    1000	    100000 ns/op	    2048 B/op	      20 allocs/op
BenchmarkScaleListTasks/sqlite/rows=1k-2    	    1000	    110000 ns/op	    2048 B/op	      20 allocs/op
BenchmarkScaleListTasks/sqlite/rows=1k-2    	    1000	    120000 ns/op	    2048 B/op	      20 allocs/op
BenchmarkScaleListTasks/postgres/rows=1M-2  	      10	   3000000 ns/op	    8192 B/op	      80 allocs/op
BenchmarkScaleImport/sqlite/rows=50k-2      	       1	2000000000 ns/op	     45000 events/s	  90.5 MiB-peak-RSS
BenchmarkScaleMCPAddTask/sqlite-2           	     100	   1000000 ns/op	         1.24 x-floor	    870000 floor-p50-ns	      6610 bin-events/s
BenchmarkOther-2                            	       1	         5 ns/op
--- some log line
PASS
ok  	github.com/assistant-dev/assistant/store	1.0s
`

func TestRead(t *testing.T) {
	res, err := Read(strings.NewReader(sample), "sample")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Figures) != 3 {
		t.Fatalf("figures %v, want ListTasks, Import and MCPAddTask", res.Figures)
	}
	if got := res.Figures["MCPAddTask"].Sizes; len(got) != 1 || got[0] != OneSize {
		t.Errorf("MCPAddTask sizes %q, want one column %q", got, OneSize)
	}
	lt := res.Figures["ListTasks"]
	if got := strings.Join(lt.Sizes, ","); got != "1k,10k,1M" {
		t.Errorf("sizes %s, want 1k,10k,1M (by value)", got)
	}
	if got := lt.Samples[[3]string{"sqlite", "sec/op", "1k"}]; len(got) != 3 {
		t.Errorf("1k samples %v, want 3", got)
	}
	if res.CPU != "Test CPU @ 2.00GHz" || res.OS != "linux/amd64" {
		t.Errorf("machine %q %q", res.CPU, res.OS)
	}
	if lt.Rows[len(lt.Rows)-1][0] != "postgres" {
		t.Errorf("rows %v: sqlite's come first", lt.Rows)
	}
}

func TestRender(t *testing.T) {
	res, err := Read(strings.NewReader(sample), "sample")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][2]string{"ListTasks": {"A page of 50 tasks.", "store/x_test.go"}}
	out := Render(res, docs, "2026-12-06")
	for _, want := range []string{
		"Measured on Test CPU @ 2.00GHz, linux/amd64, 2026-12-06.",
		"### ListTasks\n\nA page of 50 tasks. (`BenchmarkScaleListTasks` in `store/x_test.go`)",
		"| engine | measure | 1k | 10k | 1M |",
		"| sqlite | time per op | 110 µs | 200 µs | — |", // the median of 100, 110, 120 µs; too few runs for a spread
		"| postgres | time per op | — | — | 3 ms |",
		"| sqlite | events/s | 45000 |",
		"| sqlite | MiB-peak-RSS | 90.5 |",
		"| sqlite | time per op | 2.00 s |",
		"| sqlite | floor-p50 (time) | 870 µs |", // benchfmt reads -ns as -sec
		"| sqlite | bin-events/s | 6610 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "allocs/op") || strings.Contains(out, "Other") {
		t.Errorf("allocs/op and other benchmarks are left out:\n%s", out)
	}
}

func TestDocs(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport \"testing\"\n\n// BenchmarkScaleFoo lists a page of foos. More words.\nfunc BenchmarkScaleFoo(b *testing.B) {}\n\nfunc BenchmarkBar(b *testing.B) {}\n"
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := Docs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := docs["Foo"]; got != [2]string{"BenchmarkScaleFoo lists a page of foos.", "pkg/x_test.go"} {
		t.Errorf("docs %q", got)
	}
	if _, ok := docs["Bar"]; ok || len(docs) != 1 {
		t.Errorf("docs %v: only scale benchmarks", docs)
	}
}

func TestSplice(t *testing.T) {
	doc := "# Scale\n\nintro\n\n" + Begin + "\nold\n" + End + "\n\nafter\n"
	got, err := Splice(doc, Begin+"\nnew\n"+End+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Scale\n\nintro\n\n" + Begin + "\nnew\n" + End + "\n\nafter\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := Splice("no markers", "x"); err == nil {
		t.Error("a file without markers is refused")
	}
}

func TestCellSpread(t *testing.T) {
	xs := []float64{1e-3, 1.5e-3, 1e-3, 1.1e-3, 0.9e-3, 1.4e-3, 1e-3, 0.95e-3, 1.3e-3, 1.2e-3}
	got := Cell(xs, "sec/op")
	if !strings.HasPrefix(got, "1.05 ms ±") {
		t.Errorf("cell %q, want the median 1.05 ms with its spread", got)
	}
	if got := Cell([]float64{1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3}, "sec/op"); got != "1 ms" {
		t.Errorf("cell %q, want 1 ms with no spread", got)
	}
}
