package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// TestAddTaskMatchesWrite adds random tasks of two people with AddTask
// (on PostgreSQL one statement that looks for a task like it, inserts,
// journals and commits) and, on another database, with the Write it
// stands for (TasksLike, then InsertTask and Summarize), with titles and
// dues drawn from few so that tasks like the new one are often there,
// some calls looking for none (allow_duplicate), and undos between: the
// answers, the tasks (derived columns too), the journal (images byte for
// byte) and the tags table must be the same on each engine.
func TestAddTaskMatchesWrite(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for seed := uint64(1); seed <= 3; seed++ {
			got := addTaskScenario(t, seed, true)
			want := addTaskScenario(t, seed, false)
			if got != want {
				t.Fatalf("seed %d: AddTask differs from Write:\n%s\n--- Write:\n%s", seed, got, want)
			}
		}
	})
}

func addTaskScenario(t *testing.T, seed uint64, alone bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 30))
	f := newFixture(t)
	titles := []string{"Call the plumber", "call the PLUMBER ", "Buy milk", `say "hi" <&>`, "é ü 💡", "two\nlines"}
	dues := []string{"", "2026-12-01", "2026-12-01T09:00", "2026-03-29T02:30"}
	zones := []string{"Europe/Paris", "America/New_York"}
	summary := func(title string) func(string) string {
		return func(ref string) string { return fmt.Sprintf("added %s “%s”", ref, title) }
	}
	var b strings.Builder
	var changes []string
	for i := range 80 {
		f.clock = f.clock.Add(time.Duration(rng.IntN(300)) * time.Second)
		owner, zone := f.alice.ID, "Europe/Paris"
		if rng.IntN(4) == 0 {
			owner, zone = f.bob.ID, "America/New_York"
		}
		tk := task.New(titles[rng.IntN(len(titles))], f.clock.UTC().Truncate(time.Second))
		tk.Notes = titles[rng.IntN(len(titles))]
		if d := dues[rng.IntN(len(dues))]; d != "" {
			m, err := tz.ParseMoment(d)
			if err != nil {
				t.Fatal(err)
			}
			if m.HasTime {
				tk.Due, tk.HasDue = task.Timed(m.DateTime, tz.MustZone(zones[rng.IntN(len(zones))])), true
			} else {
				tk.Due, tk.HasDue = task.Day(m.Date), true
			}
			if rng.IntN(3) == 0 {
				tk.Rule, tk.RepeatFrom = recur.MustRule("FREQ=WEEKLY"), []string{task.Schedule, task.FromCompletion}[rng.IntN(2)]
			}
		}
		tk.Priority = 1 + rng.IntN(4)
		if rng.IntN(2) == 0 {
			tk.Tags = []string{"home", "Errands"}[:1+rng.IntN(2)]
		}
		var since time.Time
		if rng.IntN(4) != 0 {
			since = tk.CreatedAt.Add(-10 * time.Minute)
		}
		// A session's person check, sometimes of a zone no longer stored.
		ctx := f.ctx
		var check *PersonCheck
		if k := rng.IntN(4); k > 0 {
			name, checked := "alice", zone
			if owner == f.bob.ID {
				name = "bob"
			}
			// (On PostgreSQL a Write whose check fails has taken an id
			// from the sequence that AddTask does not: ids would differ.)
			if k == 1 && f.s.Engine() == SQLite {
				checked = "Asia/Tokyo"
			}
			ctx, check = WithPersonCheck(f.ctx, owner, name, checked)
		}
		var id int64
		var change string
		var added bool
		var err error
		if alone {
			id, change, added, err = f.s.AddTask(ctx, owner, "add_task", zone, tk, since, summary(tk.Title))
		} else {
			change, err = f.s.Write(ctx, owner, "add_task", func(tx *Tx) error {
				tx.AssumeZone(zone)
				if !since.IsZero() {
					like, err := tx.TasksLike(tk, since)
					if err != nil || len(like) > 0 {
						return err
					}
				}
				var err error
				if id, err = tx.InsertTask(tk); err == nil {
					tx.Summarize(summary(tk.Title)(fmt.Sprintf("t%d", id)))
				}
				return err
			})
			added = change != ""
		}
		errText := fmt.Sprint(err)
		if errors.Is(err, ErrPersonChanged) {
			errText = "the person changed"
		}
		fmt.Fprintf(&b, "%d: owner %d id %d change %q added %v err %v", i, owner, id, change, added, errText)
		if check != nil {
			// What the check found; one that passed is left for the next
			// transaction to make again when AddTask added nothing.
			fmt.Fprintf(&b, " check changed %v", check.Changed())
			if added && !check.Made() {
				t.Fatalf("call %d: added with the person check not made", i)
			}
		}
		b.WriteString("\n")
		if err != nil && !errors.Is(err, ErrPersonChanged) {
			t.Fatalf("call %d: %v", i, err)
		}
		if added {
			changes = append(changes, change)
		}
		if rng.IntN(8) == 0 && len(changes) > 0 {
			c := changes[len(changes)-1]
			changes = changes[:len(changes)-1]
			var owner int64
			if err := f.s.DB().QueryRow(rebound(`SELECT owner_id FROM changes WHERE id = ?`), strings.TrimPrefix(c, "c")).Scan(&owner); err != nil {
				t.Fatal(err)
			}
			u, err := f.s.Undo(f.ctx, owner, c)
			fmt.Fprintf(&b, "undo %s: %s %v\n", c, u, err)
		}
	}
	for _, q := range []string{
		`SELECT * FROM tasks ORDER BY id`,
		`SELECT id, owner_id, tool, summary, created, tbl, row_id, before, after FROM changes ORDER BY id`,
		`SELECT * FROM journal_rows ORDER BY change_id, seq`,
		`SELECT task_id, tag FROM task_tags ORDER BY task_id, tag`,
	} {
		b.WriteString(q + "\n" + dumpRows(t, f.s, q))
	}
	return b.String()
}

