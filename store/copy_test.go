package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/remind"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// world is a database filled through the real tools, as people use it,
// and a clock the test moves.
type world struct {
	t   *testing.T
	ctx context.Context
	st  *store.Store
	reg *tools.Registry
	now time.Time
	// ada and bob as the source has them; the target keeps their ids.
	ada, bob  tools.Person
	token     string // ada's MCP token, made before the copy
	feed      string // ada's feed secret, made before the copy
	undoLater string // a change of ada's made before the copy, left to undo after it
}

func openAt(t *testing.T, loc string, now *time.Time) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), loc, &store.Options{Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call runs tool as who on st and returns its answer, failing the test on
// any code but ok.
func (w *world) call(st *store.Store, who tools.Person, tool, raw string) string {
	w.t.Helper()
	res := w.try(st, who, tool, raw)
	if res.Code != tools.CodeOK {
		w.t.Fatalf("%s %s as %s: code %d: %s", tool, raw, who.Name, res.Code, res.TextOut())
	}
	return res.TextOut()
}

func (w *world) try(st *store.Store, who tools.Person, tool, raw string) tools.ExecResult {
	tc := &tools.ToolContext{}
	tools.Insert(tc, who)
	tools.Insert(tc, st)
	tools.Insert(tc, tools.Clock(func() time.Time { return w.now }))
	res, _ := w.reg.Call(w.ctx, tc, tool, []byte(raw))
	return res
}

var changeID = regexp.MustCompile(`\bc\d+\b`)

// fill makes a source SQLite file with two people and something in every
// table: tasks (one repeating, completed twice), a repeating event with a
// moved and a cancelled occurrence, undone changes, idempotency keys, a
// token, a conversation, and the reminder bookkeeping of a pass.
func fill(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, ctx: context.Background(), reg: catalog.New(), now: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)}
	w.st = openAt(t, filepath.Join(t.TempDir(), "source.db"), &w.now)
	person := func(name, zone string) tools.Person {
		p, err := w.st.AddPerson(w.ctx, name, zone)
		if err != nil {
			t.Fatal(err)
		}
		return tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}
	}
	w.ada = person("ada", "Europe/Paris")
	w.bob = person("bob", "America/New_York")

	w.call(w.st, w.ada, "add_task", `{"title":"Water the plants","due":"2026-11-30T18:00","rrule":"FREQ=DAILY","remind_before":[15]}`)
	w.call(w.st, w.ada, "add_task", `{"title":"Buy milk","due":"2026-12-01","tags":["shop"],"key":"milk-1"}`)
	w.call(w.st, w.ada, "add_task", `{"title":"Call the bank","notes":"about the card\nbefore noon","priority":1}`)
	w.call(w.st, w.ada, "complete_task", `{"id":"t1"}`)
	w.now = w.now.Add(26 * time.Hour)
	w.call(w.st, w.ada, "complete_task", `{"id":"t1"}`)
	w.call(w.st, w.ada, "update_task", `{"id":"t2","title":"Buy oat milk"}`)
	w.call(w.st, w.ada, "delete_task", `{"id":"t3"}`)
	w.call(w.st, w.ada, "undo", `{}`) // brings t3 back: an undone change and its undo
	w.call(w.st, w.ada, "add_event", `{"title":"Standup","start":"2026-12-01T09:30","duration":15,"rrule":"FREQ=WEEKLY;BYDAY=TU,TH","remind_before":[10],"key":"standup"}`)
	w.call(w.st, w.ada, "update_event", `{"id":"e1@20261203T083000Z","start":"2026-12-03T10:00","title":"Standup (late)"}`)
	w.call(w.st, w.ada, "delete_event", `{"id":"e1@20261208T083000Z"}`)
	out := w.call(w.st, w.ada, "update_task", `{"id":"t3","title":"Call the bank today"}`)
	if m := changeID.FindString(out); m != "" {
		w.undoLater = m
	} else {
		t.Fatalf("update_task gave no change id: %s", out)
	}
	w.call(w.st, w.ada, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
	w.call(w.st, w.ada, "set_time_zone", `{"time_zone":"Europe/Paris"}`)

	w.call(w.st, w.bob, "add_task", `{"title":"Bob's errand","due":"2026-12-02T10:00","remind_at":["2026-12-02T09:00"]}`)
	w.call(w.st, w.bob, "add_event", `{"title":"Dentist","start":"2026-12-04T15:00","location":"Main St"}`)
	w.call(w.st, w.bob, "add_event", `{"title":"Holiday","start":"2026-12-20","end":"2026-12-27"}`)

	tok, _, err := w.st.CreateToken(w.ctx, w.ada.ID, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	w.token = tok
	if w.feed, _, err = w.st.CreateFeedSecret(w.ctx, w.ada.ID, "Google Calendar"); err != nil {
		t.Fatal(err)
	}
	// The name a CalDAV client gave ada's first event.
	if _, err := w.st.Write(w.ctx, w.ada.ID, "caldav", func(tx *store.Tx) error {
		return tx.SaveDAVObject(store.DAVObject{Collection: store.DAVEvents, Name: "6F1C-A.ics", UID: "6F1C-A", ItemID: 1, Extra: "X-A:b\r\n"})
	}); err != nil {
		t.Fatal(err)
	}
	conv, err := w.st.NewConversation(w.ctx, w.ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.st.AppendMessages(w.ctx, w.ada.ID, conv, []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"what is due?"}`),
		json.RawMessage(`{"role":"assistant","content":"Buy oat milk, tomorrow. ✓"}`),
	}); err != nil {
		t.Fatal(err)
	}
	w.pass(w.st) // remind_next, remind_state
	w.now = time.Date(2026, 12, 2, 16, 50, 0, 0, time.UTC)
	w.pass(w.st) // t1's reminder at 16:45Z, bob's at 14:00Z: reminder_deliveries
	// ada puts t1's reminder off: reminder_snoozes.
	if _, err := remind.Snooze(w.ctx, w.st, w.ada.ID, w.ada.Zone, "t1", w.now.Add(10*time.Minute), w.now, "snooze"); err != nil {
		t.Fatal(err)
	}
	return w
}

// pass runs one remind pass on st at the world's clock and returns what it
// did, as a comparable line.
func (w *world) pass(st *store.Store) string {
	w.t.Helper()
	e, err := remind.New(remind.Options{Store: st, Notifiers: []remind.Notifier{&remind.Lines{W: io.Discard}},
		Now: func() time.Time { return w.now }})
	if err != nil {
		w.t.Fatal(err)
	}
	r, err := e.Pass(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return fmt.Sprintf("%+v", r)
}

// status is remind --status as text, on st.
func (w *world) status(st *store.Store) string {
	w.t.Helper()
	e, err := remind.New(remind.Options{Store: st, Notifiers: []remind.Notifier{&remind.Lines{W: io.Discard}},
		Now: func() time.Time { return w.now }})
	if err != nil {
		w.t.Fatal(err)
	}
	reports, err := e.Status(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	var b bytes.Buffer
	if err := remind.WriteStatus(&b, reports); err != nil {
		w.t.Fatal(err)
	}
	return b.String()
}

// reads are the answers that show a person's whole state.
var reads = [][2]string{
	{"list_tasks", `{"status":"all"}`},
	{"get_task", `{"id":"t1"}`},
	{"list_events", `{"from":"2026-11-30","to":"2026-12-31"}`},
	{"get_event", `{"id":"e1"}`},
	{"list_changes", `{"limit":200}`},
	{"current_time", `{}`},
}

// same checks that who gets the same answers from a and b, for every read
// and for the person's chat.
func (w *world) same(a, b *store.Store, who tools.Person) {
	w.t.Helper()
	for _, r := range reads {
		if r[0] == "get_task" || r[0] == "get_event" {
			if who.ID != w.ada.ID {
				continue
			}
		}
		ra, rb := w.try(a, who, r[0], r[1]), w.try(b, who, r[0], r[1])
		if ra.Code != rb.Code || ra.TextOut() != rb.TextOut() {
			w.t.Errorf("%s %s as %s differs after the copy:\n--- source (%d) ---\n%s\n--- target (%d) ---\n%s",
				r[0], r[1], who.Name, ra.Code, ra.TextOut(), rb.Code, rb.TextOut())
		}
	}
	ca, erra := a.LastConversation(w.ctx, who.ID)
	cb, errb := b.LastConversation(w.ctx, who.ID)
	if fmt.Sprint(erra) != fmt.Sprint(errb) {
		w.t.Errorf("%s's last conversation: %v, then %v", who.Name, erra, errb)
	}
	ma, _ := a.Messages(w.ctx, who.ID, ca)
	mb, _ := b.Messages(w.ctx, who.ID, cb)
	if ca != cb || fmt.Sprintf("%s", ma) != fmt.Sprintf("%s", mb) {
		w.t.Errorf("%s's chat differs: conversation %d %s, then %d %s", who.Name, ca, ma, cb, mb)
	}
}

// after checks that the target carries on as the source would: the undo
// of a change made before the copy, a new task (a fresh id, past the
// copied ones), the token, and the next remind pass.
func (w *world) after(src, dst *store.Store) {
	w.t.Helper()
	p, err := dst.PersonByToken(w.ctx, w.token)
	if err != nil || p.ID != w.ada.ID {
		w.t.Errorf("ada's token on the target: %+v, %v", p, err)
	}
	if p, err := dst.PersonByFeedSecret(w.ctx, w.feed); err != nil || p.ID != w.ada.ID {
		w.t.Errorf("ada's feed on the target: %+v, %v", p, err)
	}
	w.now = w.now.Add(26 * time.Hour)
	if a, b := w.pass(src), w.pass(dst); a != b {
		w.t.Errorf("the next remind pass differs: source %s, target %s", a, b)
	}
	if a, b := w.status(src), w.status(dst); a != b {
		w.t.Errorf("remind status differs:\n--- source ---\n%s\n--- target ---\n%s", a, b)
	}
	for _, st := range []*store.Store{src, dst} {
		w.call(st, w.ada, "undo", fmt.Sprintf(`{"change":%q}`, w.undoLater))
		w.call(st, w.ada, "add_task", `{"title":"After the copy"}`)
		w.call(st, w.bob, "add_event", `{"title":"New","start":"2026-12-05T09:00"}`)
	}
	// An idempotency key used before the copy is still taken.
	for _, raw := range []string{`{"title":"Buy milk","due":"2026-12-01","tags":["shop"],"key":"milk-1"}`, `{"title":"Other","key":"milk-1"}`} {
		ra, rb := w.try(src, w.ada, "add_task", raw), w.try(dst, w.ada, "add_task", raw)
		if ra.Code != rb.Code || ra.TextOut() != rb.TextOut() {
			w.t.Errorf("add_task %s: source %d %s, target %d %s", raw, ra.Code, ra.TextOut(), rb.Code, rb.TextOut())
		}
	}
	w.same(src, dst, w.ada)
	w.same(src, dst, w.bob)
}

func copyOrFail(t *testing.T, from, to *store.Store, opts store.CopyOptions) store.CopyReport {
	t.Helper()
	rep, err := store.Copy(context.Background(), from, to, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// counts is every table's row count in s, "people=2 tasks=4 …".
func counts(t *testing.T, s *store.Store) string {
	t.Helper()
	var parts []string
	for _, tbl := range []string{"people", "changes", "change_rows", "idempotency_keys", "access_tokens", "feed_secrets", "conversations", "messages",
		"tasks", "task_completions", "events", "event_overrides", "event_generations", "reminder_deliveries", "reminder_snoozes", "remind_next", "remind_state", "dav_objects"} {
		var n int
		if err := s.DB().QueryRow(`SELECT count(*) FROM ` + tbl).Scan(&n); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, fmt.Sprintf("%s=%d", tbl, n))
	}
	return strings.Join(parts, " ")
}

// A whole SQLite database copied to an empty one of each engine answers
// every tool call as the source does, before and after more calls on both;
// from PostgreSQL it copies on to SQLite the same way.
func TestCopyWhole(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := fill(t)
		dst := openAt(t, storetest.Location(t), &w.now)
		rep := copyOrFail(t, w.st, dst, store.CopyOptions{})
		if rep.Person != "" || rep.Replaced || len(rep.Tables) != 18 || rep.Tables[0].Table != "people" || rep.Tables[0].Rows != 2 {
			t.Fatalf("report: %+v", rep)
		}
		for _, tc := range rep.Tables {
			if tc.Rows == 0 {
				t.Errorf("table %s: no rows copied; the fill should reach every table", tc.Table)
			}
		}
		if a, b := counts(t, w.st), counts(t, dst); a != b {
			t.Fatalf("counts differ:\nsource %s\ntarget %s", a, b)
		}
		w.same(w.st, dst, w.ada)
		w.same(w.st, dst, w.bob)
		store.TextIndexHolds(t, dst)
		if storetest.Engine(t) == storetest.Postgres {
			// And back to a SQLite file, which must match too.
			back := openAt(t, filepath.Join(t.TempDir(), "back.db"), &w.now)
			rep2 := copyOrFail(t, dst, back, store.CopyOptions{})
			for i := range rep.Tables {
				if rep.Tables[i] != rep2.Tables[i] {
					t.Errorf("PostgreSQL → SQLite: %+v, SQLite → PostgreSQL: %+v", rep2.Tables[i], rep.Tables[i])
				}
			}
			w.same(w.st, back, w.ada)
			store.TextIndexHolds(t, back)
			// And to another PostgreSQL database.
			pg2 := openAt(t, storetest.PostgresDatabase(t), &w.now)
			rep3 := copyOrFail(t, dst, pg2, store.CopyOptions{})
			for i := range rep.Tables {
				if rep.Tables[i] != rep3.Tables[i] {
					t.Errorf("PostgreSQL → PostgreSQL: %+v, SQLite → PostgreSQL: %+v", rep3.Tables[i], rep.Tables[i])
				}
			}
			w.same(w.st, pg2, w.bob)
		}
		w.after(w.st, dst)
	})
}

// A target that holds data is refused, and left as it was; --replace
// swaps it whole.
func TestCopyRefusesData(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := fill(t)
		dst := openAt(t, storetest.Location(t), &w.now)
		if _, err := dst.AddPerson(w.ctx, "cy", "UTC"); err != nil {
			t.Fatal(err)
		}
		before := counts(t, dst)
		_, err := store.Copy(w.ctx, w.st, dst, store.CopyOptions{})
		if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "already holds data (people: 1)") || !strings.Contains(err.Error(), "--replace") {
			t.Fatalf("copy into a database with a person: %v", err)
		}
		if after := counts(t, dst); after != before {
			t.Fatalf("a refused copy changed the target:\n%s\n%s", before, after)
		}
		rep := copyOrFail(t, w.st, dst, store.CopyOptions{Replace: true})
		if !rep.Replaced {
			t.Error("the report does not say the target was replaced")
		}
		if _, err := dst.PersonByName(w.ctx, "cy"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("cy after --replace: %v", err)
		}
		if a, b := counts(t, w.st), counts(t, dst); a != b {
			t.Fatalf("counts differ:\nsource %s\ntarget %s", a, b)
		}
		w.same(w.st, dst, w.ada)

		if _, err := store.Copy(w.ctx, w.st, w.st, store.CopyOptions{}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("a copy onto itself: %v", err)
		}
		link := filepath.Join(t.TempDir(), "link.db")
		if err := os.Symlink(w.st.Path(), link); err != nil {
			t.Fatal(err)
		}
		_, err = store.Copy(w.ctx, w.st, openAt(t, link, &w.now), store.CopyOptions{Replace: true})
		if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "the same database") {
			t.Errorf("a copy onto itself through a link: %v", err)
		}
	})
}

// A copy that fails part way, after some tables are in, leaves the target
// empty: the error of a table, and a cancelled context.
func TestCopyFailureLeavesTargetEmpty(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := fill(t)
		dst := openAt(t, storetest.Location(t), &w.now)
		empty := counts(t, dst)
		var seen []string
		stop := errors.New("stopped by the test")
		_, err := store.Copy(w.ctx, w.st, dst, store.CopyOptions{Progress: func(table string, rows int64) error {
			seen = append(seen, table)
			if table == "events" {
				return stop
			}
			return nil
		}})
		if !errors.Is(err, stop) || len(seen) != 11 {
			t.Fatalf("stopped after %v: %v", seen, err)
		}
		if got := counts(t, dst); got != empty {
			t.Fatalf("a stopped copy left rows in the target:\n%s", got)
		}

		ctx, cancel := context.WithCancel(w.ctx)
		_, err = store.Copy(ctx, w.st, dst, store.CopyOptions{Progress: func(table string, rows int64) error {
			if table == "tasks" {
				cancel()
			}
			return nil
		}})
		if err == nil {
			t.Fatal("a copy whose context was cancelled half way succeeded")
		}
		if got := counts(t, dst); got != empty {
			t.Fatalf("a cancelled copy left rows in the target:\n%s", got)
		}
		// Nothing half-done stands in the way of the next try.
		copyOrFail(t, w.st, dst, store.CopyOptions{})
		w.same(w.st, dst, w.ada)
	})
}

// People copied one at a time into one target: each keeps their ids and
// answers as in the source; a name already there is refused (or replaced),
// and so is a person whose ids other people's rows hold in the target.
func TestCopyPerson(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := fill(t)
		dst := openAt(t, storetest.Location(t), &w.now)
		rep := copyOrFail(t, w.st, dst, store.CopyOptions{Person: "bob"})
		if rep.Person != "bob" {
			t.Fatalf("report: %+v", rep)
		}
		for _, tc := range rep.Tables {
			switch tc.Table {
			case "people", "events", "tasks", "changes":
				if tc.Rows == 0 {
					t.Errorf("bob's %s: none copied", tc.Table)
				}
			case "access_tokens", "feed_secrets", "conversations", "task_completions", "event_overrides":
				if tc.Rows != 0 {
					t.Errorf("bob's %s: %d copied, and he has none", tc.Table, tc.Rows)
				}
			}
		}
		if _, err := dst.PersonByName(w.ctx, "ada"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("ada is in the target after copying bob: %v", err)
		}
		w.same(w.st, dst, w.bob)
		_, err := store.Copy(w.ctx, w.st, dst, store.CopyOptions{Person: "bob"})
		if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "already has a person named “bob”") {
			t.Fatalf("bob copied twice: %v", err)
		}
		if _, err := store.Copy(w.ctx, w.st, dst, store.CopyOptions{Person: "zed"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a person the source lacks: %v", err)
		}
		copyOrFail(t, w.st, dst, store.CopyOptions{Person: "ada"})
		if a, b := counts(t, w.st), counts(t, dst); a != b {
			t.Fatalf("both people copied, counts differ:\nsource %s\ntarget %s", a, b)
		}
		// bob again, replacing him: the same in the end.
		copyOrFail(t, w.st, dst, store.CopyOptions{Person: "bob", Replace: true})
		if a, b := counts(t, w.st), counts(t, dst); a != b {
			t.Fatalf("bob replaced, counts differ:\nsource %s\ntarget %s", a, b)
		}
		w.after(w.st, dst)

		// A target whose own people hold ada's ids: refused, left as it was.
		other := openAt(t, storetest.Location(t), &w.now)
		cy, err := other.AddPerson(w.ctx, "cy", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.AddPerson(w.ctx, "dee", "UTC"); err != nil {
			t.Fatal(err)
		}
		w.call(other, tools.Person{ID: cy.ID, Name: "cy", Zone: tz.MustZone("UTC")}, "add_task", `{"title":"cy's own"}`)
		before := counts(t, other)
		_, err = store.Copy(w.ctx, w.st, other, store.CopyOptions{Person: "ada"})
		if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "ids are kept") {
			t.Fatalf("ada into a target whose people hold her ids: %v", err)
		}
		if after := counts(t, other); after != before {
			t.Fatalf("a refused person copy changed the target:\n%s\n%s", before, after)
		}
	})
}

// A target that changes rows as they are written (here a trigger of its
// own upper-cases task titles) fails the verification: the copy is rolled
// back and says which table differs.
func TestCopyMismatchRollsBack(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := fill(t)
		dst := openAt(t, storetest.Location(t), &w.now)
		ddl := []string{`CREATE TRIGGER shout AFTER INSERT ON tasks BEGIN UPDATE tasks SET title = upper(title) WHERE id = NEW.id; END`}
		if dst.Engine() == store.Postgres {
			ddl = []string{
				`CREATE FUNCTION shout() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.title := upper(NEW.title); RETURN NEW; END; $$`,
				`CREATE TRIGGER shout BEFORE INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION shout()`,
			}
		}
		for _, q := range ddl {
			if _, err := dst.DB().Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		empty := counts(t, dst)
		_, err := store.Copy(w.ctx, w.st, dst, store.CopyOptions{})
		if !errors.Is(err, store.ErrCopyMismatch) || !strings.Contains(err.Error(), "table tasks of the target does not match") {
			t.Fatalf("copy through a trigger that changes titles: %v", err)
		}
		if got := counts(t, dst); got != empty {
			t.Fatalf("a copy that did not verify left rows in the target:\n%s", got)
		}
	})
}

// BenchmarkCopy copies a SQLite file of 100,000 journaled tasks (so
// 100,000 change_rows with their JSON images too) into a new database of
// each engine per iteration; rows/s counts every row written.
//
//	ASSISTANT_TEST_POSTGRES=… go test -run '^$' -bench Copy -benchtime 3x ./store/
func BenchmarkCopy(b *testing.B) {
	const n = 100_000
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	ctx := context.Background()
	src, err := store.Open(ctx, filepath.Join(b.TempDir(), "big.db"), &store.Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	p, err := src.AddPerson(ctx, "ada", "Europe/Paris")
	if err != nil {
		b.Fatal(err)
	}
	for done := 0; done < n; done += 1000 {
		_, err := src.Write(ctx, p.ID, "import", func(tx *store.Tx) error {
			rows := make([]store.Row, 1000)
			for i := range rows {
				title := fmt.Sprintf("Task number %d with a title of a usual length", done+i)
				rows[i] = store.Row{"title": title, "title_norm": strings.ToLower(title), "due_date": "2026-12-01",
					"notes": "some notes\non two lines", "tags": `["work","home"]`, "created_at": now.Unix()}
			}
			_, err := tx.InsertMany("tasks", rows)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run("to="+engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			var rows int64
			for b.Loop() {
				var loc string
				if engine == storetest.Postgres {
					loc = storetest.PostgresDatabase(b)
				} else {
					loc = filepath.Join(b.TempDir(), "copy.db")
				}
				dst, err := store.Open(ctx, loc, nil)
				if err != nil {
					b.Fatal(err)
				}
				rep, err := store.Copy(ctx, src, dst, store.CopyOptions{})
				dst.Close()
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range rep.Tables {
					rows += t.Rows
				}
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
