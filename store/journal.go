package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
)

// Write runs fn in one write transaction (BEGIN IMMEDIATE) for owner. Every
// row changed through tx.Insert, Update and Delete is journaled as ONE
// change, whose id ("c31", numbered per database) is returned; "" when fn
// changed no journaled row. When fn returns an error (or panics) nothing is
// kept and the error is returned as is. tool names what did it
// ("add_task"), for list_changes and undo's sentences. ErrNotFound when
// owner is no person. A [PersonCheck] of owner in ctx not made yet is made
// first: ErrPersonChanged, and fn does not run, when it fails.
func (s *Store) Write(ctx context.Context, owner int64, tool string, fn func(tx *Tx) error) (string, error) {
	change, err := s.write(ctx, owner, tool, fn, nil)
	return change, s.troubled(err)
}

// Read runs fn in one read transaction (a consistent snapshot; it does not
// block writers). Insert, Update, Delete, SaveKey and Exec are refused in it.
// A [PersonCheck] in ctx is made as by Write.
func (s *Store) Read(ctx context.Context, owner int64, fn func(tx *Tx) error) error {
	opt := &sql.TxOptions{ReadOnly: true}
	begin := ctx
	if s.engine == Postgres {
		// BEGIN rides with the first statement (see pipeConn); the
		// snapshot is taken at that statement either way.
		opt.Isolation = sql.LevelRepeatableRead
		begin = context.WithValue(ctx, lazyBeginKey{}, &lazyBegin{readOnly: true, check: pendingCheck(ctx, owner)})
	}
	var sqlTx sqlTx
	if h := s.takeHot(ctx); h != nil {
		// A kept connection whose BEGIN failed is closed; the pool says
		// whether the fault was the connection's or the database's.
		if ct, err := s.beginHot(ctx, h, false); err == nil {
			sqlTx = ct
		} else if ctx.Err() != nil {
			return s.troubled(fmt.Errorf("cannot read the database: %w", err))
		}
	}
	if sqlTx == nil {
		pooled, err := s.db.BeginTx(begin, opt)
		if err != nil {
			return s.troubled(fmt.Errorf("cannot read the database: %w", err))
		}
		sqlTx = pooled
	}
	defer sqlTx.Rollback()
	tx := &Tx{s: s, ctx: ctx, tx: sqlTx, owner: owner, readOnly: true, now: s.now()}
	if c := pendingCheck(ctx, owner); c != nil && s.engine == SQLite {
		if err := tx.checkPerson(c); err != nil {
			return err
		}
	}
	return s.troubled(fn(tx))
}

// write is Write with a hook that runs after the change row exists (undo
// uses it to link the two changes); the hook gets the new change's number.
func (s *Store) write(ctx context.Context, owner int64, tool string, fn func(tx *Tx) error,
	then func(tx *Tx, change int64) error) (string, error) {
	return s.writeChecking(ctx, owner, tool, true, fn, then)
}

