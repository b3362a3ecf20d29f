package store

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// On SQLite the rows of a multi-row INSERT take the largest rowid plus one
// each, in order, so a batch insert knows its rows' ids without RETURNING
// them; and a row inserted into a table whose every column is INTEGER or
// TEXT, with literal defaults, reads back as the values bound (INTEGER as
// int64, TEXT as string) or the defaults. insertImaged makes the journal's
// after images from those, without RETURNING every row into a temporary
// table and scanning it back (a third of the time an import spent adding
// events). A differential test holds them to what SELECT * gives.

// imageLayout is how insertImaged makes the image of a row of one table
// that sets the columns keys: every column of the table in its order, and
// where its value comes from.
type imageLayout struct {
	cols []string
	// from is, by column: an index in keys, or fromID, fromOwner,
	// fromStamp, fromDefault (the value in defs).
	from []int
	defs []any
	// text is, by column, whether it is TEXT (else INTEGER).
	text []bool
	// order is the order of the columns in an image (imageOrder).
	order []int
}

const (
	fromID = -1 - iota
	fromOwner
	fromStamp
	fromDefault
)

// imageLayoutOf is the layout of table's rows that set keys, nil when
// insertImaged cannot make their images: a column that is neither INTEGER
// nor TEXT, a hidden or generated column, a default that is not a literal,
// id not the rowid (on PostgreSQL: a column neither bigint nor text, a
// generated one, id not an identity column). Read once per table and
// columns.
func (tx *Tx) imageLayoutOf(table string, keys []string) (*imageLayout, error) {
	name := table + "\x00" + strings.Join(keys, ",")
	tx.s.colMu.Lock()
	l, ok := tx.s.layouts[name]
	tx.s.colMu.Unlock()
	if ok {
		return l, nil
	}
	l, err := tx.readLayout(table, keys)
	if err != nil {
		return nil, err
	}
	tx.s.colMu.Lock()
	if tx.s.layouts == nil {
		tx.s.layouts = map[string]*imageLayout{}
	}
	tx.s.layouts[name] = l
	tx.s.colMu.Unlock()
	return l, nil
}

