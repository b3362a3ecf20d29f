package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Row is one row of a table by column name. Values read back are what the
// driver gives for the stored type: int64, float64, string, []byte or nil.
type Row map[string]any

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Tx is one transaction for one owner, handed to the function given to
// Write or Read. It must not be used after that function returns.
type Tx struct {
	s        *Store
	ctx      context.Context
	tx       sqlTx
	owner    int64
	readOnly bool
	// imaged is set while InsertValues runs: its rows' images are made
	// from their values where the table allows (insertImaged).
	imaged   bool
	now      time.Time
	summary  string
	touched  []*touch
	byRow    map[rowKey]*touch
	tool     string // the Write's, for a change row made early
	listZone string // the owner's zone once read (tasklist.go)
	// change is the journal's row of this Write once FlushJournal made it
	// (0 before), and touched[:flushed] are in its change_rows.
	change  int64
	flushed int
	// args is room for the arguments of the next multi-row INSERT
	// (insertRows), reused from statement to statement.
	args  []any
	many  *manyOwners // a WriteMany's (remind_batch.go), else nil
	ahead *ahead      // a WriteMany view's read-ahead (remind_ahead.go), else nil
	later *later      // a WriteMany's writes held back (remind_later.go), else nil
}

type rowKey struct {
	table string
	id    int64
}

// touch is the net effect of one Write on one row: the image before the
// first change and after the last, so a row changed twice in one Write
// undoes in one step.
type touch struct {
	table         string
	id            int64
	before, after []byte // whole-row JSON; before nil for an inserted row
	// seq is the touch's place in the change (its change_rows.seq);
	// written says FlushJournal wrote it there (and let go of its
	// images), stale that the row changed again since.
	seq            int
	written, stale bool
	// added says the Write added the row (its before image was nil; it
	// stays so after FlushJournal let go of the images).
	added bool
	// digest, when set, is digestImage(after), made beside the INSERT
	// (insertImaged); a later change of the row drops it.
	digest []byte
}

// Owner is the person whose rows this transaction may read and change;
// every statement of the typed methods filters by it (`WHERE owner_id = ?`).
func (tx *Tx) Owner() int64 { return tx.owner }

// Now is the instant the transaction started (whole seconds, UTC), the one
// stamped into updated_at and deleted_at.
func (tx *Tx) Now() time.Time { return tx.now }

// Summarize sets the one-line summary list_changes shows for this change
// ("added t12 “Buy milk”"); without it the summary lists the rows touched.
func (tx *Tx) Summarize(summary string) { tx.summary = summary }

// Touched is the number of rows this transaction has written so far (each
// row once, however often): 0 means the change, if it ends now, records
// nothing.
func (tx *Tx) Touched() int { return len(tx.touched) }

// execWrite runs a statement without rows in the transaction, refused
// inside Read. It is not journaled: rows of journaled tables go through
// Insert, Update and Delete. The statement must filter by owner_id =
// tx.Owner(); the SQL of every table lives in this package, whose typed
// methods take the owner from tx.
func (tx *Tx) execWrite(query string, args ...any) (sql.Result, error) {
	if tx.readOnly {
		return nil, errors.New("store: a write inside Read; writes go through Write")
	}
	return tx.exec(query, args...)
}

// queryRow runs a one-row query in the transaction through the statement
// cache, as query does; it must filter by owner_id = tx.Owner().
func (tx *Tx) queryRow(query string, args ...any) *sql.Row {
	if err := tx.beforeLater(query); err != nil {
		// A *sql.Row carries no error of ours: the statement runs on a
		// cancelled context and fails, and WriteMany returns err.
		ctx, cancel := context.WithCancel(tx.ctx)
		cancel()
		return tx.tx.QueryRowContext(ctx, query, args...)
	}
	if st := tx.prepared(tx.ctx, query); st != nil {
		return st.QueryRowContext(tx.ctx, args...)
	}
	return tx.tx.QueryRowContext(tx.ctx, query, args...)
}

// query runs q in the transaction through the Store's statement cache
// (up to a bound; keep values in arguments, not in the text): database/sql
// reuses the statement already prepared on the transaction's connection,
// so q is parsed once per connection, not once per call. q must filter by
// owner_id = tx.Owner().
func (tx *Tx) query(q string, args ...any) (*sql.Rows, error) {
	return tx.queryIn(tx.ctx, q, args...)
}

