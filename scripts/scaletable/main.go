// Command scaletable turns the output of the scale benchmarks (`go test
// -bench '^BenchmarkScale'`, any -count) into the tables of docs/scale.md.
//
// A scale benchmark is a function BenchmarkScale<Figure> in a _test.go file
// whose sub-benchmarks are named <engine>/rows=<N> (engine sqlite or
// postgres; N like 1k, 50k or 1M). Each figure becomes one table: a row per
// engine and measured unit, a column per size, each cell the median of the
// runs (golang.org/x/perf/benchmath) with its spread when it passes 5 %.
// The first sentence of the function's doc comment heads the table.
//
//	go run ./scripts/scaletable -o docs/scale.md -date 2026-12-06 bench.txt
//
// With -o the file keeps everything outside its generated part, which lies
// between the lines "<!-- scale:begin -->" and "<!-- scale:end -->".
// bash scripts/scale.sh runs the benchmarks and this command.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Markers of the generated part of the output file.
const (
	Begin = "<!-- scale:begin -->"
	End   = "<!-- scale:end -->"
)

// OneSize heads the column of a figure whose sub-benchmarks name no
// rows=N: its cost does not depend on what the database holds.
const OneSize = "any size"

// Prefix is how the name of every scale benchmark starts.
const Prefix = "BenchmarkScale"

func main() {
	out := flag.String("o", "", "the Markdown file whose generated part to rewrite (stdout when empty)")
	date := flag.String("date", "", "the day the benchmarks ran, YYYY-MM-DD, named in the text")
	root := flag.String("root", ".", "the repository's root, whose _test.go files give each figure's sentence")
	flag.Parse()
	if err := run(*out, *date, *root, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "scaletable:", err)
		os.Exit(1)
	}
}

func run(out, date, root string, files []string) error {
	var r io.Reader = os.Stdin
	name := "stdin"
	if len(files) > 0 {
		var all bytes.Buffer
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			all.Write(b)
			all.WriteByte('\n')
		}
		r, name = &all, strings.Join(files, ", ")
	}
	res, err := Read(r, name)
	if err != nil {
		return err
	}
	if len(res.Figures) == 0 {
		return errors.New("no BenchmarkScale results in the input; run them with go test -run '^$' -bench '^BenchmarkScale'")
	}
	docs, err := Docs(root)
	if err != nil {
		return err
	}
	table := Render(res, docs, date)
	if out == "" {
		_, err := io.WriteString(os.Stdout, table)
		return err
	}
	old, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	s, err := Splice(string(old), table)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	return os.WriteFile(out, []byte(s), 0o644)
}

// Results is what Read gathers: the samples of each figure, and the
// machine they ran on.
type Results struct {
	Figures map[string]*Figure // by the name after Prefix
	CPU     string             // the "cpu:" line of go test, if any
	OS      string             // goos/goarch
}

// Figure is one scale benchmark's samples: by engine, unit and size.
type Figure struct {
	Name    string
	Package string
	Sizes   []string                // as written (1k, 50k, 1M), smallest first
	Samples map[[3]string][]float64 // engine, unit, size
	Rows    [][2]string             // engine and unit, in first-seen order
	seen    map[[2]string]bool
}

// Read parses benchmark output in Go's format; lines that are not results
// (test logs, PASS, ok) are skipped, as benchfmt does.
func Read(r io.Reader, name string) (*Results, error) {
	res := &Results{Figures: map[string]*Figure{}}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		rec, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		base, parts := rec.Name.Parts()
		// benchfmt drops "Benchmark" from the names it reads.
		fig, ok := strings.CutPrefix("Benchmark"+string(base), Prefix)
		if !ok || fig == "" {
			continue
		}
		engine, size := "", ""
		for _, p := range parts {
			p := string(p)
			switch {
			case strings.HasPrefix(p, "/rows="):
				size = strings.TrimPrefix(p, "/rows=")
			case strings.HasPrefix(p, "/") && engine == "":
				engine = strings.TrimPrefix(p, "/")
			}
		}
		if size == "" {
			// A figure that does not grow with the data (one call on
			// a fresh database) has one column.
			size = OneSize
		}
		if engine == "" {
			engine = "sqlite"
		}
		f := res.Figures[fig]
		if f == nil {
			f = &Figure{Name: fig, Samples: map[[3]string][]float64{}, seen: map[[2]string]bool{}}
			res.Figures[fig] = f
		}
		if f.Package == "" {
			f.Package = rec.GetConfig("pkg")
		}
		if res.CPU == "" {
			res.CPU = strings.TrimSpace(rec.GetConfig("cpu"))
		}
		if res.OS == "" && rec.GetConfig("goos") != "" {
			res.OS = rec.GetConfig("goos") + "/" + rec.GetConfig("goarch")
		}
		if !slices.Contains(f.Sizes, size) {
			f.Sizes = append(f.Sizes, size)
		}
		for _, v := range rec.Values {
			if v.Unit == "allocs/op" {
				continue
			}
			row := [2]string{engine, v.Unit}
			if !f.seen[row] {
				f.seen[row] = true
				f.Rows = append(f.Rows, row)
			}
			k := [3]string{engine, v.Unit, size}
			f.Samples[k] = append(f.Samples[k], v.Value)
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	for _, f := range res.Figures {
		slices.SortStableFunc(f.Sizes, func(a, b string) int { return compareSize(a, b) })
		slices.SortStableFunc(f.Rows, func(a, b [2]string) int {
			return strings.Compare(engineOrder(a[0]), engineOrder(b[0]))
		})
	}
	return res, nil
}

func engineOrder(e string) string {
	if e == "sqlite" {
		return "0"
	}
	return "1" + e
}

// SizeValue reads a size as the benchmarks write it: 1000, 1k, 50k, 1M.
func SizeValue(s string) (float64, bool) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1e3, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	}
	v, err := strconv.ParseFloat(s, 64)
	return v * mult, err == nil
}

