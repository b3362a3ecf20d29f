package tasks

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// randomTasks makes n tasks: timed dues in zones on both sides of the
// date line and on DST days (a skipped and a repeated hour), floating
// days, no due, every priority, done ones (some completed in the same
// second), tags in several cases and with accents, and notes.
func randomTasks(r *rand.Rand, n int, now time.Time) []task.Task {
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"}
	days := []tz.Date{{Year: 2026, Month: 3, Day: 29}, {Year: 2026, Month: 10, Day: 25}, {Year: 2026, Month: 11, Day: 1}, {Year: 2026, Month: 3, Day: 8}}
	words := []string{"Milk", "milk", "Crème brûlée", "CAFÉ", "café", "Straße", "ab", "déjà vu", "Team\u200b sync", "e", "ÉCOLE", "plan", "x y", "Ω"}
	tagPool := []string{"home", "Home", "HOME", "Café", "café", "ſun", "SUN", "work", "K\u212a", "kk", "é"}
	base := tz.MustZone("Europe/Paris").Today(now)
	out := make([]task.Task, n)
	for i := range out {
		t := task.Task{Priority: 1 + r.IntN(4), Status: task.Open, CreatedAt: now}
		t.Title = words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		if r.IntN(3) == 0 {
			t.Notes = "notes: " + words[r.IntN(len(words))] + "\nline two " + words[r.IntN(len(words))]
		}
		for range r.IntN(3) {
			t.Tags = task.AddTag(t.Tags, tagPool[r.IntN(len(tagPool))])
		}
		day := base.AddDays(r.IntN(9) - 4)
		if r.IntN(5) == 0 {
			day = days[r.IntN(len(days))]
		}
		switch r.IntN(4) {
		case 0: // no due
		case 1:
			t.Due, t.HasDue = task.Day(day), true
		default:
			h := r.IntN(24)
			if r.IntN(4) == 0 {
				h = []int{0, 1, 2, 23}[r.IntN(4)]
			}
			t.Due, t.HasDue = task.Timed(day.At(h, 30*r.IntN(2)), tz.MustZone(zones[r.IntN(len(zones))])), true
		}
		if r.IntN(4) == 0 {
			t.Status = task.Done
			t.CompletedAt = now.Add(-time.Duration(r.IntN(5)) * time.Hour)
		}
		out[i] = t
	}
	return out
}

// listFilters are the arguments the differential test lists with.
func listFilters(r *rand.Rand) string {
	var parts []string
	if s := []string{"", "open", "done", "all"}[r.IntN(4)]; s != "" {
		parts = append(parts, fmt.Sprintf(`"status":%q`, s))
	}
	if r.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf(`"tag":%q`, []string{"home", "HOME", "café", "CAFÉ", "sun", "Sun", "kK", "é", "none"}[r.IntN(9)]))
	}
	if r.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf(`"query":%q`, []string{"milk", "MILK", "creme", "crème", "e", "ab", "cafe", "déjà", "team sync", "line two", "x y", "Ω", "zzz", "strasse"}[r.IntN(14)]))
	}
	switch r.IntN(5) {
	case 0:
		parts = append(parts, `"from":"2026-12-01"`)
	case 1:
		parts = append(parts, `"to":"2026-11-30"`)
	case 2:
		parts = append(parts, `"from":"2026-11-29T12:00","to":"2026-12-02"`)
	}
	parts = append(parts, fmt.Sprintf(`"limit":%d`, 1+r.IntN(12)))
	return "{" + strings.Join(parts, ",") + "}"
}

// pages lists with args through every page, and returns each page's text
// and Data; after the first page, between is called once.
func pages(t *testing.T, h *harness, who *tools.Person, raw string, goPath bool, between func()) []string {
	t.Helper()
	forceGoPath = goPath
	defer func() { forceGoPath = false }()
	var out []string
	cursor := ""
	for n := 0; ; n++ {
		a := raw
		if cursor != "" {
			a = strings.TrimSuffix(raw, "}") + fmt.Sprintf(`,"cursor":%q}`, cursor)
		}
		res, _ := h.Call(*who, "list_tasks", a)
		if !res.OK() && n > 0 && between != nil {
			// After between changed the zone, the cursor is refused.
			return append(out, "refused: "+res.TextOut())
		}
		if !res.OK() {
			t.Fatalf("list_tasks %s: %s", a, res.TextOut())
		}
		var d struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(res.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, res.TextOut()+"\n"+string(res.Data))
		if d.NextCursor == "" || n > 400 {
			return out
		}
		cursor = d.NextCursor
		if n == 0 && between != nil {
			between()
		}
	}
}

