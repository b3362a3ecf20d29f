package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestHeldWritesMatchImmediate is the differential test of the writes a
// WriteMany holds back (remind_later.go): the same random calls of two
// people (index rows set, moved and dropped, states saved, deliveries
// recorded, some of them again, and marked sent, with reads of each in between) made in
// one WriteMany, where the writes wait for a read that needs them or the
// commit, and each in a Write of its own, where they are made at once,
// must answer the same and leave the same rows.
func TestHeldWritesMatchImmediate(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
				held, now := newFixture(t), newFixture(t)
				ops := randomRemindOps(seed, 300)
				var heldLog, nowLog []string
				holds := 0
				owners := []int64{held.alice.ID, held.bob.ID}
				err := held.s.WriteMany(held.ctx, owners, func(tx *Tx) error {
					views := []*Tx{tx.As(held.alice.ID), tx.As(held.bob.ID)}
					for _, op := range ops {
						out, err := op.run(views[op.who])
						if err != nil {
							return err
						}
						heldLog = append(heldLog, out)
						if !tx.later.empty() {
							holds++
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				ids := []int64{now.alice.ID, now.bob.ID}
				for _, op := range ops {
					var out string
					now.write(t, ids[op.who], func(tx *Tx) error {
						var err error
						out, err = op.run(tx)
						return err
					})
					nowLog = append(nowLog, out)
				}
				for i := range ops {
					if heldLog[i] != nowLog[i] {
						t.Fatalf("call %d (%s): held back %q, at once %q", i, ops[i].name, heldLog[i], nowLog[i])
					}
				}
				if a, b := remindRows(t, held, owners), remindRows(t, now, ids); a != b {
					t.Fatalf("the rows differ:\nheld back\n%s\nat once\n%s", a, b)
				}
				if holds < len(ops)/4 {
					t.Fatalf("writes were held back after %d of %d calls; want many", holds, len(ops))
				}
			})
		}
	})
}

// remindOp is one call of a person (who: 0 or 1) on their view.
type remindOp struct {
	who  int
	name string
	run  func(tx *Tx) (string, error)
}

func randomRemindOps(seed uint64, n int) []remindOp {
	r := rand.New(rand.NewPCG(seed, 77))
	base := time.Date(2026, 10, 5, 6, 0, 0, 0, time.UTC)
	item := func() string { return fmt.Sprintf("%c%d", "te"[r.IntN(2)], 1+r.IntN(6)) }
	at := func() time.Time {
		if r.IntN(5) == 0 {
			return time.Time{}
		}
		return base.Add(time.Duration(r.IntN(48)) * 15 * time.Minute)
	}
	var ops []remindOp
	for range n {
		var op remindOp
		op.who = r.IntN(2)
		switch k := r.IntN(10); k {
		case 0, 1:
			var list []NextFire // one row an item, as every caller gives
			seen := map[string]bool{}
			for range 1 + r.IntN(3) {
				if l := item(); !seen[l] {
					seen[l] = true
					list = append(list, NextFire{Item: l, At: at()})
				}
			}
			op.name = fmt.Sprint("SetNextFires ", list)
			op.run = func(tx *Tx) (string, error) { return "", tx.SetNextFires(list...) }
		case 2, 3:
			f := NextFire{Item: item(), At: at()}
			op.name = fmt.Sprint("MoveNextFire ", f)
			op.run = func(tx *Tx) (string, error) { return "", tx.MoveNextFire(f) }
		case 4:
			l := item()
			op.name = "DropNextFire " + l
			op.run = func(tx *Tx) (string, error) { return "", tx.DropNextFire(l) }
		case 5:
			st := ReminderState{ChangeMark: int64(r.IntN(50)), Zone: []string{"Europe/Paris", "Asia/Tokyo"}[r.IntN(2)],
				PassedAt: at(), Horizon: at()}
			op.name = fmt.Sprint("SaveReminderState ", st)
			op.run = func(tx *Tx) (string, error) { return "", tx.SaveReminderState(st) }
		case 6, 7:
			d := NewDelivery{Item: item(), Trigger: "before:15", FireAt: base.Add(time.Duration(r.IntN(4)) * time.Hour),
				Status: []string{DeliveryPending, DeliverySkipped}[r.IntN(2)], Why: "late"}
			op.name = fmt.Sprint("RecordDeliveryLater ", d)
			op.run = func(tx *Tx) (string, error) { return "", tx.RecordDeliveryLater(d, base) }
		case 8:
			if r.IntN(2) == 0 {
				// A delivery recorded before (the row ids are the same
				// in both databases: the same inserts, in the same
				// order) marked sent, perhaps twice.
				rowID, to := int64(1+r.IntN(12)), []string{"log"}
				op.name = fmt.Sprint("MarkSent ", rowID)
				op.run = func(tx *Tx) (string, error) { return "", tx.MarkSent(rowID, base.Add(time.Hour), to) }
				break
			}
			op.name = "NextFires"
			op.run = func(tx *Tx) (string, error) {
				list, err := tx.NextFires()
				return fmt.Sprint(list), err
			}
		default:
			op.name = "ReminderState, PendingItems"
			op.run = func(tx *Tx) (string, error) {
				st, found, err := tx.ReminderState()
				if err != nil {
					return "", err
				}
				p, err := tx.PendingItems()
				var items []string
				for l := range p {
					items = append(items, l)
				}
				slices.Sort(items)
				return fmt.Sprint(st, found, items), err
			}
		}
		ops = append(ops, op)
	}
	return ops
}

// remindRows is the rows of the reminder tables of owners (as their
// index in owners), one a line.
func remindRows(t *testing.T, f *fixture, owners []int64) string {
	t.Helper()
	var out []string
	for i, o := range owners {
		for _, q := range []string{
			`SELECT item, coalesce(next_fire, -1) FROM remind_next WHERE owner_id = ? ORDER BY item`,
			`SELECT change_mark, zone, passed_at, coalesce(horizon, -1) FROM remind_state WHERE owner_id = ?`,
			`SELECT id, item, occurrence, trigger, fire_at, delivery_id, status, next_attempt, last_error, created_at,
				coalesce(local_fire, ''), coalesce(sent_at, -1), delivered_to FROM reminder_deliveries WHERE owner_id = ? ORDER BY item, fire_at`,
		} {
			for _, line := range strings.SplitAfter(dumpRows(t, f.s, q, o), "\n") {
				if line != "" {
					out = append(out, fmt.Sprint(i, " ", q[7:20], " ", line))
				}
			}
		}
	}
	return strings.Join(out, "")
}