// writeChecking is write; check false leaves ctx's pending [PersonCheck]
// on SQLite to fn, which makes it inside its own statement (AddTask's
// INSERT requires the person as checked) and settles it.
func (s *Store) writeChecking(ctx context.Context, owner int64, tool string, check bool, fn func(tx *Tx) error,
	then func(tx *Tx, change int64) error) (string, error) {
	sqlTx, end, err := s.beginWrite(ctx, owner)
	if err != nil {
		return "", fmt.Errorf("cannot start writing to the database: %w", err)
	}
	defer end() // the rollback in it is a no-op after Commit; covers errors and panics
	tx := &Tx{s: s, ctx: ctx, tx: sqlTx, owner: owner, now: s.now(), tool: tool}
	if c := pendingCheck(ctx, owner); c != nil && s.engine == SQLite && check {
		if err := tx.checkPerson(c); err != nil {
			return "", err
		}
	}
	if err := fn(tx); err != nil {
		if ctx.Err() != nil {
			return "", s.lockWaited(owner, err)
		}
		// An unknown owner shows up as a failed foreign key on insert or a
		// row not found; checking it only now keeps a query off every write.
		// A failed PersonCheck has already read the person's row.
		if errors.Is(err, ErrPersonChanged) {
			return "", err
		}
		if perr := tx.personExists(true); perr != nil {
			return "", perr
		}
		return "", err
	}
	if len(tx.touched) == 0 {
		if err := tx.personExists(false); err != nil {
			return "", err
		}
		return "", sqlTx.Commit()
	}
	summary := tx.summary
	if summary == "" {
		summary = tx.autoSummary()
	}
	if tx.change != 0 {
		return tx.journalRest(summary, then)
	}
	if tx.s.engine == Postgres {
		return tx.journalPostgres(tool, summary, then)
	}
	var change int64
	if len(tx.touched) == 1 {
		// One row rides in the change's own row (migration 00016).
		// Exec and the rowid, not RETURNING: no rows to open and read.
		t := tx.touched[0]
		var res sql.Result
		res, err = tx.exec(journalOneSQLite, owner, tool, summary, tx.now.Unix(), t.table, t.id, nullText(t.before), nullText(t.after))
		if err == nil {
			change, err = res.LastInsertId()
		}
	} else {
		err = tx.queryRow(`INSERT INTO changes (owner_id, tool, summary, created) VALUES (?, ?, ?, ?) RETURNING id`,
			owner, tool, summary, tx.now.Unix()).Scan(&change)
		if err == nil {
			err = tx.journalRows(change, 0)
		}
	}
	if err != nil {
		return "", fmt.Errorf("cannot journal the change: %w", err)
	}
	if then != nil {
		if err := then(tx, change); err != nil {
			return "", err
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return "", fmt.Errorf("cannot save the change: %w", s.commitFailed(err))
	}
	return changeID(change), nil
}

// journalOne journals a change that touched one row: the row's table, id
// and images are columns of the change's own row (migration 00016), which
// writes one B-tree page fewer than a change_rows row and one statement
// fewer. Readers see both kinds through the view journal_rows.
const journalOne = `INSERT INTO changes (owner_id, tool, summary, created, tbl, row_id, before, after)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

// journalOneSQLite is journalOne without RETURNING, for SQLite, where the
// change's id is the connection's last inserted rowid.
const journalOneSQLite = `INSERT INTO changes (owner_id, tool, summary, created, tbl, row_id, before, after)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// journalRows writes the rows touched[from:] of a change of two rows or
// more (or one that [Tx.FlushJournal] began) to change_rows, up to
// batchRows per statement (a power of two, so the statement cache holds a
// few texts): one statement per row was a sixth of a large import's write
// time.
func (tx *Tx) journalRows(change int64, from int) error {
	if tx.s.engine == Postgres {
		return tx.journalRowsPG(change, from)
	}
	const one = "(?, ?, ?, ?, ?, ?)"
	args := make([]any, 0, 6*batchRows)
	for start := from; start < len(tx.touched); {
		n := 1
		for n*2 <= min(batchRows, len(tx.touched)-start) {
			n *= 2
		}
		args = args[:0]
		for i, t := range tx.touched[start : start+n] {
			args = append(args, change, start+i, t.table, t.id, nullText(t.before), nullText(t.keptAfter()))
		}
		q := `INSERT INTO change_rows (change_id, seq, tbl, row_id, before, after) VALUES ` +
			one + strings.Repeat(", "+one, n-1)
		if _, err := tx.exec(q, args...); err != nil {
			return err
		}
		start += n
	}
	return nil
}

// journalRowsPG is journalRows on PostgreSQL: the rows as arrays (in
// their text form, arrayLiteral), unnested in order, in one statement
// whatever their number (as [journalPG] writes them).
func (tx *Tx) journalRowsPG(change int64, from int) error {
	rest := tx.touched[from:]
	if len(rest) == 0 {
		return nil
	}
	if len(rest) >= copyMin {
		// Each kept after image (a digest of an added row's, keptAfter)
		// is made as its row is read, beside the server inserting the
		// rows before it.
		src := &copyReader{n: len(rest), row: func(b []byte, i int) []byte {
			t := rest[i]
			b = strconv.AppendInt(b, change, 10)
			b = append(b, '\t')
			b = strconv.AppendInt(b, int64(from+i), 10)
			b = append(b, '\t')
			b = appendCopyText(b, t.table)
			b = append(b, '\t')
			b = strconv.AppendInt(b, t.id, 10)
			for _, img := range [2][]byte{t.before, t.keptAfter()} {
				b = append(b, '\t')
				if img == nil {
					b = append(b, `\N`...)
				} else {
					b = appendCopyText(b, img)
				}
			}
			return append(b, '\n')
		}}
		_, err := tx.exec(journalCopyPG, &copyIn{r: src})
		return err
	}
	var tbls, ids, befores, afters arrayLiteral
	tbls.reset()
	ids.reset()
	befores.reset()
	afters.reset()
	for _, t := range rest {
		tbls.text(t.table)
		ids.int(t.id)
		for _, img := range []struct {
			a *arrayLiteral
			b []byte
		}{{&befores, t.before}, {&afters, t.keptAfter()}} {
			if img.b == nil {
				img.a.null()
			} else {
				img.a.textBytes(img.b)
			}
		}
	}
	_, err := tx.exec(journalRowsPG, change, from, tbls.String(), ids.String(), befores.String(), afters.String())
	return err
}

// journalRowsPG writes change_rows of one change from arrays, seq counted
// from the second argument.
const journalRowsPG = `INSERT INTO change_rows (change_id, seq, tbl, row_id, before, after)
	SELECT ?::bigint, ?::bigint + v.n - 1, v.tbl, v.row_id, v.before, v.after
	FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[]) WITH ORDINALITY AS v(tbl, row_id, before, after, n)`

// journalCopyPG is journalRowsPG by COPY, for a change of many rows
// (copyin.go says why).
const journalCopyPG = `COPY change_rows (change_id, seq, tbl, row_id, before, after) FROM STDIN`

// FlushJournal writes the journal of the rows touched so far into the
// database now, in this transaction, and lets go of their images, so a
// Write of very many rows (an import of 50,000 events) does not hold an
// image of each until it ends: the change is still one, kept or dropped
// with the transaction, and undone whole. The change's row is made at the
// first call; a row touched again later has its after image rewritten when
// the Write ends. Call Summarize before the Write ends: the summary made
// from the rows touched needs their images.
func (tx *Tx) FlushJournal() error {
	if err := tx.writable("FlushJournal"); err != nil {
		return err
	}
	if tx.flushed == len(tx.touched) {
		return nil
	}
	if tx.change == 0 {
		err := tx.queryRow(`INSERT INTO changes (owner_id, tool, summary, created) VALUES (?, ?, ?, ?) RETURNING id`,
			tx.owner, tx.tool, "", tx.now.Unix()).Scan(&tx.change)
		if err != nil {
			return fmt.Errorf("cannot journal the change: %w", err)
		}
	}
	if err := tx.journalRows(tx.change, tx.flushed); err != nil {
		return fmt.Errorf("cannot journal the change: %w", err)
	}
	for _, t := range tx.touched[tx.flushed:] {
		t.written, t.before, t.after, t.digest = true, nil, nil, nil
	}
	tx.flushed = len(tx.touched)
	return nil
}

// journalRest ends a Write whose change FlushJournal made: its summary,
// the rows touched since, the after images of rows touched again, the
// hook, the commit.
func (tx *Tx) journalRest(summary string, then func(tx *Tx, change int64) error) (string, error) {
	if _, err := tx.exec(`UPDATE changes SET summary = ? WHERE id = ?`, summary, tx.change); err != nil {
		return "", fmt.Errorf("cannot journal the change: %w", err)
	}
	if err := tx.journalRows(tx.change, tx.flushed); err != nil {
		return "", fmt.Errorf("cannot journal the change: %w", err)
	}
	for _, t := range tx.touched[:tx.flushed] {
		if t.stale {
			if _, err := tx.exec(`UPDATE change_rows SET after = ? WHERE change_id = ? AND seq = ?`, nullText(t.keptAfter()), tx.change, t.seq); err != nil {
				return "", fmt.Errorf("cannot journal the change: %w", err)
			}
		}
	}
	if then != nil {
		if err := then(tx, tx.change); err != nil {
			return "", err
		}
	}
	if err := tx.tx.Commit(); err != nil {
		return "", fmt.Errorf("cannot save the change: %w", tx.s.commitFailed(err))
	}
	return changeID(tx.change), nil
}

// journalPG is the journal of a change on PostgreSQL: the changes row and
// all its change_rows in one statement (the rows as arrays, unnested in
// order), which without a then hook also carries the COMMIT (see
// pipeConn), so a write's journal and commit are one round trip.
const journalPG = `WITH c AS (INSERT INTO changes (owner_id, tool, summary, created) VALUES (?, ?, ?, ?) RETURNING id),
	r AS (INSERT INTO change_rows (change_id, seq, tbl, row_id, before, after)
		SELECT c.id, v.seq - 1, v.tbl, v.row_id, v.before, v.after FROM c,
		unnest(?::text[], ?::bigint[], ?::text[], ?::text[]) WITH ORDINALITY AS v(tbl, row_id, before, after, seq))
	SELECT id FROM c`

// journalPostgres journals tx's rows as one change, runs then, and
// commits; see [journalPG] ([journalOne] for a change of one row).
func (tx *Tx) journalPostgres(tool, summary string, then func(tx *Tx, change int64) error) (string, error) {
	ctx := tx.ctx
	var done committed
	if then == nil {
		ctx = withCommit(ctx, &done)
	}
	var change int64
	var err error
	if n := len(tx.touched); n == 1 {
		t := tx.touched[0]
		err = tx.tx.QueryRowContext(ctx, journalOne, tx.owner, tool, summary, tx.now.Unix(), t.table, t.id, textPtr(t.before), textPtr(t.after)).Scan(&change)
	} else {
		tbls, ids := make([]string, n), make([]int64, n)
		befores, afters := make([]*string, n), make([]*string, n)
		for i, t := range tx.touched {
			tbls[i], ids[i] = t.table, t.id
			befores[i], afters[i] = textPtr(t.before), textPtr(t.keptAfter())
		}
		err = tx.tx.QueryRowContext(ctx, journalPG, tx.owner, tool, summary, tx.now.Unix(), tbls, ids, befores, afters).Scan(&change)
	}
	if err != nil {
		if then == nil && !done.ok {
			// COMMIT rode in the same batch: a connection lost meanwhile
			// may have lost its answer, not the COMMIT itself.
			return "", fmt.Errorf("cannot save the change: %w", tx.s.commitFailed(err))
		}
		return "", fmt.Errorf("cannot journal the change: %w", err)
	}
	if then != nil {
		if err := then(tx, change); err != nil {
			return "", err
		}
	}
	// With COMMIT already answered this only closes the *sql.Tx.
	if err := tx.tx.Commit(); err != nil && !done.ok {
		return "", fmt.Errorf("cannot save the change: %w", tx.s.commitFailed(err))
	}
	return changeID(change), nil
}

// written is row id of table as this transaction last wrote it (the image
// its RETURNING gave, which every later change of the row in the
// transaction replaces), so reading it back costs no statement (on
// PostgreSQL a round trip): a task's reminders are checked right after it
// is added. The image leaves out the derived list columns, which only
// execWrite changes besides. ok is false for a row this transaction did
// not write, or whose image FlushJournal let go of.
func (tx *Tx) written(table string, id int64) (r Row, ok bool) {
	if tx.readOnly {
		return nil, false
	}
	t := tx.touchOf(table, id)
	if t == nil || t.after == nil {
		return nil, false
	}
	r, err := decodeRow(t.after)
	return r, err == nil
}

// keptAfter is the after image change_rows keeps of t. For a row the
// change added to a table whose rows are items, not parts of one, it is a
// digest of the image ({"$sha256": …}, digestImage): the row as the change
// left it is the before image of the next change in the journal that
// touched it or, if none did, the row as it is, if its digest matches
// (addedImages). Keeping each added row again was most of what a large
// import wrote (32 of 49.5 MB after 50,000 events). A part's image names
// its item, which list_changes and CalDAV sync read from it, so it is kept
// whole; so is the image of a change of one row (journalOne), which costs
// no statement.
func (t *touch) keptAfter() []byte {
	if t.digestKept() {
		if t.digest != nil {
			return t.digest
		}
		return digestImage(t.after)
	}
	return t.after
}

// digestKept says whether change_rows keeps a digest of t's after image
// (keptAfter).
func (t *touch) digestKept() bool {
	return t.added && t.after != nil && addedDigested(t.table)
}

// addedDigested says whether change_rows keeps digests of the images of
// rows added to table (keptAfter).
func addedDigested(table string) bool { return !IsPart(table) && !keepAdded }

// digestImage is the journal's stand-in for the image img of an added
// row: the first 128 bits of its SHA-256, as a JSON object that no row's
// image can be (a row's image has its id).
func digestImage(img []byte) []byte {
	sum := sha256.Sum256(img)
	b := append(make([]byte, 0, 48), `{"$sha256":"`...)
	b = hex.AppendEncode(b, sum[:16])
	return append(b, `"}`...)
}

// isDigest reports whether img is a digestImage.
func isDigest(img []byte) bool { return bytes.HasPrefix(img, []byte(`{"$sha256":"`)) }

// keepAdded, when set (by a test), makes change_rows keep the after image
// of every added row, as it did before keptAfter, so a test can hold the
// images a batch insert made to the rows stored.
var keepAdded bool

func textPtr(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// personExists checks that the owner is a person. On PostgreSQL, after
// an error (failed true), it asks outside the transaction, which the error
// may have aborted; otherwise inside it, on the connection it holds (a
// command on PostgreSQL opened a second connection, about 25 ms, for a
// write that changed nothing).
func (tx *Tx) personExists(failed bool) error {
	var rows *sql.Rows
	var err error
	if tx.s.engine == Postgres && failed {
		rows, err = tx.s.db.QueryContext(tx.ctx, `SELECT 1 FROM people WHERE id = ?`, tx.owner)
	} else {
		rows, err = tx.query(`SELECT 1 FROM people WHERE id = ?`, tx.owner)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return fmt.Errorf("there is no person with id %d: %w", tx.owner, ErrNotFound)
	}
	return nil
}

func nullText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func changeID(n int64) string { return "c" + strconv.FormatInt(n, 10) }

// parseChange reads "c31" (or "C31", or "31") into 31.
func parseChange(s string) (int64, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "c"), "C")
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("“change” must be a change id such as “c31” (list_changes shows them), not %s", args.Quote(s))
	}
	return n, nil
}

