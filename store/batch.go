package store

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// batchRows is the most rows one INSERT statement of InsertMany carries;
// far below SQLite's 32,766 bound parameters for any journaled table.
const batchRows = 64

// imagedRows is the most rows one INSERT statement of InsertValues
// carries on SQLite, where no row is returned (insertImaged): each
// statement opens a statement journal that keeps the first image of every
// page the statement changes, and the rows of a batch land on the same
// index pages, so a quarter as many statements copy fewer pages. Fewer
// when a row has so many columns that the statement would pass SQLite's
// 32,766 bound parameters.
const imagedRows = 256

// sqliteParams is the most parameters one SQLite statement may bind
// (SQLITE_MAX_VARIABLE_NUMBER).
const sqliteParams = 32766

// InsertMany adds rows to table for tx.Owner(), as Insert does for each
// (owner_id and updated_at set by the store, id by SQLite, every row
// journaled in this Write's change), and returns the new ids in the order
// of rows. Runs of rows that set the same columns go in multi-row INSERT …
// RETURNING * statements of up to 64 rows, whose returned rows are the
// journal's after images, so no row is read back on its own and the images
// are exactly what a SELECT gives (which Undo compares against). A row that
// fails (a constraint, an unknown column) fails the whole call; the Write
// then keeps nothing.
func (tx *Tx) InsertMany(table string, rows []Row) ([]int64, error) {
	if err := tx.writable("InsertMany"); err != nil {
		return nil, err
	}
	cols, err := tx.s.columns(tx.ctx, tx.tx, table)
	if err != nil {
		return nil, err
	}
	keys := make([][]string, len(rows))
	for i, row := range rows {
		if err := checkSet(table, cols, row, "id", "owner_id", "deleted_at"); err != nil {
			return nil, err
		}
		keys[i] = sortedKeys(row)
	}
	vals := make([][]any, len(rows))
	for i, row := range rows {
		vals[i] = make([]any, len(keys[i]))
		for j, k := range keys[i] {
			vals[i][j] = row[k]
		}
	}
	ids := make([]int64, 0, len(rows))
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && slices.Equal(keys[end], keys[start]) {
			end++
		}
		got, err := tx.insertRuns(table, keys[start], vals[start:end])
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
		start = end
	}
	return ids, nil
}

// insertChunk is the most rows InsertEvents turns into values at a time:
// on PostgreSQL one statement (insertUnnest), which with 1,024 rows
// rather than 256 runs its statement trigger, which reads every row the
// statement added, a quarter as often.
const insertChunk = 1024

// InsertValues is InsertMany of rows that all set the columns cols, each
// row its values in the order of cols: no map is built per row. The
// columns are checked once. On SQLite the journal's images of the rows
// are made from their values where the table's columns allow it (see
// insertImaged), so table's triggers must not change the rows inserted.
func (tx *Tx) InsertValues(table string, cols []string, rows [][]any) ([]int64, error) {
	if err := tx.writable("InsertValues"); err != nil {
		return nil, err
	}
	have, err := tx.s.columns(tx.ctx, tx.tx, table)
	if err != nil {
		return nil, err
	}
	set := make(Row, len(cols))
	for _, c := range cols {
		set[c] = nil
	}
	if len(set) != len(cols) {
		return nil, fmt.Errorf("store: a column is named twice in an insert into %s", table)
	}
	if err := checkSet(table, have, set, "id", "owner_id", "deleted_at"); err != nil {
		return nil, err
	}
	if tx.s.engine == Postgres && !noImaged {
		types, err := tx.arrayTypesOf(table)
		if err != nil {
			return nil, err
		}
		if len(rows) >= copyMin && copyFits(types, cols, rows) {
			l, err := tx.imageLayoutOf(table, cols)
			if err != nil {
				return nil, err
			}
			if l != nil && l.fits(rows) {
				return tx.insertCopy(table, cols, rows, l)
			}
		}
		if arrays, ok := unnestArrays(types, cols, rows); ok {
			return tx.insertUnnest(table, cols, types, arrays, rows)
		}
	}
	tx.imaged = !noImaged
	defer func() { tx.imaged = false }()
	return tx.insertRuns(table, cols, rows)
}

