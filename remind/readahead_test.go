package remind

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// errRollBack ends a WriteMany of a test without keeping anything.
var errRollBack = errors.New("rolled back")

// TestReadAheadAnswersAsTheDatabase is the differential test of the
// read-ahead of a record transaction (readAhead, store.Tx.ReadStatesAhead
// and ReadRebuildAhead): at moments that take each of its paths (a first
// pass, passes with the index built, a zone change that rebuilds with
// deliveries pending, items written between passes), each person's calls
// answered from what was read ahead for both people at once must equal
// the same calls made again, which read the database. A write by the
// person forgets what it may change.
func TestReadAheadAnswersAsTheDatabase(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 21))
		start := civilAt(t, "Europe/Paris", "2026-10-20T08:00")
		w := twin{old: newEnv(t, start), new: newEnv(t, start)}
		randomItems(w, r, ada, start, 40)
		randomItems(w, r, bob, start, 30)
		e := w.new
		eng := e.engine(Options{})
		now := start.Add(2*24*time.Hour + 3*time.Hour)
		checked := map[string]int{}
		for step := range 6 {
			e.now = now
			switch step {
			case 1:
				// Due before the next step, whose record step leaves
				// them pending.
				for i, who := range []func(*env) tools.Person{ada, bob} {
					at := now.Add(time.Duration(60+40*i) * time.Minute).In(who(e).Zone.Location())
					w.call(who, "add_task", fmt.Sprintf(`{"title":"Soon %d","due":%q,"remind_before":[0,15]}`,
						i, at.Format("2006-01-02T15:04")))
				}
			case 2:
				randomItems(w, r, bob, now, 5)
			case 3:
				w.call(ada, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
				w.call(bob, "set_time_zone", `{"time_zone":"America/Chicago"}`)
				e.ada.Zone, e.bob.Zone = tz.MustZone("Asia/Tokyo"), tz.MustZone("America/Chicago")
			}
			people, err := eng.persons(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			ids := []int64{e.ada.ID, e.bob.ID}
			err = e.s.WriteMany(e.ctx, ids, func(tx *store.Tx) error {
				if err := eng.readAhead(tx, people, now); err != nil {
					return err
				}
				for _, p := range people {
					compareAhead(t, tx.As(p.ID), p, eng, now, checked)
				}
				// What came due, read for both after their writes
				// (an index row due now written for each, held back
				// until this read), and who has something to send.
				for _, p := range people {
					if err := tx.As(p.ID).SetNextFires(store.NextFire{Item: "t0", At: now}); err != nil {
						return err
					}
				}
				if err := tx.ReadDueAhead(ids, now); err != nil {
					return err
				}
				toSend, err := tx.ToSendAhead(ids, now, eng.leaseGiven())
				if err != nil {
					return err
				}
				for _, p := range people {
					compareDue(t, tx.As(p.ID), p, now, toSend[p.ID], checked)
				}
				// The delivery each claims first, read for both.
				if err := tx.ReadToSendAhead(ids, now, eng.leaseGiven()); err != nil {
					return err
				}
				for _, p := range people {
					v := tx.As(p.ID)
					if !slices.Contains(v.AheadHeld(), "NextToSend") {
						t.Fatalf("NextToSend of %s is not read ahead", p.Name)
					}
					a, okA, err := v.NextToSend(now, eng.leaseGiven())
					if err != nil {
						return err
					}
					if slices.Contains(v.AheadHeld(), "NextToSend") {
						t.Fatalf("NextToSend of %s did not answer from the read-ahead", p.Name)
					}
					b, okB, err := v.NextToSend(now, eng.leaseGiven())
					if err != nil {
						return err
					}
					if fmt.Sprintf("%+v %v", a, okA) != fmt.Sprintf("%+v %v", b, okB) {
						t.Fatalf("NextToSend of %s: read ahead %+v %v, from the database %+v %v", p.Name, a, okA, b, okB)
					}
					if okA {
						checked["NextToSend"]++
					}
				}
				return errRollBack
			})
			if !errors.Is(err, errRollBack) {
				t.Fatal(err)
			}
			if step == 2 {
				// Deliveries left pending for the rebuild of the next
				// step (a zone change): recorded, not sent.
				if _, err := eng.recordAll(e.ctx, people, &Result{}, &sync.Mutex{}, func(person, error) {}); err != nil {
					t.Fatal(err)
				}
			} else {
				e.pass(eng)
			}
			now = now.Add(5 * time.Hour)
		}
		if checked["pending"] == 0 {
			t.Error("no rebuild read pending deliveries ahead")
		}
		for _, m := range []string{"ReminderState", "LatestChange", "RemindCandidates", "NextFires", "PendingItems",
			"OpenTasksByID", "EventsForReminders", "NextFiresDue", "SnoozesDue", "due", "NextToSend"} {
			if checked[m] < 2 {
				t.Errorf("%s was answered from the read-ahead %d times; want at least 2", m, checked[m])
			}
		}
	})
}

