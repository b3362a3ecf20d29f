package ics

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// roundTripRows are the columns an import writes, without ids (an override
// is named by its series' UID), so two stores can be compared row by row.
var roundTripRows = []string{
	`SELECT uid, title, location, notes, all_day, start_local, end_local, tzid, start_at, end_at, COALESCE(rrule,''), exdates, rdates, first_at, COALESCE(last_at,0), remind_before, remind_at FROM events WHERE owner_id = ? AND deleted_at IS NULL ORDER BY uid`,
	`SELECT e.uid, o.recurrence_id, o.cancelled, COALESCE(o.title,'~'), COALESCE(o.location,'~'), COALESCE(o.notes,'~'), COALESCE(o.start_local,'~'), COALESCE(o.end_local,'~'), COALESCE(o.tzid,'~'), COALESCE(o.start_at,0), COALESCE(o.end_at,0), COALESCE(o.remind_before,'~'), COALESCE(o.remind_at,'~') FROM event_overrides o JOIN events e ON e.id = o.event_id WHERE o.owner_id = ? AND o.deleted_at IS NULL ORDER BY 1, 2`,
	`SELECT uid, title, notes, COALESCE(due_date,''), COALESCE(due_time,''), COALESCE(due_zone,''), COALESCE(due_at,0), priority, tags, COALESCE(rrule,''), COALESCE(repeat_from,''), remind_before, remind_at, status, COALESCE(completed_at,0) FROM tasks WHERE owner_id = ? AND deleted_at IS NULL ORDER BY uid`,
}

// TestDatabaseRoundTrip is the round-trip property through the store:
// a generated calendar is imported for a person with nothing stored,
// exported, and the export imported for another such person. Both must
// hold the same rows (ids aside), both exports must expand to the
// generated calendar's occurrences, and the second export must be the first
// one again. Each seed has two new people of the one store.
func TestDatabaseRoundTrip(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		person := tz.MustZone("Europe/Berlin")
		ctx := context.Background()
		seeds := int64(40)
		if testing.Short() {
			seeds = 8
		}
		stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		from, to := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2033, 1, 1, 0, 0, 0, 0, time.UTC)
		var repeating, overrides, tasks int
		st1, _ := openStore(t)
		st1.Now = func() time.Time { return stamp }
		st2 := st1
		for seed := int64(1); seed <= seeds; seed++ {
			gen := genCalendar(rand.New(rand.NewSource(seed)), person)
			var src bytes.Buffer
			if err := Encode(&src, gen, stamp); err != nil {
				t.Fatalf("seed %d: encode: %v", seed, err)
			}
			p1 := addPerson(t, st1, fmt.Sprintf("a%d", seed))
			p2 := addPerson(t, st2, fmt.Sprintf("b%d", seed))
			rep1, err := Import(ctx, st1, p1, bytes.NewReader(src.Bytes()), ImportOptions{})
			if err != nil {
				t.Fatalf("seed %d: first import: %v", seed, err)
			}
			for _, s := range rep1.Skipped {
				// Only what the store has no place for may be left out of
				// the model's normal form.
				if s.Component != "VTODO" || s.Line == 0 {
					t.Fatalf("seed %d: the first import skipped %+v", seed, s)
				}
			}
			var out1 bytes.Buffer
			if err := Export(ctx, st1, p1, &out1, time.Time{}, time.Time{}); err != nil {
				t.Fatalf("seed %d: export: %v", seed, err)
			}
			checkPhysical(t, seed, out1.Bytes())
			rep2, err := Import(ctx, st2, p2, bytes.NewReader(out1.Bytes()), ImportOptions{})
			if err != nil {
				t.Fatalf("seed %d: second import: %v", seed, err)
			}
			if len(rep2.Skipped) > 0 || len(rep2.Repaired) > 0 {
				t.Fatalf("seed %d: importing our export skipped %+v repaired %+v", seed, rep2.Skipped, rep2.Repaired)
			}
			if rep2.Events != rep1.Events || rep2.Overrides != rep1.Overrides || rep2.Tasks != rep1.Tasks {
				t.Errorf("seed %d: the imports made %+v %+v %+v, then %+v %+v %+v", seed,
					rep1.Events, rep1.Overrides, rep1.Tasks, rep2.Events, rep2.Overrides, rep2.Tasks)
			}
			for _, q := range roundTripRows {
				if a, b := dump(t, st1, p1.ID, q), dump(t, st2, p2.ID, q); a != b {
					t.Fatalf("seed %d: rows differ after export and import:\n%s---\n%s", seed, a, b)
				}
			}
			var out2 bytes.Buffer
			if err := Export(ctx, st2, p2, &out2, time.Time{}, time.Time{}); err != nil {
				t.Fatalf("seed %d: second export: %v", seed, err)
			}
			back1 := DecodeBytes(out1.Bytes(), DecodeOptions{Zone: person})
			back2 := DecodeBytes(out2.Bytes(), DecodeOptions{Zone: person})
			if len(back1.Tasks) != len(gen.Tasks) || len(back2.Tasks) != len(gen.Tasks) {
				t.Fatalf("seed %d: %d tasks generated, %d and %d exported", seed, len(gen.Tasks), len(back1.Tasks), len(back2.Tasks))
			}
			for _, e := range gen.Events {
				if e.RecurrenceID != nil {
					overrides++
					continue
				}
				if e.Rule != nil {
					repeating++
				}
				want := instTimes(gen.Instances(e.UID, from, to))
				got1 := instTimes(back1.Instances(e.UID, from, to))
				got2 := instKeys(back2.Instances(e.UID, from, to))
				if !reflect.DeepEqual(want, got1) {
					t.Fatalf("seed %d: occurrences of %s after the store\n got %v\nwant %v", seed, e.UID, got1, want)
				}
				if k1 := instKeys(back1.Instances(e.UID, from, to)); !reflect.DeepEqual(k1, got2) {
					t.Fatalf("seed %d: occurrences of %s after the second store\n got %v\nwant %v", seed, e.UID, got2, k1)
				}
			}
			tasks += len(gen.Tasks)
		}
		if n := int(seeds); repeating < n/2 || overrides < n/8 || tasks < n {
			t.Errorf("the generator made too few interesting items: %d repeating, %d overrides, %d tasks", repeating, overrides, tasks)
		}
	})
}

// instTimes is instKeys without the title: the store writes "(no title)"
// for an empty SUMMARY.
func instTimes(ins []Instance) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.Original.String()+" "+in.Start.UTC().Format(time.RFC3339)+" "+in.End.UTC().Format(time.RFC3339))
	}
	return out
}
