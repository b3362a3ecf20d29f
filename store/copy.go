package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/assistant-dev/assistant/args"
)

// ErrCopyMismatch is wrapped by the error of a [Copy] whose target, read
// back before committing, does not hold what the source holds (another row
// count or checksum for some table): the copy was rolled back.
var ErrCopyMismatch = errors.New("the copy does not match the source")

// CopyOptions says what [Copy] moves. The zero value copies the whole
// database into an empty one.
type CopyOptions struct {
	// Person, when not "", copies only the person of that name (as
	// `assistant person list` shows it) with everything of theirs, into a
	// target that may hold other people; "" copies every person and every
	// row.
	Person string
	// Replace deletes what the target holds first, in the same
	// transaction as the copy: for a whole copy, everything; for a person
	// copy, the target's person of that name with everything of theirs.
	// Without it such a target is refused with ErrConflict.
	Replace bool
	// Progress, when set, is called after each table is copied with the
	// table's name and how many rows it got. An error it returns stops the
	// copy, which is rolled back, and is returned wrapped.
	Progress func(table string, rows int64) error
}

// CopyReport says what [Copy] moved and verified.
type CopyReport struct {
	From, To string // the source's and the target's Path (a file path, or a URL without its password)
	Person   string // the person copied, as stored; "" for the whole database
	Replaced bool   // Replace deleted rows the target held before
	// Tables lists every table in the order copied (people first), with
	// the rows copied and their checksum, equal in source and target.
	Tables []TableCopy
}

// TableCopy is one table of a [CopyReport].
type TableCopy struct {
	Table string // "tasks"
	Rows  int64  // rows copied (for a person copy: that person's rows)
	// Sum is the hex SHA-256 of the rows in primary-key order (text keys
	// in byte order), each value encoded by its type as read through
	// database/sql (NULL, integer, real, text, blob), computed alike on
	// both engines.
	Sum string
}

// copyTable is one table a Copy moves, in an order where every row's
// references already exist when it is inserted (people first).
type copyTable struct {
	name string
	// key is the primary key, the order rows are read, written and summed
	// in; textKey are those of its columns that hold text, ordered by
	// bytes on PostgreSQL (COLLATE "C") as SQLite orders them.
	key, textKey []string
	// of picks one person's rows, with one ? for their id.
	of string
	// identity: id is an identity column on PostgreSQL, whose sequence
	// the copy moves past the largest id.
	identity bool
	// later are columns referring to rows of the same table that may come
	// later in key order (an undone change names its undo): inserted as
	// NULL, set once every row is in.
	later []string
	// upsert: rows may exist already because a trigger made them while
	// other tables were copied (event_generations); the copy overwrites.
	upsert bool
}

// copyTables are every table of the schema but goose's own. A table the
// source has and this list lacks makes Copy refuse, so a new migration's
// table cannot be left behind silently.
var copyTables = []copyTable{
	{name: "people", key: []string{"id"}, of: "id = ?", identity: true},
	{name: "changes", key: []string{"id"}, of: "owner_id = ?", identity: true, later: []string{"undoes", "undone_by"}},
	{name: "change_rows", key: []string{"change_id", "seq"}, of: "change_id IN (SELECT id FROM changes WHERE owner_id = ?)"},
	{name: "idempotency_keys", key: []string{"owner_id", "tool", "key"}, textKey: []string{"tool", "key"}, of: "owner_id = ?"},
	{name: "access_tokens", key: []string{"id"}, of: "person_id = ?", identity: true},
	{name: "feed_secrets", key: []string{"id"}, of: "person_id = ?", identity: true},
	{name: "conversations", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "messages", key: []string{"conversation_id", "seq"}, of: "owner_id = ?"},
	{name: "tasks", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "task_completions", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "events", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "event_overrides", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "event_generations", key: []string{"person_id"}, of: "person_id = ?", upsert: true},
	{name: "reminder_deliveries", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "reminder_snoozes", key: []string{"id"}, of: "owner_id = ?", identity: true},
	{name: "remind_next", key: []string{"owner_id", "item"}, textKey: []string{"item"}, of: "owner_id = ?"},
	{name: "remind_state", key: []string{"owner_id"}, of: "owner_id = ?"},
	{name: "dav_objects", key: []string{"owner_id", "collection", "name"}, textKey: []string{"collection", "name"}, of: "owner_id = ?"},
}