// insertRuns inserts rows that all set the columns keys, in statements of
// a power of two rows, at most batchRows (imagedRows for InsertValues on
// SQLite): a few statement texts per column set, whatever the number of
// rows. The event generation is drawn anew
// first (bumpEventGeneration).
func (tx *Tx) insertRuns(table string, keys []string, rows [][]any) ([]int64, error) {
	if len(rows) > 0 {
		if err := tx.bumpEventGeneration(table); err != nil {
			return nil, err
		}
	}
	most := batchRows
	if tx.imaged && tx.s.engine == SQLite {
		// owner_id and updated_at are bound as well.
		most = max(batchRows, min(imagedRows, sqliteParams/(len(keys)+2)))
	}
	ids := make([]int64, 0, len(rows))
	for start := 0; start < len(rows); {
		n := 1
		for n*2 <= min(most, len(rows)-start) {
			n *= 2
		}
		got, err := tx.insertRun(table, keys, rows[start:start+n])
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
		start += n
	}
	return ids, nil
}

// insertRun inserts rows that all set the columns keys in one statement and
// journals them.
func (tx *Tx) insertRun(table string, keys []string, rows [][]any) ([]int64, error) {
	if tx.imaged && tx.s.engine != Postgres {
		l, err := tx.imageLayoutOf(table, keys)
		if err != nil {
			return nil, err
		}
		if l != nil && l.fits(rows) {
			ids, err := tx.insertImaged(table, keys, rows, l)
			if err != errNoImage {
				return ids, err
			}
		}
	}
	q, args := tx.insertRows(table, keys, rows)
	return tx.insertReturning(table, q, args, len(rows))
}

// insertReturning runs q, an INSERT of n rows into table in one
// statement whose rows take increasing ids in their order, with RETURNING
// *, and journals each row with the image returned; it gives the new ids
// in the order of the rows.
func (tx *Tx) insertReturning(table, q string, args []any, n int) ([]int64, error) {
	res, err := tx.query(q+` RETURNING *`, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	defer res.Close()
	cols, err := res.Columns()
	if err != nil {
		return nil, err
	}
	idAt := slices.Index(cols, "id")
	type made struct {
		id  int64
		img []byte
	}
	out := make([]made, 0, n)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for res.Next() {
		if err := res.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("cannot add to %s: %w", table, err)
		}
		id, _ := vals[idAt].(int64)
		img, err := encodeRow(cols, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, made{id, img})
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	// Neither engine promises RETURNING's order, but the rows of one
	// VALUES list (or of unnest's arrays) are inserted in order and each takes the next id, so
	// sorted by id they are in rows' order. On SQLite the ids are also
	// consecutive (the largest rowid plus one); anything else (the rowid
	// space exhausted) cannot be matched to rows. On PostgreSQL another
	// session may draw from the same sequence meanwhile, so ids may skip.
	slices.SortFunc(out, func(a, b made) int { return cmp.Compare(a.id, b.id) })
	gapless := tx.s.engine != Postgres
	if len(out) != n || (gapless && out[len(out)-1].id-out[0].id != int64(n-1)) {
		return nil, fmt.Errorf("store: cannot match the %d rows added to %s with their ids", n, table)
	}
	ids := make([]int64, len(out))
	for i, m := range out {
		ids[i] = m.id
		tx.record(table, m.id, nil, m.img, true)
	}
	return ids, nil
}

// insertRows is the INSERT of rows (values of keys, in order) into table
// for tx's owner, many rows in one statement, and its arguments: owner_id
// leads each row, then updated_at (tx's time) unless keys name it.
func (tx *Tx) insertRows(table string, keys []string, rows [][]any) (string, []any) {
	names := []string{"owner_id"}
	stampIt := !slices.Contains(keys, "updated_at")
	if stampIt {
		names = append(names, "updated_at")
	}
	names = append(names, keys...)
	one := "(?" + strings.Repeat(", ?", len(names)-1) + ")"
	q := `INSERT INTO ` + table + ` (` + strings.Join(names, ", ") + `) VALUES ` +
		one + strings.Repeat(", "+one, len(rows)-1)
	// The slice of the Write's statement before is used again: each
	// statement's arguments are bound when it runs, and one of 256 rows
	// was a twentieth of what a 50,000-event import allocated.
	args := tx.args[:0]
	if need := len(names) * len(rows); cap(args) < need {
		args = make([]any, 0, need)
	}
	defer func() { tx.args = args[:0] }()
	// Boxed once, not once a row: two allocations fewer per row.
	owner, now := any(tx.owner), any(stamp(tx.now))
	for _, row := range rows {
		args = append(args, owner)
		if stampIt {
			args = append(args, now)
		}
		args = append(args, row...)
	}
	return q, args
}
