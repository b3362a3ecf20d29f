package ics

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// BenchmarkImportUndo undoes an import of a generated calendar
// (icstest.Calendar, as BenchmarkScaleImport's) of 10k and 50k VEVENTs in
// a fresh database of each engine, one op an undo of the whole import
// (the import itself is not timed): ns/op and B/op are Store.Undo's, and
// MiB-peak-heap the most heap in use the process reached meanwhile (read
// every 5 ms). The 50k size is skipped under -short.
func BenchmarkImportUndo(b *testing.B) { eachUndoSize(b, benchImportUndo) }

// eachUndoSize runs bench on each engine for a calendar of 10k and of 50k
// VEVENTs (n), the latter skipped under -short.
func eachUndoSize(b *testing.B, bench func(b *testing.B, n int)) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, n := range []int{10000, 50000} {
				b.Run(fmt.Sprintf("rows=%dk", n/1000), func(b *testing.B) {
					if n > 10000 && testing.Short() {
						b.Skip("above 10k rows under -short")
					}
					bench(b, n)
				})
			}
		})
	}
}

// BenchmarkImportRedo redoes an undone import (the undo of its undo) of a
// generated calendar (icstest.Calendar, as BenchmarkScaleImport's) of 10k
// and 50k VEVENTs in a fresh database of each engine, one op a redo (the
// import and its undo are not timed): ns/op and B/op are Store.Undo's, and
// MiB-peak-heap the most heap in use meanwhile. The 50k size is skipped
// under -short.
func BenchmarkImportRedo(b *testing.B) { eachUndoSize(b, benchImportRedo) }

func benchImportUndo(b *testing.B, n int) { benchUndoing(b, n, false) }

func benchImportRedo(b *testing.B, n int) { benchUndoing(b, n, true) }

// benchUndoing times the undo of an import of n events, or with redo the
// undo of that undo, and wants every event gone, or back.
func benchUndoing(b *testing.B, n int, redo bool) {
	data, err := os.ReadFile(scaleFile(b, n))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	var peak uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, p := openStore(b)
		rep, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{Source: "scale.ics"})
		if err != nil {
			b.Fatal(err)
		}
		timed, want, what := rep.Change, 0, "undo"
		if redo {
			if timed, err = st.Undo(ctx, p.ID, rep.Change); err != nil {
				b.Fatal(err)
			}
			want, what = n, "redo"
		}
		stop := watchHeap(&peak)
		b.StartTimer()
		_, err = st.Undo(ctx, p.ID, timed)
		b.StopTimer()
		stop()
		if err != nil {
			b.Fatal(err)
		}
		var live int
		if err := st.DB().QueryRow(`SELECT COUNT(*) FROM events WHERE deleted_at IS NULL`).Scan(&live); err != nil || live != want {
			b.Fatalf("%d live events after the %s (%v), want %d", live, what, err, want)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
}

// watchHeap reads the heap in use every 5 ms into *peak (the most seen)
// until the returned stop is called.
func watchHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