func (tx *Tx) readLayout(table string, keys []string) (*imageLayout, error) {
	if tx.s.engine == Postgres {
		return tx.readLayoutPG(table, keys)
	}
	rows, err := tx.tx.QueryContext(tx.ctx, `SELECT name, upper(type), dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []layoutColumn
	for rows.Next() {
		var c layoutColumn
		var typ string
		var pk, hidden int
		if err := rows.Scan(&c.name, &typ, &c.dflt, &pk, &hidden); err != nil {
			return nil, err
		}
		c.text = strings.Contains(typ, "TEXT") || strings.Contains(typ, "CHAR") || strings.Contains(typ, "CLOB")
		c.integer = strings.Contains(typ, "INT")
		c.plain = hidden == 0
		c.rowid = pk == 1 && typ == "INTEGER"
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return buildLayout(cols, keys, ""), nil
}

// layoutColumn is a column of a table as readLayout reads it from the
// engine's catalogue.
type layoutColumn struct {
	name          string
	text, integer bool    // its type: TEXT or INTEGER (bigint or text on PostgreSQL)
	dflt          *string // its default as the catalogue writes it, nil for none
	plain         bool    // neither hidden nor generated
	rowid         bool    // id as the rowid (SQLite) or an identity column (PostgreSQL)
}

// buildLayout is the layout of rows setting keys of a table with cols,
// nil when insertImaged cannot make their images (see
// [Tx.imageLayoutOf]); a quoted default must end in cast (PostgreSQL's
// "::text"), which is cut.
func buildLayout(cols []layoutColumn, keys []string, cast string) *imageLayout {
	l := &imageLayout{}
	ok := true
	for _, c := range cols {
		if !c.plain || c.text == c.integer {
			ok = false
		}
		from, def := fromDefault, any(nil)
		switch k := slices.Index(keys, c.name); {
		case c.name == "id":
			from = fromID
			ok = ok && c.integer && c.rowid
		case c.name == "owner_id":
			from = fromOwner
		case k >= 0:
			from = k
		case c.name == "updated_at":
			from = fromStamp
			ok = ok && c.text
		case c.dflt == nil || strings.EqualFold(*c.dflt, "NULL"):
		case c.integer:
			n, err := strconv.ParseInt(*c.dflt, 10, 64)
			ok = ok && err == nil
			def = n
		default:
			d, cut := strings.CutSuffix(*c.dflt, cast)
			ok = ok && cut && len(d) >= 2 && d[0] == '\'' && d[len(d)-1] == '\'' && !strings.Contains(strings.ReplaceAll(d[1:len(d)-1], "''", ""), "'")
			if ok {
				def = strings.ReplaceAll(d[1:len(d)-1], "''", "'")
			}
		}
		l.cols, l.from, l.defs, l.text = append(l.cols, c.name), append(l.from, from), append(l.defs, def), append(l.text, c.text)
	}
	for _, k := range keys {
		ok = ok && slices.Contains(l.cols, k) && k != "id" && k != "owner_id"
	}
	if !ok {
		return nil
	}
	l.order = imageOrder(l.cols)
	return l
}

// fits reports whether every value of rows reads back as bound in its
// column: nil, an integer in an INTEGER column, a string in a TEXT one.
func (l *imageLayout) fits(rows [][]any) bool {
	for c, from := range l.from {
		if from < 0 {
			continue
		}
		for _, row := range rows {
			switch row[from].(type) {
			case nil:
			case int, int64:
				if l.text[c] {
					return false
				}
			case string:
				if !l.text[c] {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// imageAside is how many rows insertImaged must add for their images to
// be made beside the INSERT.
const imageAside = 32

// insertImaged is insertRun on SQLite for rows that fit l: one INSERT
// without RETURNING, the ids worked out from the largest rowid before it,
// and each row's image made from its values.
func (tx *Tx) insertImaged(table string, keys []string, rows [][]any, l *imageLayout) ([]int64, error) {
	var top *int64
	if err := tx.queryRow(`SELECT max(id) FROM ` + table).Scan(&top); err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	first := int64(1)
	if top != nil {
		if *top > math.MaxInt64-int64(len(rows)) {
			return nil, errNoImage
		}
		first = *top + 1
	}
	ids := make([]int64, len(rows))
	for i := range ids {
		ids[i] = first + int64(i)
	}
	// The images (and the journal's digests of them) are made while
	// SQLite inserts the rows, from the ids the rows will have, which the
	// INSERT's result then confirms: on a machine of two cores that takes
	// them off the import's writing. A few rows are imaged after, with no
	// goroutine.
	var imgs, digests [][]byte
	var ierr error
	made := make(chan struct{})
	image := func() {
		defer close(made)
		imgs, digests, ierr = tx.imagesAdded(table, rows, ids, l)
	}
	if len(rows) >= imageAside {
		go image()
	}
	q, args := tx.insertRows(table, keys, rows)
	res, err := tx.exec(q, args...)
	if len(rows) < imageAside {
		image()
	}
	<-made
	if err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w", table, err)
	}
	last, err := res.LastInsertId()
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(rows)) || last != first+int64(len(rows))-1 {
		return nil, fmt.Errorf("store: cannot match the %d rows added to %s with their ids", len(rows), table)
	}
	if ierr != nil {
		return nil, ierr
	}
	tx.recordAdded(table, ids, imgs, digests)
	return ids, nil
}

// recordImaged journals rows (values of the keys of l), just added with
// the ids ids, with the images l makes of their values.
func (tx *Tx) recordImaged(table string, rows [][]any, ids []int64, l *imageLayout) error {
	imgs, digests, err := tx.imagesAdded(table, rows, ids, l)
	if err != nil {
		return err
	}
	tx.recordAdded(table, ids, imgs, digests)
	return nil
}

// imagesAdded is imagesOf, with the digests the journal keeps of them
// (keptAfter) when it keeps digests for table, else nil; like imagesOf
// it may run beside a statement of tx.
func (tx *Tx) imagesAdded(table string, rows [][]any, ids []int64, l *imageLayout) (imgs, digests [][]byte, err error) {
	imgs, err = tx.imagesOf(rows, ids, l)
	if err != nil || !addedDigested(table) {
		return imgs, nil, err
	}
	digests = make([][]byte, len(imgs))
	for i, img := range imgs {
		digests[i] = digestImage(img)
	}
	return imgs, digests, nil
}

// recordAdded journals rows of table just added with the ids ids, with
// their images imgs and, when not nil, the digests of those.
func (tx *Tx) recordAdded(table string, ids []int64, imgs, digests [][]byte) {
	for i, id := range ids {
		t := tx.record(table, id, nil, imgs[i], true)
		if digests != nil && t.added {
			t.digest = digests[i]
		}
	}
}

// imagesOf is the images l makes of rows (values of the keys of l), just
// added with the ids ids; it reads nothing of tx but its owner and time,
// so it may run beside a statement of tx.
func (tx *Tx) imagesOf(rows [][]any, ids []int64, l *imageLayout) ([][]byte, error) {
	imgs := make([][]byte, len(rows))
	vals := make([]any, len(l.cols))
	now := stamp(tx.now) // as insertRows stamps the rows
	for i, row := range rows {
		id := ids[i]
		for c, from := range l.from {
			switch from {
			case fromID:
				vals[c] = id
			case fromOwner:
				vals[c] = tx.owner
			case fromStamp:
				vals[c] = now
			case fromDefault:
				vals[c] = l.defs[c]
			default:
				v := row[from]
				if n, ok := v.(int); ok {
					v = int64(n)
				}
				vals[c] = v
			}
		}
		img, err := encodeOrdered(l.cols, l.order, vals)
		if err != nil {
			return nil, err
		}
		imgs[i] = img
	}
	return imgs, nil
}

// noImaged, when set (by a test), makes InsertValues read every row back
// with RETURNING as InsertMany does: the oracle of insertImaged.
var noImaged bool

// errNoImage is insertImaged's answer when the ids cannot be worked out:
// insertRun then reads them back.
var errNoImage = errors.New("store: no image")

// readLayoutPG is readLayout on PostgreSQL, from information_schema: a
// bigint column reads back as int64 and a text one as string, as SELECT *
// gives them (pgx), and a default is a literal when it is an integer or a
// quoted string cast to text ('[]'::text).
func (tx *Tx) readLayoutPG(table string, keys []string) (*imageLayout, error) {
	rows, err := tx.tx.QueryContext(tx.ctx, `SELECT column_name, data_type, column_default, is_identity, is_generated
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []layoutColumn
	for rows.Next() {
		var c layoutColumn
		var typ, identity, generated string
		if err := rows.Scan(&c.name, &typ, &c.dflt, &identity, &generated); err != nil {
			return nil, err
		}
		c.text, c.integer = typ == "text", typ == "bigint"
		c.plain = generated == "NEVER"
		c.rowid = identity == "YES"
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return buildLayout(cols, keys, "::text"), nil
}