// TestAddTaskChecksThePerson: with a person check in its context, AddTask
// adds nothing and answers ErrPersonChanged when the person's zone is no
// longer the checked one; when it adds nothing because a task like it is
// there, the passed check is left for the next transaction to make.
func TestAddTaskChecksThePerson(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		summary := func(ref string) string { return "added " + ref }
		count := func() (n int) {
			t.Helper()
			if err := f.s.DB().QueryRow(`SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM changes)`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count()
		ctx, check := WithPersonCheck(f.ctx, f.alice.ID, "alice", "Asia/Tokyo")
		tk := task.New("Water the plants", f.clock)
		_, _, added, err := f.s.AddTask(ctx, f.alice.ID, "add_task", "Asia/Tokyo", tk, f.clock.Add(-10*time.Minute), summary)
		if !errors.Is(err, ErrPersonChanged) || added || !check.Changed() {
			t.Fatalf("stale zone: added %v, err %v, changed %v; want ErrPersonChanged", added, err, check.Changed())
		}
		if n := count(); n != before {
			t.Fatalf("a failed check wrote %d rows", n-before)
		}
		// Likewise when it looks for no task like it (allow_duplicate).
		ctx, check = WithPersonCheck(f.ctx, f.alice.ID, "alice", "Asia/Tokyo")
		if _, _, added, err := f.s.AddTask(ctx, f.alice.ID, "add_task", "Asia/Tokyo", tk, time.Time{}, summary); !errors.Is(err, ErrPersonChanged) || added || !check.Changed() {
			t.Fatalf("stale zone, duplicates allowed: added %v, err %v, changed %v; want ErrPersonChanged", added, err, check.Changed())
		}
		if n := count(); n != before {
			t.Fatalf("a failed check wrote %d rows", n-before)
		}

		ctx, check = WithPersonCheck(f.ctx, f.alice.ID, "alice", "Europe/Paris")
		id, change, added, err := f.s.AddTask(ctx, f.alice.ID, "add_task", "Europe/Paris", tk, f.clock.Add(-10*time.Minute), summary)
		if err != nil || !added || id == 0 || change == "" || !check.Made() || check.Changed() {
			t.Fatalf("add: id %d change %q added %v err %v made %v", id, change, added, err, check.Made())
		}
		before = count()
		ctx, check = WithPersonCheck(f.ctx, f.alice.ID, "alice", "Europe/Paris")
		_, _, added, err = f.s.AddTask(ctx, f.alice.ID, "add_task", "Europe/Paris", tk, f.clock.Add(-10*time.Minute), summary)
		if err != nil || added || check.Made() {
			t.Fatalf("a task like it: added %v err %v made %v; want nothing added and the check left to make", added, err, check.Made())
		}
		if n := count(); n != before {
			t.Fatalf("a task like it: %d rows written", n-before)
		}
		// Bob has no task like it: his is added.
		if _, _, added, err := f.s.AddTask(f.ctx, f.bob.ID, "add_task", "America/New_York", tk, f.clock.Add(-10*time.Minute), summary); err != nil || !added {
			t.Fatalf("bob: added %v err %v", added, err)
		}
		// No such person: ErrNotFound, nothing written.
		before = count()
		if _, _, _, err := f.s.AddTask(f.ctx, 9999, "add_task", "UTC", tk, time.Time{}, summary); !errors.Is(err, ErrNotFound) {
			t.Fatalf("no such person: %v, want ErrNotFound", err)
		}
		if n := count(); n != before {
			t.Fatalf("no such person: %d rows written", n-before)
		}
	})
}

// TestAddTaskLikePlan checks that AddTask's look for a task like the new
// one, as PostgreSQL plans it once for any values (a generic plan, which
// a named statement gets after five runs), reads the index of titles
// (tasks_owner_title) and not every open task of the person through
// another index, on a new database without statistics.
func TestAddTaskLikePlan(t *testing.T) {
	storetest.SkipUnlessPostgres(t)
	t.Run(storetest.Postgres, func(t *testing.T) {
		f := newFixture(t)
		conn, err := f.s.DB().Conn(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(f.ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
			t.Fatal(err)
		}
		// The statements' arguments are typed as AddTask binds them; the
		// second is TasksLike's (the general way's).
		for i, q := range []string{`SELECT 1 WHERE ` + tasksLikeFenced, tasksLikePostgres} {
			name := fmt.Sprintf("alike%d", i)
			if _, err := conn.ExecContext(f.ctx, `PREPARE `+name+` (bigint, text, bigint, text, text, text) AS `+rebound(q)); err != nil {
				t.Fatal(err)
			}
			var plan []string
			rows, err := conn.QueryContext(f.ctx, `EXPLAIN EXECUTE `+name+` (1, 'milk', 0, NULL, NULL, NULL)`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, line)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			if !strings.Contains(text, "tasks_owner_title") || strings.Contains(text, "Seq Scan") {
				t.Errorf("the look for a task like the new one does not read tasks_owner_title:\n%s\n%s", q, text)
			}
		}
	})
}
