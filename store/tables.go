package store

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// The allow-list of journaled tables. Table names reach SQL text (they
// cannot be bound parameters), so only names registered by code at init
// time are ever interpolated; a name from anywhere else is refused.
var (
	tablesMu sync.RWMutex
	tables   = map[string]string{} // table → id prefix for labels ("t" → t12)
)

var tableName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// RegisterTable adds a journaled table to the allow-list of Tx.Insert,
// Update, Delete, Get, Undo and Purge. Call it from an init function of the
// package that owns the table's migration. The table must follow the
// convention: id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES
// people(id) ON DELETE CASCADE, deleted_at TEXT (NULL while live),
// updated_at TEXT (both RFC 3339 UTC, "2026-10-05T07:00:00Z"). Ids of its
// rows are shown with the table's first letter ("tasks" → t12); use
// RegisterTableAs to choose another prefix. It panics on a name that is not
// a lower-case SQL identifier, or a table registered twice with different
// prefixes, since both are mistakes in code.
func RegisterTable(name string) {
	RegisterTableAs(name, name[:1])
}

// RegisterTableAs is RegisterTable with the prefix that labels the table's
// rows in sentences and in list_changes ("eo" → eo5).
func RegisterTableAs(name, prefix string) {
	if !tableName.MatchString(name) || prefix == "" {
		panic(fmt.Sprintf("store: RegisterTable(%q, %q): the name must be a lower-case SQL identifier and the prefix not empty", name, prefix))
	}
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if p, ok := tables[name]; ok && p != prefix {
		panic(fmt.Sprintf("store: table %q registered twice, with prefixes %q and %q", name, p, prefix))
	}
	tables[name] = prefix
}

// Tables lists the registered journaled tables, sorted.
func Tables() []string {
	tablesMu.RLock()
	defer tablesMu.RUnlock()
	out := make([]string, 0, len(tables))
	for t := range tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func registered(name string) (prefix string, ok bool) {
	tablesMu.RLock()
	defer tablesMu.RUnlock()
	prefix, ok = tables[name]
	return
}

// label is how a row is named to people and models: prefix and id, "t12".
func label(table string, id int64) string {
	p, ok := registered(table)
	if !ok {
		p = table + " "
	}
	return fmt.Sprintf("%s%d", p, id)
}

// columns returns a registered table's columns, read once per Store from
// the schema (migrations run before any Tx, so it does not change while
// the Store is open).
func (s *Store) columns(ctx context.Context, q querier, table string) ([]string, error) {
	if _, ok := registered(table); !ok {
		return nil, fmt.Errorf("store: table %q is not registered with store.RegisterTable", table)
	}
	s.colMu.Lock()
	cols, ok := s.cols[table]
	s.colMu.Unlock()
	if ok {
		return cols, nil
	}
	cq := `SELECT name FROM pragma_table_info(?) ORDER BY cid`
	if s.engine == Postgres {
		cq = `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`
	}
	rows, err := q.QueryContext(ctx, cq, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, need := range []string{"id", "owner_id", "deleted_at", "updated_at"} {
		if !contains(cols, need) {
			return nil, fmt.Errorf("store: table %q has no column %q; journaled tables need id, owner_id, deleted_at and updated_at (is its migration applied?)", table, need)
		}
	}
	s.colMu.Lock()
	s.cols[table] = cols
	s.colMu.Unlock()
	return cols, nil
}

// imageReturning is the RETURNING clause of a journaled write of table,
// whose columns are cols: the columns its image keeps (not the derived
// ones encodeRow leaves out), so the statement hands over no value that
// is thrown away.
func (s *Store) imageReturning(table string, cols []string) string {
	s.colMu.Lock()
	defer s.colMu.Unlock()
	if r, ok := s.returning[table]; ok {
		return r
	}
	keep := make([]string, 0, len(cols))
	for _, c := range cols {
		if !derivedColumn(c) {
			keep = append(keep, c)
		}
	}
	r := ` RETURNING ` + strings.Join(keep, ", ")
	if s.returning == nil {
		s.returning = map[string]string{}
	}
	s.returning[table] = r
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