// action says what a change did to one row, from its images.
func action(before, after []byte) string {
	switch {
	case before == nil:
		return "added"
	case !deleted(before) && deleted(after):
		return "deleted"
	case deleted(before) && !deleted(after):
		return "restored"
	}
	return "changed"
}

func deleted(img []byte) bool {
	var r struct {
		DeletedAt *string `json:"deleted_at"`
	}
	return json.Unmarshal(img, &r) == nil && r.DeletedAt != nil
}

func (tx *Tx) autoSummary() string {
	rows := make([]ChangeRow, 0, len(tx.touched))
	for _, t := range tx.touched {
		rows = append(rows, ChangeRow{Table: t.table, ID: t.id, Label: label(t.table, t.id),
			Action: action(t.before, t.after), Parent: parentLabel(t.table, t.before, t.after)})
	}
	return Describe(rows, 5)
}

// Change is one journaled Write, as list_changes shows it.
type Change struct {
	ID       string    // "c31"
	Tool     string    // what made it, "add_task"
	Summary  string    // one line
	Created  time.Time // UTC, whole seconds
	Undoes   string    // the change this one undid, "" if none
	UndoneBy string    // the change that undid this one, "" if none
	// Rows are the first rows the change touched, in journal order, at
	// most [ChangeRowsRead]; RowsTotal is how many it touched in all.
	Rows      []ChangeRow
	RowsTotal int
}

