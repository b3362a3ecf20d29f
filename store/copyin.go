package store

import (
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// On PostgreSQL a large batch of rows that all set the same columns goes
// in by COPY … FROM STDIN in its text form rather than as arrays
// (insertUnnest): the server neither parses one array a column nor
// holds the unnested rows in a tuplestore before inserting them, it
// inserts them in batches (COPY's multi-insert), and it starts on the
// first rows while the client is still formatting the rest (pgconn's
// CopyFrom sends what a reader gives as it gives it). COPY returns no
// rows, so the ids are drawn from the table's sequence first, in one
// statement, and the rows carry them; the journal's images are made from
// the values (as recordImaged makes them) while the server inserts.

// copyMin is the fewest rows InsertValues sends by COPY: below it the two
// round trips (the ids, the COPY) cost more than the arrays' parsing.
const copyMin = 128

// copyIn is the one argument of a COPY … FROM STDIN statement run through
// database/sql: pipeConn sends the statement with pgconn's CopyFrom, the
// data read from r (COPY's text form).
type copyIn struct{ r io.Reader }

// copyFits reports whether every column of cols has an array type in types
// (bigint or text, see arrayTypesOf) and every value of rows is nil, an
// int or an int64 in a bigint column, or a string in a text one: what
// copyRows writes.
func copyFits(types map[string]string, cols []string, rows [][]any) bool {
	for c, col := range cols {
		typ := types[col]
		if typ != "bigint[]" && typ != "text[]" {
			return false
		}
		for _, row := range rows {
			switch row[c].(type) {
			case nil:
			case int, int64:
				if typ != "bigint[]" {
					return false
				}
			case string:
				if typ != "text[]" {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// insertCopy is InsertValues on PostgreSQL by COPY, for rows that
// copyFits and whose images l makes: ids drawn from table's identity
// sequence (increasing, in rows' order, as the rows of one INSERT take
// them), the rows sent with them by COPY, each journaled with the image l
// makes of its values once the COPY has succeeded.
func (tx *Tx) insertCopy(table string, cols []string, rows [][]any, l *imageLayout) ([]int64, error) {
	ids, err := tx.drawIDs(table, len(rows))
	if err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	stampIt := !contains(cols, "updated_at")
	names := []string{"id", "owner_id"}
	if stampIt {
		names = append(names, "updated_at")
	}
	names = append(names, cols...)
	q := `COPY ` + table + ` (` + strings.Join(names, ", ") + `) FROM STDIN`
	if err := tx.beforeLater(q); err != nil {
		return nil, err
	}
	var now string
	if stampIt {
		now = stamp(tx.now)
	}
	// Each row: its id, its owner, the stamp, its values, tab separated.
	src := &copyReader{n: len(rows), row: func(b []byte, i int) []byte {
		b = strconv.AppendInt(b, ids[i], 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, tx.owner, 10)
		if stampIt {
			b = append(b, '\t')
			b = appendCopyText(b, now)
		}
		for _, v := range rows[i] {
			b = append(b, '\t')
			b = appendCopyValue(b, v)
		}
		return append(b, '\n')
	}}
	done := make(chan error, 1)
	go func() {
		_, err := tx.tx.ExecContext(tx.ctx, q, &copyIn{r: src})
		done <- err
	}()
	// The images are made while the server inserts the rows.
	imgs, digests, ierr := tx.imagesAdded(table, rows, ids, l)
	if err := <-done; err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	if ierr != nil {
		return nil, ierr
	}
	tx.recordAdded(table, ids, imgs, digests)
	return ids, nil
}

// drawIDs draws n values from the sequence of table's identity column id,
// in increasing order. The sequence's name is read once per table and
// written into the statement, so the server looks it up once a plan, not
// once a value (which was 5 µs a value).
func (tx *Tx) drawIDs(table string, n int) ([]int64, error) {
	tx.s.colMu.Lock()
	q, ok := tx.s.idDraws[table]
	tx.s.colMu.Unlock()
	if !ok {
		var seq sql.NullString
		if err := tx.queryRow(`SELECT pg_get_serial_sequence(?, 'id')`, table).Scan(&seq); err != nil {
			return nil, err
		}
		if !seq.Valid {
			return nil, fmt.Errorf("store: %s has no sequence for its ids", table)
		}
		q = `SELECT nextval('` + strings.ReplaceAll(seq.String, `'`, `''`) + `'::regclass) FROM generate_series(1, ?::bigint)`
		tx.s.colMu.Lock()
		if tx.s.idDraws == nil {
			tx.s.idDraws = map[string]string{}
		}
		tx.s.idDraws[table] = q
		tx.s.colMu.Unlock()
	}
	ids, err := tx.ids(q, n)
	if err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, fmt.Errorf("store: drew %d ids of %s, not %d", len(ids), table, n)
	}
	slices.Sort(ids)
	return ids, nil
}

// copyReader is the text form of COPY of n rows, read as it is made:
// row appends the text of row i, its newline included.
type copyReader struct {
	n    int
	row  func(b []byte, i int) []byte
	next int    // the row to make next
	buf  []byte // made, not read yet from off
	off  int
}

func (r *copyReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		r.buf, r.off = r.buf[:0], 0
		for len(r.buf) < len(p) && r.next < r.n {
			r.buf = r.row(r.buf, r.next)
			r.next++
		}
		if len(r.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// appendCopyValue appends v (nil, an int, an int64, a string or a []byte
// of text) in COPY's text form: \N for NULL.
func appendCopyValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, `\N`...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case string:
		return appendCopyText(b, x)
	case []byte:
		return appendCopyText(b, x)
	}
	panic(fmt.Sprintf("store: no COPY form for %T", v))
}

// appendCopyText appends s with COPY's text escapes: the backslash, the
// tab, the newline and the carriage return (the separators) escaped; every
// other byte as it is.
func appendCopyText[T string | []byte](b []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}