// compareDue wants tx's NextFiresDue and SnoozesDue at now, answered
// from the read-ahead, to equal the same calls made again, and toSend
// (ToSendAhead's answer for the person) to be NextToSend's.
func compareDue(t *testing.T, tx *store.Tx, p person, now time.Time, toSend bool, checked map[string]int) {
	t.Helper()
	for _, name := range []string{"NextFiresDue", "SnoozesDue"} {
		call := func() (string, error) {
			if name == "NextFiresDue" {
				list, err := tx.NextFiresDue(now)
				return fmt.Sprint(list), err
			}
			list, err := tx.SnoozesDue(now)
			return fmt.Sprint(list), err
		}
		if !slices.Contains(tx.AheadHeld(), name) {
			t.Fatalf("%s of %s is not read ahead", name, p.Name)
		}
		a, err := call()
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(tx.AheadHeld(), name) {
			t.Fatalf("%s of %s did not answer from the read-ahead", name, p.Name)
		}
		b, err := call()
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("%s of %s: read ahead\n%s\nfrom the database\n%s", name, p.Name, a, b)
		}
		if name == "NextFiresDue" && a == "[]" {
			t.Fatalf("nothing of %s is due: the index row written before the read is not seen", p.Name)
		}
		checked[name]++
	}
	_, ok, err := tx.NextToSend(now, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if ok != toSend {
		t.Fatalf("%s: NextToSend finds one %v, ToSendAhead says %v", p.Name, ok, toSend)
	}
	if ok {
		checked["due"]++
	}
}

// compareAhead makes each call a record step makes once from the
// read-ahead and once again from the database, and wants the same.
func compareAhead(t *testing.T, tx *store.Tx, p person, eng *Engine, now time.Time, checked map[string]int) {
	t.Helper()
	held := tx.AheadHeld()
	twice := func(name string, call func() (string, error)) {
		t.Helper()
		was := slices.Contains(tx.AheadHeld(), name)
		a, err := call()
		if err != nil {
			t.Fatalf("%s of %s: %v", name, p.Name, err)
		}
		if was {
			if slices.Contains(tx.AheadHeld(), name) {
				t.Fatalf("%s of %s did not answer from the read-ahead", name, p.Name)
			}
			checked[name]++
		}
		b, err := call()
		if err != nil {
			t.Fatalf("%s of %s: %v", name, p.Name, err)
		}
		if a != b {
			t.Fatalf("%s of %s: read ahead\n%s\nfrom the database\n%s", name, p.Name, a, b)
		}
	}
	var st store.ReminderState
	var found bool
	twice("ReminderState", func() (string, error) {
		var err error
		st, found, err = tx.ReminderState()
		return fmt.Sprintf("%+v %v", st, found), err
	})
	var mark int64
	twice("LatestChange", func() (string, error) {
		var err error
		mark, err = tx.LatestChange()
		return fmt.Sprint(mark), err
	})
	full := !found || st.Zone != p.Zone.Name() || mark < st.ChangeMark
	if full != slices.Contains(held, "RemindCandidates") {
		t.Fatalf("%s: a rebuild is %v, the read-ahead holds %v", p.Name, full, held)
	}
	if !full {
		return
	}
	passed := st.PassedAt
	if !found {
		passed = eng.firstPassedAt(now)
	}
	var labels []string
	twice("RemindCandidates", func() (string, error) {
		list, err := tx.RemindCandidates(passed.Add(time.Second), now.Add(horizonWindow).Truncate(time.Second))
		var out []string
		labels = labels[:0]
		for _, c := range list {
			out = append(out, c.Label+" "+c.Updated.String())
			labels = append(labels, c.Label)
		}
		slices.Sort(out)
		return strings.Join(out, "\n"), err
	})
	twice("NextFires", func() (string, error) {
		list, err := tx.NextFires()
		for _, n := range list {
			labels = append(labels, n.Item)
		}
		return fmt.Sprint(list), err
	})
	twice("PendingItems", func() (string, error) {
		m, err := tx.PendingItems()
		var out []string
		if len(m) > 0 {
			checked["pending"]++
		}
		for l := range m {
			out = append(out, l)
			if l != "digest" {
				labels = append(labels, l)
			}
		}
		slices.Sort(out)
		return strings.Join(out, " "), err
	})
	var tasks, events []int64
	for _, l := range labels {
		id, _ := strconv.ParseInt(l[1:], 10, 64)
		if l[0] == 't' {
			tasks = append(tasks, id)
		} else {
			events = append(events, id)
		}
	}
	slices.Sort(tasks)
	slices.Sort(events)
	tasks, events = slices.Compact(tasks), slices.Compact(events)
	twice("OpenTasksByID", func() (string, error) {
		list, err := tx.OpenTasksByID(tasks)
		var out []string
		for _, task := range list {
			b, err := json.Marshal(task)
			if err != nil {
				return "", err
			}
			out = append(out, string(b))
		}
		slices.Sort(out)
		return strings.Join(out, "\n"), err
	})
	twice("EventsForReminders", func() (string, error) {
		m, err := tx.EventsForReminders(events)
		var out []string
		for id, w := range m {
			b, err := json.Marshal(w) // pointers as what they point to
			if err != nil {
				return "", err
			}
			out = append(out, fmt.Sprint(id, " ", string(b)))
		}
		slices.Sort(out)
		return strings.Join(out, "\n"), err
	})
	// A write by the person forgets the index read ahead.
	if err := tx.SetNextFires(store.NextFire{Item: "t0", At: now}); err != nil {
		t.Fatal(err)
	}
	if h := tx.AheadHeld(); slices.Contains(h, "NextFires") || slices.Contains(h, "ReminderState") || slices.Contains(h, "PendingItems") {
		t.Fatalf("%s: a write left %v held", p.Name, h)
	}
}