// copyBatch is the most rows one INSERT of a Copy carries (fewer for wide
// tables, so the bound parameters stay well under SQLite's 32766 and
// PostgreSQL's 65535); the rows of a batch are all a Copy holds in memory.
const (
	copyBatch     = 256
	copyMaxParams = 8192
)

// Copy copies the database of from into to, or one person of it
// (opts.Person), keeping every id as it is (the journal, undo and the
// reminder bookkeeping refer to them), so the target answers every tool
// call as the source did: every table, people first, each read in
// primary-key order from one snapshot of from and streamed into to (COPY
// FROM on PostgreSQL, multi-row INSERTs of at most a few hundred rows on
// SQLite), so memory stays bounded whatever the size.
//
// All of it is one transaction on to: after the rows, each PostgreSQL
// identity sequence is moved past the largest id, then every copied table
// is read back and its row count and checksum (see [TableCopy]) compared
// with the source's; only when all match is it committed. Any error, or a
// mismatch, rolls everything back, so the target holds the whole copy or
// nothing of it. from is only read. Either store may be of either engine.
//
// Errors, each one sentence: ErrInvalid when from and to are one database
// or their schema versions differ, or the source has a table this binary
// does not know; ErrNotFound when opts.Person is no person of from, or
// from holds no person at all;
// ErrConflict when the target already holds data (any row, for a whole
// copy; a person of that name, for a person copy) and opts.Replace is not
// set, or when a row's id is already taken in the target by another
// person's row (ids are kept, not renumbered: copy such a person into a
// database without those ids); ErrCopyMismatch when the read-back differs.
func Copy(ctx context.Context, from, to *Store, opts CopyOptions) (CopyReport, error) {
	rep := CopyReport{From: from.Path(), To: to.Path()}
	if from.Engine() == to.Engine() && (from.Path() == to.Path() || from.engine != Postgres && sameFile(from.Path(), to.Path())) {
		return rep, fmt.Errorf("the source and the target are the same database “%s”; name another target: %w", to.Path(), ErrInvalid)
	}
	if to.readOnly {
		return rep, fmt.Errorf("the target “%s” is open for reading only; it must be written: %w", to.Path(), ErrInvalid)
	}
	fv, err := from.dbVersion(ctx)
	if err != nil {
		return rep, fmt.Errorf("cannot read the schema version of the source “%s”: %w", from.Path(), err)
	}
	tv, err := to.dbVersion(ctx)
	if err != nil {
		return rep, fmt.Errorf("cannot read the schema version of the target “%s”: %w", to.Path(), err)
	}
	if fv != tv {
		return rep, fmt.Errorf("the source “%s” has schema version %d and the target “%s” %d; open both with this assistant (which brings them up to date) and copy again: %w", from.Path(), fv, to.Path(), tv, ErrInvalid)
	}

	// One snapshot of the source: what is copied and what is compared.
	ropt := &sql.TxOptions{ReadOnly: true}
	if from.engine == Postgres {
		ropt.Isolation = sql.LevelRepeatableRead
	}
	src, err := from.db.BeginTx(ctx, ropt)
	if err != nil {
		return rep, fmt.Errorf("cannot read the source “%s”: %w", from.Path(), err)
	}
	defer src.Rollback()
	if err := knownTables(ctx, from, src); err != nil {
		return rep, err
	}

	var person int64 // 0: the whole database
	if opts.Person != "" {
		p, err := scanPerson(src.QueryRowContext(ctx, `SELECT `+personCols+` FROM people WHERE name = ?`, cleanName(opts.Person)))
		if errors.Is(err, sql.ErrNoRows) {
			return rep, fmt.Errorf("the source “%s” has no person named %s; `assistant person list` shows who it has: %w", from.Path(), args.Quote(opts.Person), ErrNotFound)
		}
		if err != nil {
			return rep, fmt.Errorf("cannot read the source “%s”: %w", from.Path(), err)
		}
		person, rep.Person = p.ID, p.Name
	} else {
		var n int64
		if err := src.QueryRowContext(ctx, `SELECT count(*) FROM people`).Scan(&n); err != nil {
			return rep, fmt.Errorf("cannot read the source “%s”: %w", from.Path(), err)
		}
		if n == 0 {
			return rep, fmt.Errorf("the source “%s” holds no one, so there is nothing to copy; name the database to copy with --db: %w", from.Path(), ErrNotFound)
		}
	}

	c := &copier{ctx: ctx, from: from, to: to, src: src, person: person}
	end, err := c.begin()
	if err != nil {
		return rep, fmt.Errorf("cannot start writing to the target “%s”: %w", to.Path(), err)
	}
	defer end()
	if err := c.makeRoom(opts.Replace, rep.Person); err != nil {
		return rep, err
	}
	rep.Replaced = c.replaced

	sums := make([]TableCopy, 0, len(copyTables))
	for _, t := range copyTables {
		cols, err := c.columns(t.name)
		if err != nil {
			return rep, err
		}
		tc, err := c.copyRows(t, cols)
		if err != nil {
			return rep, err
		}
		sums = append(sums, tc)
		if opts.Progress != nil {
			if err := opts.Progress(t.name, tc.Rows); err != nil {
				return rep, fmt.Errorf("the copy was stopped after table %s, and nothing of it was kept: %w", t.name, err)
			}
		}
	}
	for _, t := range copyTables {
		if len(t.later) > 0 {
			if err := c.setLater(t); err != nil {
				return rep, err
			}
		}
	}
	if to.engine == Postgres {
		for _, t := range copyTables {
			if t.identity {
				if err := c.moveSequence(t.name); err != nil {
					return rep, err
				}
			}
		}
	}
	for i, t := range copyTables {
		cols, _ := c.columns(t.name)
		got, err := c.sum(c.dst, to, t, cols)
		if err != nil {
			return rep, fmt.Errorf("cannot read table %s back from the target “%s”: %w", t.name, to.Path(), err)
		}
		want := sums[i]
		if got.Rows != want.Rows || got.Sum != want.Sum {
			return rep, fmt.Errorf("table %s of the target does not match the source after copying (%d rows with checksum %.12s in the source, %d with %.12s in the target), so nothing was kept; report this with both databases' engines: %w",
				t.name, want.Rows, want.Sum, got.Rows, got.Sum, ErrCopyMismatch)
		}
	}
	if err := c.dst.Commit(); err != nil {
		return rep, fmt.Errorf("cannot commit the copy to the target “%s” (nothing of it was kept): %w", to.Path(), err)
	}
	rep.Tables = sums
	return rep, nil
}