// ChangeRowsRead is the most rows of one change that [Store.Changes] and
// [Store.ChangeByID] read: a change of an import can hold 50,000, and a
// listing pays for what it shows.
const ChangeRowsRead = 100

// ChangeRow is one row a change touched.
type ChangeRow struct {
	Table  string // "tasks"
	ID     int64  // row id
	Label  string // "t12"
	Action string // added, changed, deleted, restored
	// Parent is the label of the item a part row belongs to ("t12" for a
	// completion of task 12; see IsPart), "" for an item's own row.
	Parent string
}

// Changes lists owner's most recent changes, newest first; limit is
// clamped to 1…200 (0 means 20).
func (s *Store) Changes(ctx context.Context, owner int64, limit int) ([]Change, error) {
	if limit <= 0 {
		limit = 20
	}
	return s.changes(ctx, owner, 0, 0, min(limit, 200), true)
}

// ChangesBefore is [Store.Changes] of owner's changes older than before
// (a change id, "c31"; "" for the newest), at most limit (up to 201, a
// page of 200 and the one that says there is more): a page by the
// journal's key, whatever its length. An id that is not a change id is an
// error naming it.
func (s *Store) ChangesBefore(ctx context.Context, owner int64, before string, limit int) ([]Change, error) {
	var below int64
	if before != "" {
		n, err := parseChange(before)
		if err != nil {
			return nil, err
		}
		below = n
	}
	if limit <= 0 {
		limit = 20
	}
	return s.changes(ctx, owner, 0, below, min(limit, 201), true)
}

// ChangeByID is one of owner's changes ("c31"); ErrNotFound when the id is
// not one of owner's.
func (s *Store) ChangeByID(ctx context.Context, owner int64, change string) (Change, error) {
	n, err := parseChange(change)
	if err != nil {
		return Change{}, err
	}
	out, err := s.changes(ctx, owner, n, 0, 1, true)
	if err != nil {
		return Change{}, err
	}
	if len(out) == 0 {
		return Change{}, fmt.Errorf("%s is not one of your changes; list_changes shows them: %w", changeID(n), ErrNotFound)
	}
	return out[0], nil
}

// ChangeHead is ChangeByID without the change's rows (Rows is nil): what
// names a change (its tool, what it undid) without reading the rows of
// an import of 50,000 events.
func (s *Store) ChangeHead(ctx context.Context, owner int64, change string) (Change, error) {
	n, err := parseChange(change)
	if err != nil {
		return Change{}, err
	}
	out, err := s.changes(ctx, owner, n, 0, 1, false)
	if err != nil {
		return Change{}, err
	}
	if len(out) == 0 {
		return Change{}, fmt.Errorf("%s is not one of your changes; list_changes shows them: %w", changeID(n), ErrNotFound)
	}
	return out[0], nil
}