// The SQL path of list_tasks answers exactly as the Go path (every task
// read, filtered, sorted and cut in Go, as list_tasks did before migration
// 00012) does: page by page, text and Data, for random tasks and filters,
// also when the person's zone changes before a list or after that change
// is undone; a zone change between pages refuses the cursor.
func TestListSQLMatchesGoPath(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		h := newHarness(t, now)
		r := rand.New(rand.NewPCG(21, 12))
		if _, err := h.Store.Write(h.Ctx, h.paris.ID, "test", func(tx *store.Tx) error {
			_, err := tx.InsertTasks(randomTasks(r, 400, now))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// bob's tasks must never show in ada's lists
		if _, err := h.Store.Write(h.Ctx, h.ny.ID, "test", func(tx *store.Tx) error {
			_, err := tx.InsertTasks(randomTasks(r, 50, now))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		fresh := func(zone string) bool {
			var ok bool
			if err := h.Store.Read(h.Ctx, h.paris.ID, func(tx *store.Tx) error {
				var err error
				ok, err = tx.TaskListFresh(zone)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		}
		setZone := func(zone string) string {
			change, _, err := h.Store.SetZone(h.Ctx, h.paris.ID, zone, "test")
			if err != nil {
				t.Fatal(err)
			}
			h.paris.Zone = tz.MustZone(zone)
			return change
		}
		undo := func(change, zone string) {
			if _, err := h.Store.Undo(h.Ctx, h.paris.ID, change); err != nil {
				t.Fatal(err)
			}
			h.paris.Zone = tz.MustZone(zone)
		}
		// compare lists through both paths; with moveTo, the person's zone
		// changes to it after the first page (and back by undo after).
		compare := func(raw, moveTo string) {
			t.Helper()
			run := func(goPath bool) []string {
				was, change := h.paris.Zone.Name(), ""
				var between func()
				if moveTo != "" {
					between = func() { change = setZone(moveTo) }
				}
				out := pages(t, h, &h.paris, raw, goPath, between)
				if change != "" {
					undo(change, was)
				}
				return out
			}
			sqlPages, goPages := run(false), run(true)
			if last := sqlPages[len(sqlPages)-1]; moveTo != "" && len(sqlPages) > 1 && !strings.Contains(last, "next_cursor of this same listing") {
				t.Fatalf("list_tasks %s: a cursor from before the zone changed to %s was taken:\n%s", raw, moveTo, last)
			}
			if len(sqlPages) != len(goPages) {
				t.Fatalf("list_tasks %s: %d pages in SQL, %d in Go", raw, len(sqlPages), len(goPages))
			}
			for i := range sqlPages {
				if sqlPages[i] != goPages[i] {
					t.Fatalf("list_tasks %s, page %d:\nSQL:\n%s\nGo:\n%s", raw, i+1, sqlPages[i], goPages[i])
				}
			}
		}
		if !fresh("Europe/Paris") {
			t.Fatal("the list columns are not fresh after InsertTasks")
		}
		for range 60 {
			compare(listFilters(r), "")
		}
		// The same with a tag or a text that "many" tasks have: checked
		// per task in list order rather than read from task_tags or the
		// trigram index.
		store.TaskDriveCap, store.TaskTextCap = 3, 3
		for range 30 {
			compare(listFilters(r), "")
		}
		store.TaskDriveCap, store.TaskTextCap = 1000, 20000
		// The zone changes before listing, then back by undo.
		for _, zone := range []string{"Pacific/Kiritimati", "America/New_York"} {
			change := setZone(zone)
			if !fresh(zone) {
				t.Fatalf("the list columns were not worked out again in %s", zone)
			}
			for range 15 {
				compare(listFilters(r), "")
			}
			undo(change, "Europe/Paris")
			if !fresh("Europe/Paris") {
				t.Fatal("the list columns were not worked out again after undoing the zone change")
			}
		}
		// The zone changes between the first page and the next: the
		// cursor, whose key is of the old zone's order, is refused on both
		// paths (going on would skip or repeat tasks).
		for range 10 {
			compare(listFilters(r), "Asia/Tokyo")
		}
		// A call in another zone than the one the columns were worked out
		// in (a zone changed by another process) reads through the Go path.
		stale := h.paris
		stale.Zone = tz.MustZone("Asia/Tokyo")
		if fresh("Asia/Tokyo") {
			t.Fatal("columns of Europe/Paris read as fresh for Asia/Tokyo")
		}
		raw := `{"status":"all","limit":7}`
		a, b := pages(t, h, &stale, raw, false, nil), pages(t, h, &stale, raw, true, nil)
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Fatalf("the stale-zone list differs from the Go path:\n%s\n---\n%s", a, b)
		}
	})
}

// A list in a zone other than the one the list columns were worked out
// in (another process changed the person's zone meanwhile) is read the
// Go way: TaskPage says so in the count's statement (Stale) and the
// answer is the Go path's, page by page, on both engines.
func TestListStaleColumnsReadTheGoWay(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		h := newHarness(t, now)
		r := rand.New(rand.NewPCG(5, 21))
		if _, err := h.Store.Write(h.Ctx, h.paris.ID, "test", func(tx *store.Tx) error {
			_, err := tx.InsertTasks(randomTasks(r, 120, now))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, zone := range []string{"Europe/Paris", "Pacific/Kiritimati"} {
			for _, query := range []string{"", "milk"} {
				var p store.TaskPage
				if err := h.Store.Read(h.Ctx, h.paris.ID, func(tx *store.Tx) error {
					var err error
					p, err = tx.TaskPage(store.TaskQuery{Status: "open", Query: query, Limit: 10, Cap: TotalCap, Zone: zone})
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if want := zone != "Europe/Paris"; p.Stale != want || want && len(p.Tasks) > 0 {
					t.Errorf("zone %s, query %q: Stale %v with %d tasks, want Stale %v", zone, query, p.Stale, len(p.Tasks), want)
				}
			}
		}
		elsewhere := h.paris
		elsewhere.Zone = tz.MustZone("Pacific/Kiritimati")
		for range 12 {
			raw := listFilters(r)
			got, want := pages(t, h, &elsewhere, raw, false, nil), pages(t, h, &elsewhere, raw, true, nil)
			if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
				t.Fatalf("list_tasks %s in another zone than the columns':\n%s\nGo path:\n%s", raw, strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
			}
		}
	})
}