func compareSize(a, b string) int {
	va, oka := SizeValue(a)
	vb, okb := SizeValue(b)
	if !oka || !okb {
		return strings.Compare(a, b)
	}
	switch {
	case va < vb:
		return -1
	case va > vb:
		return 1
	}
	return 0
}

// Docs reads the first sentence of the doc comment of every scale
// benchmark in the _test.go files under root, by figure name, with the
// file's path from root.
func Docs(root string) (map[string][2]string, error) {
	out := map[string][2]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, Prefix) {
				continue
			}
			var p doc.Package
			out[strings.TrimPrefix(fn.Name.Name, Prefix)] = [2]string{p.Synopsis(fn.Doc.Text()), filepath.ToSlash(rel)}
		}
		return nil
	})
	return out, err
}

// Render is the generated part: a table per figure, in name order.
func Render(res *Results, docs map[string][2]string, date string) string {
	var b strings.Builder
	b.WriteString(Begin + "\n")
	var on []string
	if res.CPU != "" {
		on = append(on, res.CPU)
	}
	if res.OS != "" {
		on = append(on, res.OS)
	}
	if date != "" {
		on = append(on, date)
	}
	if len(on) > 0 {
		fmt.Fprintf(&b, "\nMeasured on %s.\n", strings.Join(on, ", "))
	}
	names := make([]string, 0, len(res.Figures))
	for n := range res.Figures {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		f := res.Figures[n]
		fmt.Fprintf(&b, "\n### %s\n\n", n)
		if d, ok := docs[n]; ok {
			if d[0] != "" {
				fmt.Fprintf(&b, "%s ", d[0])
			}
			fmt.Fprintf(&b, "(`%s` in `%s`)\n\n", Prefix+n, d[1])
		}
		b.WriteString("| engine | measure |")
		for _, s := range f.Sizes {
			fmt.Fprintf(&b, " %s |", s)
		}
		b.WriteString("\n|---|---|")
		for range f.Sizes {
			b.WriteString("--:|")
		}
		b.WriteString("\n")
		for _, row := range f.Rows {
			fmt.Fprintf(&b, "| %s | %s |", row[0], unitName(row[1]))
			for _, s := range f.Sizes {
				fmt.Fprintf(&b, " %s |", Cell(f.Samples[[3]string{row[0], row[1], s}], row[1]))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n" + End + "\n")
	return b.String()
}

// unitName is how a row names its unit. benchfmt tidies a custom
// "…-ns" metric to "…-sec", shown as a time.
func unitName(u string) string {
	switch u {
	case "sec/op":
		return "time per op"
	case "B/op":
		return "allocated per op"
	case "B/s":
		return "bytes read per second"
	}
	if n, ok := strings.CutSuffix(u, "-sec"); ok {
		return n + " (time)"
	}
	if n, ok := strings.CutPrefix(u, "sec-"); ok {
		return n + " (time)"
	}
	return u
}

// isTime reports a unit whose values are seconds.
func isTime(u string) bool {
	return u == "sec/op" || strings.HasSuffix(u, "-sec") || strings.HasPrefix(u, "sec-")
}

// Cell is the median of a sample in the unit's own form, with ± the
// larger distance to the sample's 95 % confidence bounds when that passes
// 5 % of the median; "—" when there is no sample.
func Cell(xs []float64, unit string) string {
	if len(xs) == 0 {
		return "—"
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(xs, &benchmath.DefaultThresholds), 0.95)
	c := format(s.Center, unit)
	if s.Center != 0 && !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) {
		spread := math.Max(s.Center-s.Lo, s.Hi-s.Center) / math.Abs(s.Center)
		if spread > 0.05 {
			c += fmt.Sprintf(" ±%.0f%%", spread*100)
		}
	}
	return c
}

func format(v float64, unit string) string {
	switch {
	case isTime(unit):
		switch {
		case v >= 1:
			return fmt.Sprintf("%.2f s", v)
		case v >= 1e-3:
			return fmt.Sprintf("%.3g ms", v*1e3)
		case v >= 1e-6:
			return fmt.Sprintf("%.3g µs", v*1e6)
		}
		return fmt.Sprintf("%.3g ns", v*1e9)
	case unit == "B/s":
		return fmt.Sprintf("%.3g MB/s", v/1e6)
	case unit == "B/op":
		switch {
		case v >= 1<<20:
			return fmt.Sprintf("%.3g MiB", v/(1<<20))
		case v >= 1<<10:
			return fmt.Sprintf("%.3g KiB", v/(1<<10))
		}
		return fmt.Sprintf("%.0f B", v)
	}
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Splice puts table in place of the generated part of doc.
func Splice(doc, table string) (string, error) {
	i := strings.Index(doc, Begin)
	j := strings.Index(doc, End)
	if i < 0 || j < i {
		return "", fmt.Errorf("no generated part: add the lines %q and %q where the tables go", Begin, End)
	}
	return doc[:i] + table + strings.TrimPrefix(doc[j+len(End):], "\n"), nil
}
