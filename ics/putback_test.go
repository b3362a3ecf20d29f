package ics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// TestImportedObjectsPutBackUnchanged imports each shared file with
// Import, which keeps the file's own forms (EXDATEs and RDATEs as days, a
// local UNTIL, EXDATEs that remove nothing, absolute alarms), then sends
// every item a CalDAV client would sync through WriteEventObject or
// WriteTaskObject → ParseObject → PutObject: the PUT of the GET writes
// no row and records no change (docs/caldav.md, “Writes, and lost
// races”), and the item is written the same bytes after it.
func TestImportedObjectsPutBackUnchanged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, _ := openStore(t)
		st.Now = func() time.Time { return objNow }
		files, _ := filepath.Glob(filepath.Join(testdataICS(t), "*.ics"))
		ctx := context.Background()
		person := tz.MustZone("Europe/Berlin")
		sent := 0
		for i, f := range files {
			name := filepath.Base(f)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := addPerson(t, st, fmt.Sprintf("p%d", i))
			if _, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{Source: name}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			type item struct{ kind, uid string }
			var items []item
			bodies := map[item][]byte{}
			if err := st.Read(ctx, p.ID, func(tx *store.Tx) error {
				evs, err := tx.LiveEvents()
				if err != nil {
					return err
				}
				for _, sp := range evs {
					items = append(items, item{ical.CompEvent, sp.Event.UID})
				}
				tks, err := tx.TasksByUID()
				if err != nil {
					return err
				}
				for uid := range tks {
					items = append(items, item{ical.CompToDo, uid})
				}
				sort.Slice(items, func(a, b int) bool { return items[a].kind+items[a].uid < items[b].kind+items[b].uid })
				for _, it := range items {
					bodies[it] = writeObject(t, tx, it.kind, it.uid, "", person)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			rows := func() string {
				var b strings.Builder
				for _, q := range roundTripRows {
					b.WriteString(dump(t, st, p.ID, q))
				}
				return b.String()
			}
			before := rows()
			for _, it := range items {
				obj, err := ParseObject(bodies[it], person, objNow)
				var oe *ObjectError
				if errors.As(err, &oe) {
					t.Errorf("%s %s: the served object is refused: %v\n%s", name, it.uid, err, bodies[it])
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if lost := obj.Lost(); len(lost) > 0 {
					t.Errorf("%s %s: the served object loses %+v\n%s", name, it.uid, lost, bodies[it])
					continue
				}
				sent++
				change, err := st.Write(ctx, p.ID, "caldav", func(tx *store.Tx) error {
					_, created, changed, err := PutObject(tx, person, obj)
					if err == nil && (created || changed) {
						t.Errorf("%s %s: PUT of its own GET created %t changed %t\n%s", name, it.uid, created, changed, bodies[it])
					}
					return err
				})
				if err != nil {
					t.Fatalf("%s %s: %v", name, it.uid, err)
				}
				if change != "" {
					t.Errorf("%s %s: PUT of its own GET recorded change %s", name, it.uid, change)
				}
				if err := st.Read(ctx, p.ID, func(tx *store.Tx) error {
					if again := writeObject(t, tx, it.kind, it.uid, obj.Extra, person); obj.Extra == "" && !bytes.Equal(again, bodies[it]) {
						t.Errorf("%s %s: written differently after the PUT:\n%s\n--- was:\n%s", name, it.uid, again, bodies[it])
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if after := rows(); after != before {
				t.Errorf("%s: rows changed by PUTs of their own GETs:\n%s\n--- before:\n%s", name, after, before)
			}
		}
		if sent < 50 {
			t.Errorf("only %d imported items sent back", sent)
		}
	})
}
