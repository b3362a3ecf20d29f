package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/store/storetest"
)

// TestInsertsDrawEventGeneration adds events and overrides by every
// method of the store that inserts them, in one write: each must leave a
// generation that differs from the one before it, read in the same
// transaction, and the committed write one that another Store (another
// process) reads as new. On SQLite the store draws it (migration 00034),
// on PostgreSQL the statement triggers do.
func TestInsertsDrawEventGeneration(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		other, err := Open(f.ctx, f.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		seen := func(s *Store) int64 {
			t.Helper()
			var gen int64
			if err := s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
				gen, _, err = tx.EventGeneration()
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return gen
		}
		n := 0
		next := func() *calendar.Event {
			n++
			e := weekly(t)
			e.UID = "gen" + strconv.Itoa(n) + "@test"
			return e
		}
		var base *calendar.Event
		before := seen(other)
		f.events(t, f.alice.ID, func(tx *Tx) error {
			gen, _, err := tx.EventGeneration()
			if err != nil {
				return err
			}
			step := func(what string, insert func() error) {
				t.Helper()
				if err := insert(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				now, ok, err := tx.EventGeneration()
				if err != nil || !ok || now == gen {
					t.Errorf("after %s the generation is %d (present %v, %v), before %d; want a new one", what, now, ok, err, gen)
				}
				gen = now
			}
			step("InsertEvent", func() error { base = next(); _, err := tx.InsertEvent(base); return err })
			step("InsertEvents", func() error {
				return tx.InsertEvents([]*calendar.Event{next(), next()}, [][]*calendar.Override{nil, nil})
			})
			step("Insert into events", func() error { _, err := tx.Insert(EventsTable, eventRow(next(), nil)); return err })
			step("InsertMany into events", func() error {
				_, err := tx.InsertMany(EventsTable, []Row{eventRow(next(), nil), eventRow(next(), nil)})
				return err
			})
			step("InsertValues into events", func() error {
				_, err := tx.InsertValues(EventsTable, eventCols, [][]any{eventValues(next(), nil)})
				return err
			})
			step("InsertOverride", func() error {
				return tx.InsertOverride(&calendar.Override{EventID: base.ID, Key: "20261005T070000Z", Cancel: true}, t0)
			})
			step("InsertOverrides", func() error {
				return tx.InsertOverrides([]*calendar.Override{{EventID: base.ID, Key: "20261019T070000Z", Cancel: true}}, t0)
			})
			step("InsertMany into event_overrides", func() error {
				row := overrideRow(&calendar.Override{EventID: base.ID, Key: "20261026T070000Z", Cancel: true})
				row["created_at"] = t0.Unix()
				_, err := tx.InsertMany(OverridesTable, []Row{row})
				return err
			})
			return nil
		})
		if after := seen(other); after == before {
			t.Errorf("another store reads the generation %d after the inserts, as before them", after)
		}
	})
}

// TestEventInsertsGoThroughTheStore is the other half of
// TestInsertsDrawEventGeneration: on SQLite no trigger draws the event
// generation when rows are inserted (migration 00034), so every INSERT
// the store's code can send to events or event_overrides must be one of
// the ways that draws it (insertIf and insertRows, after insertRuns'
// bumpEventGeneration), or PostgreSQL's own (insertUnnest), or a copy
// of a whole database, which copies the generations too (copier.insert).
// A new INSERT naming those tables, or building its table's name, fails
// here until it draws the generation and is listed.
func TestEventInsertsGoThroughTheStore(t *testing.T) {
	drawing := []string{"Tx.insertIf", "Tx.insertRows", "Tx.insertUnnest", "copier.insert"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, _ := d.(*ast.FuncDecl)
			ast.Inspect(d, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for rest := s; ; {
					i := strings.Index(strings.ToUpper(rest), "INSERT INTO ")
					if i < 0 {
						break
					}
					rest = rest[i+len("INSERT INTO "):]
					table := strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == '(' || r == '\n' || r == '\t' })
					where := fset.Position(lit.Pos())
					switch {
					case len(table) > 0 && (table[0] == EventsTable || table[0] == OverridesTable):
						t.Errorf("%s: an INSERT INTO %s of its own; add the rows with Insert, InsertMany or InsertValues", where, table[0])
					case len(table) == 0 || rest == "" || strings.HasPrefix(rest, " "):
						found++
						if !slices.Contains(drawing, funcName(fn)) {
							t.Errorf("%s: an INSERT whose table is built outside the ways that draw the event generation %v", where, drawing)
						}
					}
				}
				return true
			})
		}
	}
	if found == 0 {
		t.Error("found no INSERT whose table is built: the check reads nothing")
	}
}

// funcName is fn's name, its receiver's type first ("copier.insert").
func funcName(fn *ast.FuncDecl) string {
	if fn == nil {
		return ""
	}
	if fn.Recv != nil && len(fn.Recv.List) == 1 {
		typ := fn.Recv.List[0].Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			return id.Name + "." + fn.Name.Name
		}
	}
	return fn.Name.Name
}