// sameFile reports whether two paths name one file (a link, another
// spelling).
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// copier is one Copy under way: the source's snapshot, the target's
// transaction, and the person copied (0 for all).
type copier struct {
	ctx      context.Context
	from, to *Store
	src, dst sqlTx
	conn     *sql.Conn // PostgreSQL: the connection dst runs on
	person   int64
	replaced bool
	cols     map[string][]string
}

// begin starts the target's transaction: beginWrite's for SQLite; on
// PostgreSQL the same (READ COMMITTED holding the person's advisory lock)
// on a connection of its own, whose pgx connection copyRows reaches for
// COPY FROM.
func (c *copier) begin() (end func(), err error) {
	if c.to.engine != Postgres {
		c.dst, end, err = c.to.beginWrite(c.ctx, c.person)
		return end, err
	}
	c.conn, err = c.to.db.Conn(c.ctx)
	if err != nil {
		return nil, err
	}
	c.dst, err = c.conn.BeginTx(c.ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		c.conn.Close()
		return nil, err
	}
	end = func() { c.dst.Rollback(); c.conn.Close() }
	if c.person != 0 {
		if _, err := c.dst.ExecContext(c.ctx, `SELECT pg_advisory_xact_lock(?)`, c.person); err != nil {
			end()
			return nil, err
		}
	}
	return end, nil
}

