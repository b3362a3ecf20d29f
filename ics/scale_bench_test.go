package ics

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/ics/icstest"
	"github.com/assistant-dev/assistant/internal/testbin"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// scaleSeed draws the generated calendars of BenchmarkScaleImport.
const scaleSeed = 21

// BenchmarkScaleImport imports a generated calendar (icstest.Calendar: 80%
// one-off events, 20% repeating, half with a VALARM) of 1k, 10k and 50k
// VEVENTs into a fresh database of each engine, in process, one op an
// import: ns/op, B/op and events/s are the whole of Import (reading,
// planning, the one journaled write). Once per run it also imports the
// file with the real binary as a subprocess (ASSISTANT_BINARY, or one
// built here), into another fresh database, and reports that process's
// peak RSS (MiB-peak-RSS, read by GNU time; see binaryImport) and its
// events/s from spawn to exit (bin-events/s). Sizes above 10k are skipped
// under -short.
func BenchmarkScaleImport(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, n := range []int{1000, 10000, 50000} {
				b.Run(fmt.Sprintf("rows=%dk", n/1000), func(b *testing.B) {
					if n > 10000 && testing.Short() {
						b.Skip("above 10k rows under -short")
					}
					benchScaleImport(b, n)
				})
			}
		})
	}
}

func benchScaleImport(b *testing.B, n int) {
	path := scaleFile(b, n)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, p := openStore(b)
		b.StartTimer()
		start := time.Now()
		rep, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{Source: "scale.ics"})
		total += time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if rep.Events.Created != n || rep.Change == "" {
			b.Fatalf("created %d events of %d, change %q", rep.Events.Created, n, rep.Change)
		}
		st.Close()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "events/s")
	rss, wall := binaryImport(b, path, n)
	if rss > 0 {
		b.ReportMetric(float64(rss)/1024, "MiB-peak-RSS")
	}
	b.ReportMetric(float64(n)/wall.Seconds(), "bin-events/s")
}

// scaleFiles holds the generated calendars by size, one file each for the
// whole process.
var scaleFiles struct {
	sync.Mutex
	dir   string
	paths map[int]string
}

// TestMain removes the folder of scaleFile's calendars when the test
// binary is done.
func TestMain(m *testing.M) {
	code := m.Run()
	if scaleFiles.dir != "" {
		os.RemoveAll(scaleFiles.dir)
	}
	os.Exit(code)
}

// scaleFile is the path of the generated calendar of n events, written
// once per process into a folder of the system's temporary folder (up to
// 14 MB a file), which TestMain removes.
func scaleFile(b testing.TB, n int) string {
	scaleFiles.Lock()
	defer scaleFiles.Unlock()
	if p, ok := scaleFiles.paths[n]; ok {
		return p
	}
	if scaleFiles.dir == "" {
		dir, err := os.MkdirTemp("", "assistant-scale-")
		if err != nil {
			b.Fatal(err)
		}
		scaleFiles.dir, scaleFiles.paths = dir, map[int]string{}
	}
	p := filepath.Join(scaleFiles.dir, fmt.Sprintf("scale-%d.ics", n))
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := icstest.Calendar(f, n, scaleSeed); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	scaleFiles.paths[n] = p
	return p
}

// binaryImport runs `assistant import path` with the real binary into a
// fresh, migrated database of b's engine holding the person ann, checks
// that it imported n events as one change, and gives the process's peak
// RSS in KiB (0 when it cannot be read) and its time from spawn to exit.
//
// The peak is what GNU time (/usr/bin/time) reads of the binary, which it
// spawns: the rusage of a process this one spawns directly
// (ProcessState.SysUsage) is no use here, as Linux carries the peak RSS of
// the parent at the spawn (a vfork) into the child's, and this process
// has just imported the same file.
func binaryImport(b testing.TB, path string, n int) (int64, time.Duration) {
	bin := testbin.Path(b)
	loc := storetest.LocationFrom(b, migrated)
	st, err := store.Open(context.Background(), loc, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.AddPerson(context.Background(), "ann", "Europe/Berlin"); err != nil {
		b.Fatal(err)
	}
	st.Close()
	home := b.TempDir()
	argv := []string{bin, "--db", loc, "--person", "ann", "import", path}
	peakFile := filepath.Join(home, "peak")
	timed := false
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		argv, timed = append([]string{"/usr/bin/time", "-f", "%M", "-o", peakFile}, argv...), true
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "USER=ann", "TZ=Europe/Berlin", "PATH=" + os.Getenv("PATH")}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("assistant import: %v\n%s", err, out.String())
	}
	if want := fmt.Sprintf("events %d new", n); !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "This is change c1:") {
		b.Fatalf("assistant import said %q, not %q in change c1", out.String(), want)
	}
	if !timed {
		b.Log("no /usr/bin/time (GNU time) to read the binary's peak RSS with")
		return 0, wall
	}
	text, err := os.ReadFile(peakFile)
	if err != nil {
		b.Fatal(err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
	if err != nil {
		b.Fatalf("GNU time wrote %q, not a peak RSS in KiB", text)
	}
	return kib, wall
}