// changes reads owner's changes newest first; only change id when only > 0;
// their rows with rows.
func (s *Store) changes(ctx context.Context, owner, only, below int64, limit int, rows bool) ([]Change, error) {
	list, err := s.db.QueryContext(ctx, `SELECT id, tool, summary, created, undoes, undone_by
		FROM changes WHERE owner_id = ? AND (? = 0 OR id = ?) AND (? = 0 OR id < ?) ORDER BY id DESC LIMIT ?`,
		owner, only, only, below, below, limitArg(limit))
	if err != nil {
		return nil, err
	}
	defer list.Close()
	var out []Change
	for list.Next() {
		var c Change
		var id, created int64
		var undoes, undoneBy sql.NullInt64
		if err := list.Scan(&id, &c.Tool, &c.Summary, &created, &undoes, &undoneBy); err != nil {
			return nil, err
		}
		c.ID, c.Created = changeID(id), time.Unix(created, 0).UTC()
		if undoes.Valid {
			c.Undoes = changeID(undoes.Int64)
		}
		if undoneBy.Valid {
			c.UndoneBy = changeID(undoneBy.Int64)
		}
		out = append(out, c)
	}
	if err := list.Err(); err != nil {
		return nil, err
	}
	list.Close()
	if len(out) == 0 || !rows {
		return out, nil
	}
	for i := range out {
		if err := s.changeRows(ctx, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// changeRows reads c's first [ChangeRowsRead] rows by the journal's key
// and, when there are more, counts them all.
func (s *Store) changeRows(ctx context.Context, c *Change) error {
	id, _ := parseChange(c.ID)
	// change_rows by its key, then the one row a change may hold inline
	// (migration 00016), not the journal_rows view: SQLite sorts the
	// view's rows before it cuts them.
	rr, err := s.db.QueryContext(ctx, `SELECT tbl, row_id, before, after FROM change_rows
		WHERE change_id = ? ORDER BY seq LIMIT ?`, id, ChangeRowsRead+1)
	if err != nil {
		return err
	}
	defer rr.Close()
	n := 0
	for rr.Next() {
		if n++; n > ChangeRowsRead {
			break
		}
		var rowID int64
		var tbl string
		var before, after []byte
		if err := rr.Scan(&tbl, &rowID, &before, &after); err != nil {
			return err
		}
		c.Rows = append(c.Rows, ChangeRow{Table: tbl, ID: rowID, Label: label(tbl, rowID),
			Action: action(before, after), Parent: parentLabel(tbl, before, after)})
	}
	if err := rr.Err(); err != nil {
		return err
	}
	rr.Close()
	c.RowsTotal = len(c.Rows)
	if n > ChangeRowsRead {
		return s.db.QueryRowContext(ctx, `SELECT count(*) FROM change_rows WHERE change_id = ?`, id).Scan(&c.RowsTotal)
	}
	if n > 0 {
		return nil
	}
	var tbl sql.NullString
	var rowID sql.NullInt64
	var before, after []byte
	err = s.db.QueryRowContext(ctx, `SELECT tbl, row_id, before, after FROM changes WHERE id = ?`, id).Scan(&tbl, &rowID, &before, &after)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !tbl.Valid {
		return nil
	}
	if err != nil {
		return err
	}
	c.Rows = append(c.Rows, ChangeRow{Table: tbl.String, ID: rowID.Int64, Label: label(tbl.String, rowID.Int64),
		Action: action(before, after), Parent: parentLabel(tbl.String, before, after)})
	c.RowsTotal = 1
	return nil
}

// Undo puts back the rows of one of owner's changes as they were before it,
// in one transaction, journaled as a new change (returned) so that undoing
// the undo redoes. change "" means owner's latest change that is neither
// undone nor an undo itself, so repeated undos walk back in time.
//
// Rows the change updated or deleted get every column of their before-image
// back (updated_at too: the row is as it was). Rows it inserted are
// soft-deleted, so even an undone add can be brought back.
//
// It refuses (ErrConflict) when a row is no longer as the change left it:
// the sentence names the later change to undo first ("t12 was changed
// since by c35 (update_task); undo c35 first."). A change already undone is
// refused with the change that undid it. ErrNotFound for an id that is not
// one of owner's changes.
func (s *Store) Undo(ctx context.Context, owner int64, change string) (string, error) {
	var target int64
	if strings.TrimSpace(change) != "" {
		n, err := parseChange(change)
		if err != nil {
			return "", err
		}
		target = n
	}
	var undoes sql.NullInt64
	return s.undo(ctx, owner, target, &undoes)
}

// undo is Undo after the change id was read; its error carries the
// store's Trouble.
func (s *Store) undo(ctx context.Context, owner, target int64, undoes *sql.NullInt64) (string, error) {
	change, err := s.write(ctx, owner, "undo", func(tx *Tx) error {
		if target == 0 {
			err := tx.queryRow(`SELECT id FROM changes WHERE owner_id = ? AND undone_by IS NULL AND undoes IS NULL
				ORDER BY id DESC LIMIT 1`, owner).Scan(&target)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("there is no change left to undo: %w", ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		var tool string
		var undoneBy sql.NullInt64
		err := tx.queryRow(`SELECT tool, undoes, undone_by FROM changes WHERE id = ? AND owner_id = ?`,
			target, owner).Scan(&tool, undoes, &undoneBy)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s is not one of your changes; list_changes shows them: %w", changeID(target), ErrNotFound)
		}
		if err != nil {
			return err
		}
		if undoneBy.Valid {
			return fmt.Errorf("%s was already undone by %s; undo %s to redo it: %w",
				changeID(target), changeID(undoneBy.Int64), changeID(undoneBy.Int64), ErrConflict)
		}
		// The change's rows are read and put back a batch at a time, and
		// the undo's own journal written after each full batch, so an
		// undo of a large import holds one batch of images, not all.
		for after := int64(-1); ; {
			rows, err := tx.loadRows(target, after, undoBatch)
			if err != nil {
				return err
			}
			if err := tx.revertRows(target, rows); err != nil {
				return err
			}
			if len(rows) < undoBatch {
				break
			}
			after = rows[len(rows)-1].seq
			if undoBatchHook != nil {
				undoBatchHook(tx)
			}
			if err := tx.FlushJournal(); err != nil {
				return err
			}
		}
		tx.Summarize("undid " + changeID(target) + " (" + tool + ")")
		return nil
	}, func(tx *Tx, change int64) error {
		if _, err := tx.tx.ExecContext(ctx, `UPDATE changes SET undoes = ? WHERE id = ?`, target, change); err != nil {
			return err
		}
		if _, err := tx.tx.ExecContext(ctx, `UPDATE changes SET undone_by = ? WHERE id = ? AND owner_id = ?`, change, target, owner); err != nil {
			return err
		}
		// Undoing an undo is a redo: the change it had undone is live again,
		// so it becomes undoable (and the default target) once more.
		if undoes.Valid {
			_, err := tx.tx.ExecContext(ctx, `UPDATE changes SET undone_by = NULL WHERE id = ? AND owner_id = ?`, undoes.Int64, owner)
			return err
		}
		return nil
	})
	return change, s.troubled(err)
}

type journalRow struct {
	seq           int64
	table         string
	id            int64
	before, after []byte
	// asIs says the row as the change left it is the row as it is now if
	// its digest is r.after: an added row whose image the journal keeps
	// as a digest (keptAfter) and that no later change touched
	// (addedImages).
	asIs bool
}

// leftAs is what r's row must be now for the change to be undone: its
// after image, or current itself when the change left what current is.
func (r journalRow) leftAs(current []byte) []byte {
	if r.asIs && bytes.Equal(digestImage(current), r.after) {
		return current
	}
	return r.after
}

// addedImages fills in the after images of rows that change added and
// kept a digest of (keptAfter): the before image of the first later change
// of the owner that touched the row is the row as change left it; a row no
// later change touched is as change left it if its digest matches (asIs).
// The later journal is read once per table of such rows, from change on.
func (tx *Tx) addedImages(change int64, rows []journalRow) error {
	byTable := map[string][]int{}
	for i, r := range rows {
		if r.before == nil && isDigest(r.after) {
			byTable[r.table] = append(byTable[r.table], i)
		}
	}
	for table, at := range byTable {
		// Up to this transaction's own change, if it has one yet: an undo
		// writes its journal a batch at a time, and reading back what it
		// wrote made undoing a large import grow with its square.
		upTo := int64(math.MaxInt64)
		if tx.change != 0 {
			upTo = tx.change
		}
		ids := make([]any, 0, len(at)+4)
		ids = append(ids, change, upTo, tx.owner, table)
		for _, i := range at {
			ids = append(ids, rows[i].id)
		}
		q, err := tx.query(`SELECT r.row_id, r.before FROM journal_rows r JOIN changes c ON c.id = r.change_id
			WHERE r.change_id > ? AND r.change_id < ? AND c.owner_id = ? AND r.tbl = ? AND r.row_id IN (?`+strings.Repeat(", ?", len(at)-1)+`)
			ORDER BY r.change_id, r.seq`, ids...)
		if err != nil {
			return err
		}
		first := map[int64][]byte{}
		for q.Next() {
			var id int64
			var before []byte
			if err := q.Scan(&id, &before); err != nil {
				q.Close()
				return err
			}
			if _, ok := first[id]; !ok {
				first[id] = before
			}
		}
		if err := q.Close(); err != nil {
			return err
		}
		for _, i := range at {
			if img, ok := first[rows[i].id]; ok && img != nil {
				rows[i].after = img
			} else {
				rows[i].asIs = true
			}
		}
	}
	return nil
}

// loadRows reads up to limit rows of change, in order, from the place
// after seq after on (-1: from the first). A change of one row keeps it in
// its own row (migration 00016), at place 0; the others are read from
// change_rows by its key, so each batch costs its own rows (the view
// journal_rows would sort every row of the change for each batch).
func (tx *Tx) loadRows(change, after int64, limit int) ([]journalRow, error) {
	var out []journalRow
	if after < 0 {
		var r journalRow
		err := tx.queryRow(`SELECT tbl, row_id, before, after FROM changes WHERE id = ? AND tbl IS NOT NULL`, change).
			Scan(&r.table, &r.id, &r.before, &r.after)
		switch {
		case err == nil:
			out = append(out, r)
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	}
	rows, err := tx.query(`SELECT seq, tbl, row_id, before, after FROM change_rows
		WHERE change_id = ? AND seq > ? ORDER BY seq LIMIT ?`, change, after, limit-len(out))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r journalRow
		if err := rows.Scan(&r.seq, &r.table, &r.id, &r.before, &r.after); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// revertRows puts back rows of change, in order: a run of rows the change
// added to one table goes back in one statement (an import's 50,000 took
// two round trips each), as does a run of rows of one table that the
// change altered alike (the same columns set to the same values: the undo
// of an import, which a redo takes back); any other row on its own.
func (tx *Tx) revertRows(change int64, rows []journalRow) error {
	if err := tx.addedImages(change, rows); err != nil {
		return err
	}
	var sets []string
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].before == nil && rows[j].table == rows[i].table {
			j++
		}
		if j-i > 1 {
			if err := tx.revertAdded(change, rows[i:j]); err != nil {
				return err
			}
			i = j
			continue
		}
		if rows[i].before != nil && !perRowRevert {
			if sets == nil {
				sets = make([]string, len(rows))
			}
			j = i
			for j < len(rows) && rows[j].before != nil && rows[j].table == rows[i].table {
				if sets[j] == "" {
					sets[j] = alike(rows[j])
				}
				if sets[j] == "-" || sets[j] != sets[i] {
					break
				}
				j++
			}
			if j-i > 1 {
				done, err := tx.revertAlike(change, rows[i:j])
				if err != nil {
					return err
				}
				if !done {
					for _, r := range rows[i:j] {
						if err := tx.revert(change, r); err != nil {
							return err
						}
					}
				}
				i = j
				continue
			}
		}
		if err := tx.revert(change, rows[i]); err != nil {
			return err
		}
		i++
	}
	return nil
}

// undoBatchHook, when set (by a test), sees the undo's transaction after
// each full batch, before its journal is written.
var undoBatchHook func(tx *Tx)

// undoBatch is the most rows of a change Undo reads and puts back at a
// time, and the most added rows revertAdded takes back in one statement.
const undoBatch = 512

// revertAdded is revert of rows the change added, all of one table: each
// is checked to be still as the change left it, then all are deleted
// (soft) in one statement. A row that is not (changed since, purged) is
// left to revert, which says why the change cannot be undone.
func (tx *Tx) revertAdded(change int64, rs []journalRow) error {
	table := rs[0].table
	ids := make([]any, 0, len(rs)+3)
	marks := "?" + strings.Repeat(", ?", len(rs)-1)
	for _, r := range rs {
		ids = append(ids, r.id)
	}
	// +owner_id: by the ids, not by an index on the owner, which SQLite
	// otherwise picks and walks every row of the owner for each batch.
	current, err := tx.images(`SELECT * FROM `+table+` WHERE +owner_id = ? AND id IN (`+marks+`)`, append([]any{tx.owner}, ids...)...)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if img, ok := current[r.id]; !ok || !bytes.Equal(img, r.leftAs(img)) {
			for _, r := range rs {
				if err := tx.revert(change, r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	now := stamp(tx.now)
	after, err := tx.images(`UPDATE `+table+` SET deleted_at = ?, updated_at = ? WHERE +owner_id = ? AND id IN (`+marks+`) RETURNING *`,
		append([]any{now, now, tx.owner}, ids...)...)
	if err != nil {
		return fmt.Errorf("cannot take back what %s added: %w", changeID(change), err)
	}
	for _, r := range rs {
		img, ok := after[r.id]
		if !ok {
			return fmt.Errorf("cannot take back %s, which %s added", label(table, r.id), changeID(change))
		}
		tx.record(table, r.id, current[r.id], img, false)
	}
	return nil
}

// perRowRevert, when set (by a test), puts back every row the change
// altered on its own, as revert does: the oracle of the batched path.
var perRowRevert bool

// revertAlikeHook, when set (by a test), is told how many rows each
// statement of revertAlike put back.
var revertAlikeHook func(rows int)

// alike is the key of what putting r back sets: its columns whose value
// in the before image differs from the after image, with the before
// values, as a JSON object. Rows of one table with the same key go back in
// one statement (revertAlike). "-" for a row that has to go back on its
// own: its images do not name the same columns, or cannot be read.
func alike(r journalRow) string {
	before, ok := imageFields(r.before)
	if !ok {
		return "-"
	}
	after, ok := imageFields(r.after)
	if !ok || len(after) != len(before) {
		return "-"
	}
	b := []byte{'{'}
	for i, f := range before {
		g := after[i]
		if !bytes.Equal(f.key, g.key) {
			return "-"
		}
		if bytes.Equal(f.value, g.value) {
			continue
		}
		if k := string(f.key); k == `"id"` || k == `"owner_id"` {
			return "-"
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, f.key...), ':'), f.value...)
	}
	if len(b) == 1 {
		return "-"
	}
	return string(append(b, '}'))
}

// field is one member of a journal image as written: its key and its
// value, each as JSON text.
type field struct{ key, value []byte }

// imageFields splits a journal image (a JSON object, as encodeRow writes
// it) into its members, in order, without decoding them; ok is false for
// anything else.
func imageFields(img []byte) (out []field, ok bool) {
	i := skipSpace(img, 0)
	if i >= len(img) || img[i] != '{' {
		return nil, false
	}
	i = skipSpace(img, i+1)
	if i < len(img) && img[i] == '}' {
		return nil, skipSpace(img, i+1) == len(img)
	}
	for {
		if i >= len(img) || img[i] != '"' {
			return nil, false
		}
		k := skipJSON(img, i)
		if k < 0 {
			return nil, false
		}
		j := skipSpace(img, k)
		if j >= len(img) || img[j] != ':' {
			return nil, false
		}
		j = skipSpace(img, j+1)
		v := skipJSON(img, j)
		if v < 0 {
			return nil, false
		}
		out = append(out, field{img[i:k], img[j:v]})
		i = skipSpace(img, v)
		if i >= len(img) {
			return nil, false
		}
		if img[i] == '}' {
			return out, skipSpace(img, i+1) == len(img)
		}
		if img[i] != ',' {
			return nil, false
		}
		i = skipSpace(img, i+1)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSON is the end of the JSON value that starts at b[i] (a string, a
// scalar, an object or an array, nested), -1 when there is none.
func skipJSON(b []byte, i int) int {
	start, depth := i, 0
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return -1
			}
			i++
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > 0 && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i
		}
	}
	if depth != 0 || i == start {
		return -1
	}
	return i
}

// revertAlike is revert of rows of one table that the change altered
// alike (alike gives them one key): each is checked to be still as the
// change left it, then all are put back in one statement. done is false,
// and nothing is written, when a row is not as the change left it, when
// the table has not every column the images name, or when a row cannot
// come back (another live row holds its UID): revert, row by row, then
// says why or puts back what it can.
func (tx *Tx) revertAlike(change int64, rs []journalRow) (done bool, err error) {
	table := rs[0].table
	cols, err := tx.s.columns(tx.ctx, tx.tx, table)
	if err != nil {
		return false, err
	}
	set, err := decodeRow([]byte(alike(rs[0])))
	if err != nil {
		return false, nil
	}
	whole, err := decodeRow(rs[0].before)
	if err != nil {
		return false, nil
	}
	for k := range whole {
		if !contains(cols, k) {
			return false, nil
		}
	}
	if _, had := whole["remind_from"]; !had && contains(cols, "remind_from") {
		return false, nil
	}
	ids := make([]any, 0, len(rs)+1)
	marks := "?" + strings.Repeat(", ?", len(rs)-1)
	for _, r := range rs {
		ids = append(ids, r.id)
	}
	current, err := tx.images(`SELECT * FROM `+table+` WHERE +owner_id = ? AND id IN (`+marks+`)`, append([]any{tx.owner}, ids...)...)
	if err != nil {
		return false, err
	}
	for _, r := range rs {
		if img, ok := current[r.id]; !ok || !bytes.Equal(img, r.after) {
			return false, nil
		}
	}
	var assign []string
	var args []any
	for _, k := range sortedKeys(set) {
		assign = append(assign, k+" = ?")
		args = append(args, set[k])
	}
	args = append(append(args, tx.owner), ids...)
	// A savepoint, so that a row that cannot come back (a unique index)
	// leaves the transaction as it was, on PostgreSQL too.
	if _, err := tx.exec(`SAVEPOINT revert_alike`); err != nil {
		return false, err
	}
	after, err := tx.images(`UPDATE `+table+` SET `+strings.Join(assign, ", ")+
		` WHERE +owner_id = ? AND id IN (`+marks+`) RETURNING *`, args...)
	if err != nil {
		if _, rerr := tx.exec(`ROLLBACK TO SAVEPOINT revert_alike`); rerr != nil {
			return false, rerr
		}
		if _, rerr := tx.exec(`RELEASE SAVEPOINT revert_alike`); rerr != nil {
			return false, rerr
		}
		if uniqueViolation(err) {
			return false, nil
		}
		return false, fmt.Errorf("cannot put back what %s changed: %w", changeID(change), err)
	}
	if _, err := tx.exec(`RELEASE SAVEPOINT revert_alike`); err != nil {
		return false, err
	}
	if revertAlikeHook != nil {
		revertAlikeHook(len(rs))
	}
	for _, r := range rs {
		img, ok := after[r.id]
		if !ok {
			return false, fmt.Errorf("cannot put back %s, which %s changed", label(table, r.id), changeID(change))
		}
		tx.record(table, r.id, current[r.id], img, false)
		if err := tx.rederive(table, r.id); err != nil {
			return false, err
		}
	}
	return true, nil
}

// images runs a query of whole rows (SELECT * or RETURNING *) and gives
// each row's journal image by id.
func (tx *Tx) images(q string, args ...any) (map[int64][]byte, error) {
	rows, err := tx.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	idAt := slices.Index(cols, "id")
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := map[int64][]byte{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		id, _ := vals[idAt].(int64)
		img, err := encodeRow(cols, vals)
		if err != nil {
			return nil, err
		}
		out[id] = img
	}
	return out, rows.Err()
}

// revert puts one row back to its before-image, after checking that it is
// still exactly as change left it.
func (tx *Tx) revert(change int64, r journalRow) error {
	cols, err := tx.s.columns(tx.ctx, tx.tx, r.table)
	if err != nil {
		return err
	}
	lbl := label(r.table, r.id)
	current, err := tx.image(r.table, r.id, false)
	if parent := parentLabel(r.table, r.before, current); parent != "" {
		// A part is spoken of through its item, as list_changes does:
		// "tc5" is no id a person or a model can use.
		lbl = "a " + Noun(r.table, 1) + " of " + parent
	}
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%s no longer exists (it was purged or its owner removed), so %s cannot be undone: %w",
			lbl, changeID(change), ErrConflict)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(current, r.leftAs(current)) {
		var later int64
		var tool string
		err := tx.queryRow(`SELECT c.id, c.tool FROM journal_rows r JOIN changes c ON c.id = r.change_id
			WHERE r.change_id > ? AND r.tbl = ? AND r.row_id = ? AND c.owner_id = ?
			ORDER BY r.change_id DESC LIMIT 1`, change, r.table, r.id, tx.owner).Scan(&later, &tool)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s was changed since %s outside the change journal, so undoing %s would lose that change: %w",
				lbl, changeID(change), changeID(change), ErrConflict)
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%s was changed since by %s (%s); undo %s first: %w",
			lbl, changeID(later), tool, changeID(later), ErrConflict)
	}
	var after []byte
	if r.before == nil {
		now := stamp(tx.now)
		_, after, err = tx.returning(`UPDATE `+r.table+` SET deleted_at = ?, updated_at = ?
			WHERE id = ? AND owner_id = ? RETURNING *`, now, now, r.id, tx.owner)
	} else {
		var img Row
		img, err = decodeRow(r.before)
		if err != nil {
			return fmt.Errorf("the journal entry of %s for %s is damaged: %v", changeID(change), lbl, err)
		}
		var assign []string
		var args []any
		// Columns added since the change keep their value; columns dropped
		// since are skipped.
		for _, k := range sortedKeys(img) {
			if k == "id" || k == "owner_id" || !contains(cols, k) {
				continue
			}
			assign = append(assign, k+" = ?")
			args = append(args, img[k])
		}
		if _, had := img["remind_from"]; !had && contains(cols, "remind_from") {
			// An image from before migration 00014: the reminder bounds
			// of the row it brings back are not known (the job reads such
			// a row as any, store/remind_bounds.go).
			assign = append(assign, "remind_from = NULL", "remind_until = NULL")
		}
		args = append(args, r.id, tx.owner)
		_, after, err = tx.returning(`UPDATE `+r.table+` SET `+strings.Join(assign, ", ")+
			` WHERE id = ? AND owner_id = ? RETURNING *`, args...)
	}
	if uniqueViolation(err) {
		// A live row holds what this one would take back (a UID made
		// again since, by a client or an import).
		return fmt.Errorf("%s cannot come back: another live item now holds its UID; delete that one first, then undo %s: %w",
			lbl, changeID(change), ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("cannot put %s back: %w", lbl, err)
	}
	tx.record(r.table, r.id, current, after, false)
	return tx.rederive(r.table, r.id)
}

// LookupKey finds an idempotency key of tx.Owner() for tool: the
// fingerprint of the arguments first used with it and the ref (an item id)
// it produced. A caller compares fingerprints: same means answer ref
// again, different means ErrConflict.
func (tx *Tx) LookupKey(tool, key string) (fingerprint, ref string, found bool, err error) {
	err = tx.queryRow(`SELECT fingerprint, ref FROM idempotency_keys WHERE owner_id = ? AND tool = ? AND key = ?`,
		tx.owner, tool, key).Scan(&fingerprint, &ref)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	return fingerprint, ref, err == nil, err
}

// SaveKey records an idempotency key of tx.Owner() for tool; it is kept at
// least 24 hours (Purge removes older ones). Saving a key again replaces it.
func (tx *Tx) SaveKey(tool, key, fingerprint, ref string) error {
	if err := tx.writable("SaveKey"); err != nil {
		return err
	}
	_, err := tx.tx.ExecContext(tx.ctx, `INSERT INTO idempotency_keys (owner_id, tool, key, fingerprint, ref, created)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner_id, tool, key)
		DO UPDATE SET fingerprint = excluded.fingerprint, ref = excluded.ref, created = excluded.created`,
		tx.owner, tool, key, fingerprint, ref, tx.now.Unix())
	return err
}