// knownTables refuses a source with a table Copy would leave behind.
func knownTables(ctx context.Context, s *Store, q sqlTx) error {
	lq := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	if s.engine == Postgres {
		lq = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	rows, err := q.QueryContext(ctx, lq)
	if err != nil {
		return fmt.Errorf("cannot list the tables of the source “%s”: %w", s.Path(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if name == versionTable || derivedTable(name) || slices.ContainsFunc(copyTables, func(t copyTable) bool { return t.name == name }) {
			continue
		}
		return fmt.Errorf("the source “%s” has a table “%s” that this assistant does not know how to copy, and a copy without it would lose its rows; copy with the assistant that made it, or move the table away first: %w", s.Path(), name, ErrInvalid)
	}
	return rows.Err()
}

// derivedTable reports the tables triggers keep from tasks' derived
// columns (migration 00012): the copied tasks fill them in the target.
func derivedTable(name string) bool {
	return name == "task_tags" || name == "tasks_fts" || strings.HasPrefix(name, "tasks_fts_")
}

// where is the WHERE clause picking t's rows to copy, and its arguments.
func (c *copier) where(t copyTable) (string, []any) {
	if c.person == 0 {
		return "", nil
	}
	return ` WHERE ` + t.of, []any{c.person}
}

// orderBy is t's key order on s's engine: text in byte order on both.
func orderBy(s *Store, t copyTable) string {
	parts := make([]string, len(t.key))
	for i, k := range t.key {
		parts[i] = k
		if s.engine == Postgres && slices.Contains(t.textKey, k) {
			parts[i] += ` COLLATE "C"`
		}
	}
	return ` ORDER BY ` + strings.Join(parts, ", ")
}

// columns are table's columns, in the source's order, after checking the
// target has the same ones.
func (c *copier) columns(table string) ([]string, error) {
	if cols, ok := c.cols[table]; ok {
		return cols, nil
	}
	fc, err := tableColumns(c.ctx, c.from, c.src, table)
	if err != nil {
		return nil, fmt.Errorf("cannot read the columns of table %s in the source “%s”: %w", table, c.from.Path(), err)
	}
	tc, err := tableColumns(c.ctx, c.to, c.dst, table)
	if err != nil {
		return nil, fmt.Errorf("cannot read the columns of table %s in the target “%s”: %w", table, c.to.Path(), err)
	}
	a, b := slices.Clone(fc), slices.Clone(tc)
	slices.Sort(a)
	slices.Sort(b)
	if len(fc) == 0 || !slices.Equal(a, b) {
		return nil, fmt.Errorf("table %s has the columns %s in the source and %s in the target, so it cannot be copied as it is; open both with this assistant (which brings them up to date) and copy again: %w",
			table, strings.Join(fc, ", "), strings.Join(tc, ", "), ErrInvalid)
	}
	if c.cols == nil {
		c.cols = map[string][]string{}
	}
	c.cols[table] = fc
	return fc, nil
}

func tableColumns(ctx context.Context, s *Store, q sqlTx, table string) ([]string, error) {
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
	var cols []string
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return cols, rows.Err()
}

// makeRoom checks that the target has room for the copy, deleting what is
// in the way when replace is set. name is the person copied ("" for all).
func (c *copier) makeRoom(replace bool, name string) error {
	if c.person == 0 {
		var held []string
		for _, t := range copyTables {
			var n int64
			if err := c.dst.QueryRowContext(c.ctx, `SELECT count(*) FROM `+t.name).Scan(&n); err != nil {
				return fmt.Errorf("cannot read the target “%s”: %w", c.to.Path(), err)
			}
			if n > 0 {
				held = append(held, fmt.Sprintf("%s: %d", t.name, n))
			}
		}
		if len(held) == 0 {
			return nil
		}
		if !replace {
			return fmt.Errorf("the target “%s” already holds data (%s); copy into a new, empty database, or add --replace to delete everything it holds first: %w",
				c.to.Path(), strings.Join(held, ", "), ErrConflict)
		}
		// Every table refers to people with ON DELETE CASCADE; the
		// generations outlive people by design, and deleting events
		// writes them, so they go last.
		for _, q := range []string{`DELETE FROM people`, `DELETE FROM event_generations`} {
			if _, err := c.dst.ExecContext(c.ctx, q); err != nil {
				return fmt.Errorf("cannot delete what the target “%s” holds: %w", c.to.Path(), err)
			}
		}
		c.replaced = true
		return nil
	}
	var there int64
	err := c.dst.QueryRowContext(c.ctx, `SELECT id FROM people WHERE name = ?`, name).Scan(&there)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read the target “%s”: %w", c.to.Path(), err)
	}
	if !replace {
		return fmt.Errorf("the target “%s” already has a person named %s; add --replace to delete them there, with everything of theirs, before copying: %w",
			c.to.Path(), args.Quote(name), ErrConflict)
	}
	if c.to.engine == Postgres && there != c.person {
		if _, err := c.dst.ExecContext(c.ctx, `SELECT pg_advisory_xact_lock(?)`, there); err != nil {
			return fmt.Errorf("cannot write to the target “%s”: %w", c.to.Path(), err)
		}
	}
	for _, q := range []string{`DELETE FROM people WHERE id = ?`, `DELETE FROM event_generations WHERE person_id = ?`} {
		if _, err := c.dst.ExecContext(c.ctx, q, there); err != nil {
			return fmt.Errorf("cannot delete %s from the target “%s”: %w", args.Quote(name), c.to.Path(), err)
		}
	}
	c.replaced = true
	return nil
}

// copyRows streams t's rows from the source into the target and returns
// their count and checksum as read from the source. On PostgreSQL the
// rows go through one COPY FROM (pgx's CopyFrom, on the connection of the
// target's transaction), streamed as they are read; otherwise, and for
// upserted tables, through multi-row INSERTs of at most copyBatch rows.
func (c *copier) copyRows(t copyTable, cols []string) (TableCopy, error) {
	tc := TableCopy{Table: t.name}
	where, wargs := c.where(t)
	rows, err := c.src.QueryContext(c.ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+t.name+where+orderBy(c.from, t), wargs...)
	if err != nil {
		return tc, fmt.Errorf("cannot read table %s of the source “%s”: %w", t.name, c.from.Path(), err)
	}
	defer rows.Close()
	rs := newRowSource(rows, cols, t.later)
	if c.conn != nil && !t.upsert {
		err = c.conn.Raw(func(dc any) error {
			rc, ok := dc.(*pipeConn) // see rebindConnector
			if !ok {
				return errors.New("the target's connection is not pgx's")
			}
			_, err := rc.Conn.Conn().CopyFrom(c.ctx, pgx.Identifier{t.name}, cols, rs)
			return err
		})
		if rs.err != nil {
			return tc, fmt.Errorf("cannot read table %s of the source “%s”: %w", t.name, c.from.Path(), rs.err)
		}
		if err != nil {
			return tc, c.insertError(t, err)
		}
	} else {
		per := max(1, min(copyBatch, copyMaxParams/len(cols)))
		batch := make([]any, 0, per*len(cols))
		for rs.Next() {
			for _, v := range rs.out {
				batch = append(batch, ownBytes(v))
			}
			if len(batch) == per*len(cols) {
				if err := c.insert(t, cols, batch); err != nil {
					return tc, err
				}
				batch = batch[:0]
			}
		}
		if err := rs.Err(); err != nil {
			return tc, fmt.Errorf("cannot read table %s of the source “%s”: %w", t.name, c.from.Path(), err)
		}
		if len(batch) > 0 {
			if err := c.insert(t, cols, batch); err != nil {
				return tc, err
			}
		}
	}
	tc.Rows, tc.Sum = rs.n, hex.EncodeToString(rs.h.Sum(nil))
	return tc, nil
}

// rowSource reads a table's rows from the source one at a time, adding
// each to the checksum, and hands them on with the later columns NULL: a
// pgx.CopyFromSource, and the loop of the INSERT path.
type rowSource struct {
	rows    *sql.Rows
	vals    []any // as read
	ptrs    []any
	out     []any // as written
	later   []bool
	h       hash.Hash
	scratch []byte
	n       int64
	err     error
}

func newRowSource(rows *sql.Rows, cols, later []string) *rowSource {
	rs := &rowSource{rows: rows, vals: make([]any, len(cols)), ptrs: make([]any, len(cols)), out: make([]any, len(cols)),
		later: make([]bool, len(cols)), h: sha256.New()}
	for i, col := range cols {
		rs.ptrs[i] = &rs.vals[i]
		rs.later[i] = slices.Contains(later, col)
	}
	return rs
}

// Next reads the next row; false at the end or on an error (see Err).
func (rs *rowSource) Next() bool {
	if rs.err != nil || !rs.rows.Next() {
		return false
	}
	if rs.err = rs.rows.Scan(rs.ptrs...); rs.err != nil {
		return false
	}
	if rs.scratch, rs.err = sumRow(rs.h, rs.scratch, rs.vals); rs.err != nil {
		return false
	}
	rs.n++
	for i, v := range rs.vals {
		if rs.later[i] {
			v = nil
		}
		rs.out[i] = v
	}
	return true
}

// Values is the row Next read, valid until the next call of Next.
func (rs *rowSource) Values() ([]any, error) { return rs.out, rs.err }

// Err is why Next stopped early, if it did.
func (rs *rowSource) Err() error {
	if rs.err != nil {
		return rs.err
	}
	return rs.rows.Err()
}

// ownBytes copies a []byte that database/sql may reuse on the next Scan.
func ownBytes(v any) any {
	if b, ok := v.([]byte); ok {
		return slices.Clone(b)
	}
	return v
}

// insert writes the rows in vals (len(cols) values a row) to t in one
// statement.
func (c *copier) insert(t copyTable, cols []string, vals []any) error {
	n := len(vals) / len(cols)
	one := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
	var b strings.Builder
	b.WriteString(`INSERT INTO ` + t.name + ` (` + strings.Join(cols, ", ") + `) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	if t.upsert {
		var set []string
		for _, col := range cols {
			if !slices.Contains(t.key, col) {
				set = append(set, col+" = excluded."+col)
			}
		}
		b.WriteString(` ON CONFLICT (` + strings.Join(t.key, ", ") + `) DO UPDATE SET ` + strings.Join(set, ", "))
	}
	if _, err := c.dst.ExecContext(c.ctx, b.String(), vals...); err != nil {
		return c.insertError(t, err)
	}
	return nil
}

// insertError is the sentence of a refused INSERT into t.
func (c *copier) insertError(t copyTable, err error) error {
	if uniqueViolation(err) {
		if c.person != 0 {
			return fmt.Errorf("the target “%s” already uses some ids of this person's rows in table %s for other rows; ids are kept as they are (the journal and undo refer to them), so copy this person into a database without those ids (a new one, for example), and nothing was copied: %w", c.to.Path(), t.name, ErrConflict)
		}
		return fmt.Errorf("the target “%s” refused a row of table %s as a duplicate, so nothing was copied; copy into a new, empty database: %w", c.to.Path(), t.name, ErrConflict)
	}
	return fmt.Errorf("cannot write table %s to the target “%s”, so nothing was copied: %w", t.name, c.to.Path(), err)
}

// uniqueViolation reports a duplicate key: PostgreSQL's 23505, SQLite's
// SQLITE_CONSTRAINT_PRIMARYKEY (1555) or SQLITE_CONSTRAINT_UNIQUE (2067).
func uniqueViolation(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	var coded interface{ Code() int }
	return errors.As(err, &coded) && (coded.Code() == 1555 || coded.Code() == 2067)
}

// setLater sets t's later columns on the target, from a second read of the
// source's rows where any of them is not NULL, in batches.
func (c *copier) setLater(t copyTable) error {
	where, wargs := c.where(t)
	var some []string
	for _, col := range t.later {
		some = append(some, col+" IS NOT NULL")
	}
	if where == "" {
		where = ` WHERE `
	} else {
		where += ` AND `
	}
	where += `(` + strings.Join(some, " OR ") + `)`
	key := t.key[0] // tables with later columns have an id key
	cols := append([]string{key}, t.later...)
	rows, err := c.src.QueryContext(c.ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+t.name+where+orderBy(c.from, t), wargs...)
	if err != nil {
		return fmt.Errorf("cannot read table %s of the source “%s”: %w", t.name, c.from.Path(), err)
	}
	defer rows.Close()
	// UPDATE … FROM (VALUES …) works on both engines (SQLite 3.33+); the
	// casts give PostgreSQL the VALUES columns' types.
	one := "(CAST(? AS BIGINT)" + strings.Repeat(", CAST(? AS BIGINT)", len(t.later)) + ")"
	var set []string
	for i, col := range t.later {
		set = append(set, fmt.Sprintf("%s = v.column%d", col, i+2))
	}
	per := copyBatch
	batch := make([]any, 0, per*len(cols))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		n := len(batch) / len(cols)
		q := `UPDATE ` + t.name + ` SET ` + strings.Join(set, ", ") + ` FROM (VALUES ` + one + strings.Repeat(", "+one, n-1) +
			`) AS v WHERE ` + t.name + `.` + key + ` = v.column1`
		if _, err := c.dst.ExecContext(c.ctx, q, batch...); err != nil {
			return fmt.Errorf("cannot write table %s to the target “%s”, so nothing was copied: %w", t.name, c.to.Path(), err)
		}
		batch = batch[:0]
		return nil
	}
	vals := make([]sql.NullInt64, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("cannot read table %s of the source “%s”: %w", t.name, c.from.Path(), err)
		}
		for _, v := range vals {
			if v.Valid {
				batch = append(batch, v.Int64)
			} else {
				batch = append(batch, nil)
			}
		}
		if len(batch) == per*len(cols) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cannot read table %s of the source “%s”: %w", t.name, c.from.Path(), err)
	}
	return flush()
}

// moveSequence moves the identity sequence of table's id past the largest
// id, so the next row the target makes gets a new one; a sequence already
// further on (ids of rows since deleted) stays where it is.
func (c *copier) moveSequence(table string) error {
	fail := func(err error) error {
		return fmt.Errorf("cannot move the id sequence of table %s in the target “%s”: %w", table, c.to.Path(), err)
	}
	var seq sql.NullString
	if err := c.dst.QueryRowContext(c.ctx, `SELECT pg_get_serial_sequence(?, 'id')`, table).Scan(&seq); err != nil {
		return fail(err)
	}
	var top sql.NullInt64
	if err := c.dst.QueryRowContext(c.ctx, `SELECT max(id) FROM `+table).Scan(&top); err != nil {
		return fail(err)
	}
	if !seq.Valid || !top.Valid {
		return nil
	}
	// seq is the sequence's name as the server quotes it; it is not a
	// value, so it cannot be bound where a table is read.
	var last int64
	var called bool
	if err := c.dst.QueryRowContext(c.ctx, `SELECT last_value, is_called FROM `+seq.String).Scan(&last, &called); err != nil {
		return fail(err)
	}
	if !called {
		last--
	}
	if top.Int64 <= last {
		return nil
	}
	if _, err := c.dst.ExecContext(c.ctx, `SELECT setval(CAST(? AS regclass), ?)`, seq.String, top.Int64); err != nil {
		return fail(err)
	}
	return nil
}

// sum is the count and checksum of t's rows to copy in q, a transaction
// of s, as copyRows computes them.
func (c *copier) sum(q sqlTx, s *Store, t copyTable, cols []string) (TableCopy, error) {
	tc := TableCopy{Table: t.name}
	where, wargs := c.where(t)
	rows, err := q.QueryContext(c.ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+t.name+where+orderBy(s, t), wargs...)
	if err != nil {
		return tc, err
	}
	defer rows.Close()
	rs := newRowSource(rows, cols, nil)
	for rs.Next() {
	}
	if err := rs.Err(); err != nil {
		return tc, err
	}
	tc.Rows, tc.Sum = rs.n, hex.EncodeToString(rs.h.Sum(nil))
	return tc, nil
}

// sumRow adds one row to h in its canonical encoding: per value a tag
// byte (N null, I integer, F real, S text, B blob) and for all but NULL
// eight big-endian bytes (the integer, the real's IEEE 754 bits, or the
// length) followed by the text's or blob's bytes. buf is scratch space,
// returned for reuse.
func sumRow(h hash.Hash, buf []byte, vals []any) ([]byte, error) {
	buf = buf[:0]
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			buf = append(buf, 'N')
		case int64:
			buf = binary.BigEndian.AppendUint64(append(buf, 'I'), uint64(x))
		case float64:
			buf = binary.BigEndian.AppendUint64(append(buf, 'F'), math.Float64bits(x))
		case string:
			buf = binary.BigEndian.AppendUint64(append(buf, 'S'), uint64(len(x)))
			buf = append(buf, x...)
		case []byte:
			buf = binary.BigEndian.AppendUint64(append(buf, 'B'), uint64(len(x)))
			buf = append(buf, x...)
		default:
			return buf, errors.New("a value that is no integer, real, text or blob, which the copy does not handle")
		}
	}
	h.Write(buf)
	return buf, nil
}
