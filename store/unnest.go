package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// On PostgreSQL a batch of rows that all set the same columns goes in one
// INSERT … SELECT FROM unnest(…) of one array a column, whatever the
// number of rows: a multi-row VALUES list of 64 rows binds some 1,700
// parameters, and the server parsed and planned each such statement again
// (a third of the time an import of 50,000 events spent on the server went
// to statements, not rows). Only the ids come back: the journal's after
// images are made from the values, as on SQLite (insertImaged), where the
// table's columns allow it, and are otherwise the rows RETURNING * gives.
// A batch of copyMin rows or more goes by COPY instead (copyin.go).

// arrayTypesOf is, on PostgreSQL, the array type insertUnnest binds each
// column of table as, read once per table: "bigint[]" for a bigint or
// integer column, "text[]" for a text one; columns of other types are
// left out, and a row that sets one goes the VALUES way.
func (tx *Tx) arrayTypesOf(table string) (map[string]string, error) {
	tx.s.colMu.Lock()
	types, ok := tx.s.arrayTypes[table]
	tx.s.colMu.Unlock()
	if ok {
		return types, nil
	}
	rows, err := tx.tx.QueryContext(tx.ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ?`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types = map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		switch typ {
		case "bigint", "integer":
			types[name] = "bigint[]"
		case "text":
			types[name] = "text[]"
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	tx.s.colMu.Lock()
	if tx.s.arrayTypes == nil {
		tx.s.arrayTypes = map[string]map[string]string{}
	}
	tx.s.arrayTypes[table] = types
	tx.s.colMu.Unlock()
	return types, nil
}

// unnestArrays turns rows (values of cols, in order) into one array a
// column, of the type types gives it, each written as PostgreSQL's text
// form of an array (arrayLiteral): one string a column, where pgx would
// box every element of a Go slice it encodes. ok is false when a column
// has no array type or a value is not nil, an int, an int64 or a string
// matching it: those rows go the VALUES way.
func unnestArrays(types map[string]string, cols []string, rows [][]any) (arrays []any, ok bool) {
	arrays = make([]any, len(cols))
	var a arrayLiteral
	for c, col := range cols {
		typ := types[col]
		if typ != "bigint[]" && typ != "text[]" {
			return nil, false
		}
		a.reset()
		for _, row := range rows {
			switch v := row[c].(type) {
			case nil:
				a.null()
			case int64:
				if typ != "bigint[]" {
					return nil, false
				}
				a.int(v)
			case int:
				if typ != "bigint[]" {
					return nil, false
				}
				a.int(int64(v))
			case string:
				if typ != "text[]" {
					return nil, false
				}
				a.text(v)
			default:
				return nil, false
			}
		}
		arrays[c] = a.String()
	}
	return arrays, true
}

// arrayLiteral builds the text form of a one-dimensional PostgreSQL array
// ({1,NULL,"a \"b\""}), which a ?::bigint[] or ?::text[] parameter
// reads: every text element quoted, its quotes and backslashes escaped.
type arrayLiteral struct {
	b []byte
	n int
}

func (a *arrayLiteral) reset() { a.b, a.n = append(a.b[:0], '{'), 0 }

func (a *arrayLiteral) next() {
	if a.n > 0 {
		a.b = append(a.b, ',')
	}
	a.n++
}

func (a *arrayLiteral) null() { a.next(); a.b = append(a.b, "NULL"...) }

func (a *arrayLiteral) int(v int64) { a.next(); a.b = strconv.AppendInt(a.b, v, 10) }

func (a *arrayLiteral) text(s string) { quoteElement(a, s) }

// textBytes is text of b, not copied into a string first.
func (a *arrayLiteral) textBytes(b []byte) { quoteElement(a, b) }

func quoteElement[T string | []byte](a *arrayLiteral, s T) {
	a.next()
	a.b = append(a.b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			a.b = append(a.b, '\\')
		}
		a.b = append(a.b, s[i])
	}
	a.b = append(a.b, '"')
}

// String is the array's text form.
func (a *arrayLiteral) String() string { return string(append(a.b, '}')) }

// insertUnnest inserts rows into table for tx's owner, their values of
// cols also as arrays (unnestArrays), in one statement, and journals
// them; owner_id and updated_at (tx's time, unless cols name it) are set
// as insertRows sets them. Where the table's layout allows it (see
// imageLayoutOf) the statement returns only the ids and the images are
// made from the values, as insertImaged makes them on SQLite; otherwise
// it returns every row (insertReturning).
func (tx *Tx) insertUnnest(table string, cols []string, types map[string]string, arrays []any, rows [][]any) ([]int64, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	names := []string{"owner_id"}
	sel := []string{"?::bigint"}
	args := []any{tx.owner}
	if !contains(cols, "updated_at") {
		names, sel, args = append(names, "updated_at"), append(sel, "?::text"), append(args, stamp(tx.now))
	}
	names = append(names, cols...)
	params := make([]string, len(cols))
	as := make([]string, len(cols))
	for i, c := range cols {
		params[i] = "?::" + types[c]
		as[i] = fmt.Sprintf("c%d", i)
		sel = append(sel, "u."+as[i])
	}
	q := `INSERT INTO ` + table + ` (` + strings.Join(names, ", ") + `) SELECT ` + strings.Join(sel, ", ") +
		` FROM unnest(` + strings.Join(params, ", ") + `) AS u(` + strings.Join(as, ", ") + `)`
	args = append(args, arrays...)
	l, err := tx.imageLayoutOf(table, cols)
	if err != nil {
		return nil, err
	}
	if l == nil || !l.fits(rows) {
		return tx.insertReturning(table, q, args, len(rows))
	}
	res, err := tx.query(q+` RETURNING id`, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	defer res.Close()
	ids := make([]int64, 0, len(rows))
	for res.Next() {
		var id int64
		if err := res.Scan(&id); err != nil {
			return nil, fmt.Errorf("cannot add to %s: %w", table, err)
		}
		ids = append(ids, id)
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	// The rows of unnest's arrays are inserted in order, each taking the
	// next id the sequence gives (another session may draw from it
	// meanwhile, so ids may skip): sorted, the ids are in rows' order.
	slices.Sort(ids)
	if len(ids) != len(rows) {
		return nil, fmt.Errorf("store: cannot match the %d rows added to %s with their ids", len(rows), table)
	}
	return ids, tx.recordImaged(table, rows, ids, l)
}