// queryIn is query run in ctx, tx's own context or one made from it.
func (tx *Tx) queryIn(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if err := tx.beforeLater(q); err != nil {
		return nil, err
	}
	if st := tx.prepared(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.tx.QueryContext(ctx, q, args...)
}

// exec is query for statements without rows.
func (tx *Tx) exec(q string, args ...any) (sql.Result, error) {
	if err := tx.beforeLater(q); err != nil {
		return nil, err
	}
	if st := tx.prepared(tx.ctx, q); st != nil {
		return st.ExecContext(tx.ctx, args...)
	}
	return tx.tx.ExecContext(tx.ctx, q, args...)
}

// prepared is q's statement from a cache, ready to run in the
// transaction, or nil (run q as text): on the kept connection its own
// ([hotConn.stmt]), else the Store's ([Store.stmt]) made the
// transaction's by database/sql, which reuses the one already prepared on
// the transaction's connection.
func (tx *Tx) prepared(ctx context.Context, q string) *sql.Stmt {
	switch t := tx.tx.(type) {
	case *connTx:
		return t.stmt(ctx, q)
	case *sql.Tx:
		if st := tx.s.stmt(ctx, q); st != nil {
			return t.StmtContext(ctx, st)
		}
	}
	return nil
}

func (tx *Tx) writable(op string) error {
	if tx.readOnly {
		return fmt.Errorf("store: %s inside Read; writes go through Write", op)
	}
	tx.ahead.forgetWritable(op)
	return nil
}

// checkSet refuses column names that are not the table's, and the ones the
// store itself manages.
func checkSet(table string, cols []string, set Row, managed ...string) error {
	for c := range set {
		if contains(managed, c) {
			return fmt.Errorf("store: column %q of %s is set by the store, not by callers", c, table)
		}
		if !contains(cols, c) {
			return fmt.Errorf("store: table %s has no column %q", table, c)
		}
	}
	return nil
}

func sortedKeys(r Row) []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Insert adds a row owned by tx.Owner() and journals it; owner_id and
// updated_at (unless given) are set by the store, id by SQLite. It returns
// the new id.
func (tx *Tx) Insert(table string, row Row) (int64, error) {
	return tx.insertIf(table, row, "", nil)
}

// errNotInserted is insertIf's answer when its condition held for no row.
var errNotInserted = errors.New("store: the condition of the insert did not hold")

// insertIf is Insert that adds the row only when the SQL condition where
// (with its arguments whereArgs, after the row's) holds, checked by the
// INSERT itself (INSERT … SELECT … WHERE): errNotInserted, with nothing
// written, when it does not. An empty where is Insert's VALUES form.
func (tx *Tx) insertIf(table string, row Row, where string, whereArgs []any) (int64, error) {
	if err := tx.writable("Insert"); err != nil {
		return 0, err
	}
	cols, err := tx.s.columns(tx.ctx, tx.tx, table)
	if err != nil {
		return 0, err
	}
	if err := checkSet(table, cols, row, "id", "owner_id", "deleted_at"); err != nil {
		return 0, err
	}
	if err := tx.bumpEventGeneration(table); err != nil {
		return 0, err
	}
	names := []string{"owner_id"}
	args := make([]any, 1, len(row)+3)
	args[0] = tx.owner
	if _, ok := row["updated_at"]; !ok {
		names = append(names, "updated_at")
		args = append(args, stamp(tx.now))
	}
	var q strings.Builder
	q.Grow(512)
	q.WriteString(`INSERT INTO `)
	q.WriteString(table)
	q.WriteString(` (`)
	for i, n := range names {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(n)
	}
	keys := sortedKeys(row)
	for _, k := range keys {
		q.WriteString(", ")
		q.WriteString(k)
	}
	if where == "" {
		q.WriteString(`) VALUES (?`)
	} else {
		q.WriteString(`) SELECT ?`)
	}
	q.WriteString(strings.Repeat(", ?", len(names)-1))
	for _, k := range keys {
		if _, ok := row[k].(ownerZone); ok {
			q.WriteString(", ")
			q.WriteString(ownerZoneSQL)
			args = append(args, tx.owner)
			continue
		}
		q.WriteString(", ?")
		args = append(args, row[k])
	}
	if where == "" {
		q.WriteString(`)`)
	} else {
		q.WriteString(` WHERE `)
		q.WriteString(where)
		args = append(args, whereArgs...)
	}
	if l, vals, err := tx.oneImaged(table, keys, row); err != nil {
		return 0, err
	} else if l != nil {
		return tx.insertOneImaged(table, q.String(), args, where != "", l, vals)
	}
	q.WriteString(tx.s.imageReturning(table, cols))
	id, after, err := tx.returning(q.String(), args...)
	if where != "" && errors.Is(err, ErrNotFound) {
		return 0, errNotInserted
	}
	if err != nil {
		return 0, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	tx.record(table, id, nil, after, true)
	return id, nil
}

// oneImaged is the layout by which insertOneImaged makes the image of row
// (and its values in the order of keys), nil when it cannot: not SQLite,
// a table whose rows read back otherwise than as bound
// ([Tx.imageLayoutOf]), a value that would not read back as bound
// ([imageLayout.fits], an [ownerZone] among them), or a test that wants
// every row read back (noImaged).
func (tx *Tx) oneImaged(table string, keys []string, row Row) (*imageLayout, []any, error) {
	if tx.s.engine != SQLite || noImaged {
		return nil, nil, nil
	}
	l, err := tx.imageLayoutOf(table, keys)
	if err != nil || l == nil {
		return nil, nil, err
	}
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = row[k]
	}
	if !l.fits([][]any{vals}) {
		return nil, nil, nil
	}
	return l, vals, nil
}

// insertOneImaged runs q, the INSERT of insertIf without RETURNING, with
// args: the row's id is the rowid SQLite gives it, and the journal's
// image is made from vals by l, as insertImaged makes those of many rows,
// without SQLite keeping the returned row in a temporary table and
// database/sql scanning every column back. cond says q has a WHERE:
// errNotInserted when it added no row.
func (tx *Tx) insertOneImaged(table, q string, args []any, cond bool, l *imageLayout, vals []any) (int64, error) {
	res, err := tx.exec(q, args...)
	if err != nil {
		return 0, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if n == 0 && cond {
		return 0, errNotInserted
	}
	if n != 1 {
		return 0, fmt.Errorf("store: one row added to %s, not %d", table, n)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	imgs, err := tx.imagesOf([][]any{vals}, []int64{id}, l)
	if err != nil {
		return 0, err
	}
	tx.record(table, id, nil, imgs[0], true)
	return id, nil
}

// ownerZone, as a value of a row given to [Tx.Insert], is the owner's
// zone as stored, read by the INSERT itself ([ownerZoneSQL]).
type ownerZone struct{}

// ownerZoneSQL is the expression of an [ownerZone] value; its one
// argument is the owner.
const ownerZoneSQL = `(SELECT zone FROM people WHERE id = ?)`

// Update changes the given columns of one live row of tx.Owner() and
// journals the whole row before and after; updated_at is stamped unless
// given. ErrNotFound when the row is not the owner's, is deleted, or does
// not exist. An empty set changes nothing.
func (tx *Tx) Update(table string, id int64, set Row) error {
	if err := tx.writable("Update"); err != nil {
		return err
	}
	cols, err := tx.s.columns(tx.ctx, tx.tx, table)
	if err != nil {
		return err
	}
	if err := checkSet(table, cols, set, "id", "owner_id"); err != nil {
		return err
	}
	if len(set) == 0 {
		return nil
	}
	before, err := tx.image(table, id, true)
	if err != nil {
		return err
	}
	var assign []string
	var args []any
	if _, ok := set["updated_at"]; !ok {
		assign = append(assign, "updated_at = ?")
		args = append(args, stamp(tx.now))
	}
	for _, k := range sortedKeys(set) {
		assign = append(assign, k+" = ?")
		args = append(args, set[k])
	}
	args = append(args, id, tx.owner)
	q := `UPDATE ` + table + ` SET ` + strings.Join(assign, ", ") +
		` WHERE id = ? AND owner_id = ?` + tx.s.imageReturning(table, cols)
	_, after, err := tx.returning(q, args...)
	if err != nil {
		return fmt.Errorf("cannot change %s: %w", label(table, id), err)
	}
	tx.record(table, id, before, after, false)
	return nil
}

// Delete soft-deletes one live row of tx.Owner(): deleted_at and updated_at
// are stamped, the row stays until Purge, and the change can be undone.
// ErrNotFound as for Update.
func (tx *Tx) Delete(table string, id int64) error {
	if err := tx.writable("Delete"); err != nil {
		return err
	}
	cols, err := tx.s.columns(tx.ctx, tx.tx, table)
	if err != nil {
		return err
	}
	before, err := tx.image(table, id, true)
	if err != nil {
		return err
	}
	now := stamp(tx.now)
	_, after, err := tx.returning(`UPDATE `+table+` SET deleted_at = ?, updated_at = ?
		WHERE id = ? AND owner_id = ?`+tx.s.imageReturning(table, cols), now, now, id, tx.owner)
	if err != nil {
		return fmt.Errorf("cannot delete %s: %w", label(table, id), err)
	}
	tx.record(table, id, before, after, false)
	return nil
}

// Get reads one live row of tx.Owner(); ErrNotFound when it is not the
// owner's, is deleted, or does not exist.
func (tx *Tx) Get(table string, id int64) (Row, error) {
	if _, err := tx.s.columns(tx.ctx, tx.tx, table); err != nil {
		return nil, err
	}
	rows, err := tx.query(`SELECT * FROM `+table+
		` WHERE id = ? AND owner_id = ? AND deleted_at IS NULL`, id, tx.owner)
	if err != nil {
		return nil, err
	}
	cols, vals, err := scanOne(rows)
	if err != nil {
		return nil, err
	}
	if cols == nil {
		return nil, notFound(table, id)
	}
	r := make(Row, len(cols))
	for i, c := range cols {
		r[c] = vals[i]
	}
	return r, nil
}

func notFound(table string, id int64) error {
	return fmt.Errorf("%s does not exist or was deleted: %w", label(table, id), ErrNotFound)
}

// image reads a row of tx.Owner() as journal JSON; live restricts it to
// rows not deleted. ErrNotFound when there is none.
func (tx *Tx) image(table string, id int64, live bool) ([]byte, error) {
	q := `SELECT * FROM ` + table + ` WHERE id = ? AND owner_id = ?`
	if live {
		q += ` AND deleted_at IS NULL`
	}
	rows, err := tx.query(q, id, tx.owner)
	if err != nil {
		return nil, err
	}
	cols, vals, err := scanOne(rows)
	if err != nil {
		return nil, err
	}
	if cols == nil {
		return nil, notFound(table, id)
	}
	return encodeRow(cols, vals)
}

// returning runs a statement ending in the RETURNING clause of
// [Store.imageReturning] and gives the row's id and JSON image.
func (tx *Tx) returning(q string, args ...any) (int64, []byte, error) {
	rows, err := tx.query(q, args...)
	if err != nil {
		return 0, nil, err
	}
	cols, vals, err := scanOne(rows)
	if err != nil {
		return 0, nil, err
	}
	if cols == nil {
		return 0, nil, ErrNotFound
	}
	var id int64
	for i, c := range cols {
		if c == "id" {
			id, _ = vals[i].(int64)
		}
	}
	img, err := encodeRow(cols, vals)
	return id, img, err
}

// scanOne reads the first row of rows and closes them; cols is nil when
// there was no row.
func scanOne(rows *sql.Rows) ([]string, []any, error) {
	defer rows.Close()
	if !rows.Next() {
		return nil, nil, rows.Err()
	}
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, nil, err
	}
	return cols, vals, rows.Close()
}

// record notes a write of one row (see [touch]). The rows of a small
// change are found by a scan of touched; byRow, an index of them, is made
// only once a change holds more (an import), so a write of one row
// allocates no map.
func (tx *Tx) record(table string, id int64, before, after []byte, inserted bool) *touch {
	if t := tx.touchOf(table, id); t != nil {
		t.after, t.digest = after, nil
		t.stale = t.written
		return t
	}
	t := &touch{table: table, id: id, before: before, after: after, seq: len(tx.touched), added: before == nil}
	tx.touched = append(tx.touched, t)
	if tx.byRow != nil {
		tx.byRow[rowKey{table, id}] = t
	} else if len(tx.touched) > smallChange {
		tx.byRow = make(map[rowKey]*touch, 2*len(tx.touched))
		for _, t := range tx.touched {
			tx.byRow[rowKey{t.table, t.id}] = t
		}
	}
	return t
}

// smallChange is the most rows touchOf scans for rather than look up.
const smallChange = 8

// touchOf is this transaction's touch of row id of table, nil when it
// wrote none.
func (tx *Tx) touchOf(table string, id int64) *touch {
	if tx.byRow != nil {
		return tx.byRow[rowKey{table, id}]
	}
	for _, t := range tx.touched {
		if t.id == id && t.table == table {
			return t
		}
	}
	return nil
}

// decodeRow turns an image back into values to bind: JSON integers become
// int64, other numbers float64, blobs []byte.
func decodeRow(img []byte) (Row, error) {
	d := json.NewDecoder(bytes.NewReader(img))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	for k, v := range m {
		switch x := v.(type) {
		case json.Number:
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				m[k] = i
			} else if f, err := x.Float64(); err == nil {
				m[k] = f
			}
		case map[string]any:
			if s, ok := x["$blob"].(string); ok {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return nil, err
				}
				m[k] = b
			}
		}
	}
	return m, nil
}
