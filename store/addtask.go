package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// AddTask adds t for owner as one journaled change made by tool, as a
// Write whose function calls [Tx.InsertTask] and [Tx.Summarize] does,
// unless owner has a task like t added at or after since (one
// [Tx.TasksLike] reads; a zero since looks for none): then it writes
// nothing and answers added false, and the caller reads those tasks in a
// Write of its own. zone is the owner's zone as the caller read it
// ([Tx.AssumeZone]); summary(ref) is the change's summary given the new
// task's label ("t12"). ErrNotFound when owner is no person.
//
// On SQLite the look for a task like t and the person check ride in the
// INSERT: three statements behind BEGIN (the INSERT, the journal,
// COMMIT), where a Write makes five.
//
// On PostgreSQL the look for a task like t, the person check, the
// INSERT and the journal are one statement sent with the lock, both one
// implicit transaction without BEGIN or COMMIT: one round trip, where a
// Write makes three. A [PersonCheck] of owner in ctx is made as by Write;
// when nothing was added it is left for the caller's next transaction to
// make again.
func (s *Store) AddTask(ctx context.Context, owner int64, tool, zone string, t task.Task, since time.Time,
	summary func(ref string) string) (id int64, change string, added bool, err error) {
	if s.engine == Postgres {
		id, change, added, ok, err := s.addTaskPostgres(ctx, owner, tool, zone, t, since, summary)
		if ok {
			return id, change, added, s.troubled(err)
		}
	}
	check := pendingCheck(ctx, owner)
	change, err = s.writeChecking(ctx, owner, tool, check == nil, func(tx *Tx) error {
		tx.AssumeZone(zone)
		row, err := tx.taskRow(t)
		if err != nil {
			return err
		}
		// The INSERT looks for a task like t and for the person as checked
		// itself: no statement of its own for either. When it adds nothing,
		// the person is read to tell which of the two stopped it.
		var where []string
		var args []any
		if !since.IsZero() {
			where = append(where, `NOT EXISTS (SELECT 1 FROM tasks`+tasksLikeWhere+`)`)
			args = append(args, tasksLikeArgs(owner, t, since)...)
		}
		if check != nil {
			where = append(where, personCheckedSQL)
			args = append(args, check.id, check.name, check.zone)
		}
		id, err = tx.insertIf(tasksTable, row, strings.Join(where, " AND "), args)
		if errors.Is(err, errNotInserted) {
			if check != nil {
				if err := tx.checkPerson(check); err != nil {
					return err
				}
			}
			if since.IsZero() {
				return errors.New("the task was not added")
			}
			return errLike
		}
		if err != nil {
			return err
		}
		if check != nil {
			check.settle(check.name, check.zone, true)
		}
		tx.Summarize(summary(label(tasksTable, id)))
		return nil
	}, nil)
	if errors.Is(err, errLike) {
		rearm(ctx)
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, s.troubled(err)
	}
	return id, change, true, nil
}

// personCheckedSQL holds when the person is stored with the name and zone
// a [PersonCheck] holds; its arguments are the id, the name and the zone.
const personCheckedSQL = `EXISTS (SELECT 1 FROM people WHERE id = ? AND name = ? AND zone = ?)`

// errLike ends AddTask's Write when there is a task like the new one.
var errLike = errors.New("store: a task like it exists")

// rearm leaves ctx's person check, made and passed by a transaction that
// wrote nothing, for the next transaction of the call to make again.
func rearm(ctx context.Context) {
	if c, _ := ctx.Value(personCheckKey{}).(*PersonCheck); c != nil {
		c.state.CompareAndSwap(checkSame, checkPending)
	}
}

// tasksLikeFenced is AddTask's look for a task like t on PostgreSQL:
// tasksLikeWhere's test, with the same arguments, the index part
// (owner_id, title_norm, created_at: tasks_owner_title) fenced off from
// the rest by OFFSET 0. The statement is a named one, and after five runs
// PostgreSQL plans it once for any values; with the table small or
// without statistics (a new database) that plan read the person's open
// tasks through another index (tasks_list_zone: owner_id, status) and
// filtered every one, a cost that grew with the person's tasks (0.4 ms a
// call at a few thousand). Fenced, the only index that answers the inner
// part is tasks_owner_title, whatever the statistics say.
const tasksLikeFenced = `NOT EXISTS (SELECT 1 FROM (SELECT deleted_at, status, due_date, due_time, due_zone FROM tasks
	WHERE ` + tasksLikeIndexed + ` OFFSET 0) AS alike WHERE ` + tasksLikeRest + `)`

// idMark stands for the new task's id in the image addTaskPostgres makes
// before the id is known; imageIDMark is how the image holds it.
const idMark = math.MinInt64

var imageIDMark = []byte(`"id":-9223372036854775808`)

// addTaskPostgres is AddTask on PostgreSQL in one statement:
//
//	WITH ins AS (INSERT INTO tasks (…) SELECT … WHERE NOT EXISTS (a task
//	  like t) AND EXISTS (the person as checked) RETURNING id),
//	ch AS (INSERT INTO changes (…) SELECT …, ins.id, NULL, image FROM ins
//	  RETURNING id)
//	SELECT ins.id, ch.id FROM ins, ch
//
// sent in one batch behind the owner's lock, the two one implicit
// transaction (implicitWrite). The journal's image is the one a Write
// makes from the row its INSERT returns, worked out from the values bound
// (every column of tasks is BIGINT or TEXT and reads back as bound)
// around the id, which the statement puts in; the summary likewise. The person check is no
// statement of its own: the INSERT requires the person as checked, so a
// failed check adds nothing, and only then is the person read, to tell a
// changed person from a task like t.
//
// ok is false, with nothing written, when it cannot make the image from
// the values (a column it does not know), or the statement broke a
// constraint (a person that does not exist, a check): AddTask then goes
// the general way, which words the error as Write does; so is a task
// with a due when zone is no zone (the general way reads the stored
// one, which works out the task's day). Any other error (a connection
// lost, the server shutting down) is the change's, as a Write's journal
// with COMMIT behind it says it.
func (s *Store) addTaskPostgres(ctx context.Context, owner int64, tool, zone string, t task.Task, since time.Time,
	summary func(ref string) string) (id int64, change string, added, ok bool, err error) {
	sumPre, sumPost, found := strings.Cut(summary("\x00"), "\x00")
	if !found || strings.Contains(sumPost, "\x00") {
		return 0, "", false, false, nil
	}
	prefix, _ := registered(tasksTable)
	// The INSERT requires the person as checked: the check is no
	// statement of its own in the batch.
	check := pendingCheck(ctx, owner)
	if _, err := tz.LoadZone(zone); err != nil && t.HasDue {
		return 0, "", false, false, nil // the general way reads the owner's zone
	}
	tx := &Tx{s: s, ctx: ctx, owner: owner, now: s.now(), tool: tool}
	tx.AssumeZone(zone)
	row, err := tx.taskRow(t)
	if err != nil {
		return 0, "", false, true, err
	}
	cols, err := s.columns(ctx, s.db, tasksTable)
	if err != nil {
		return 0, "", false, true, err
	}
	imgPre, imgPost, fits, err := tx.insertImage(cols, row)
	if err != nil || !fits {
		return 0, "", false, !fits, err
	}
	var q strings.Builder
	q.Grow(1024)
	q.WriteString(`WITH ins AS (INSERT INTO tasks (owner_id, updated_at`)
	keys := sortedKeys(row)
	for _, k := range keys {
		q.WriteString(", ")
		q.WriteString(k)
	}
	q.WriteString(`) SELECT ?, ?`)
	args := make([]any, 0, len(keys)+24)
	args = append(args, owner, stamp(tx.now))
	for _, k := range keys {
		if _, ok := row[k].(ownerZone); ok {
			q.WriteString(", " + ownerZoneSQL)
			args = append(args, owner)
			continue
		}
		q.WriteString(", ?")
		args = append(args, row[k])
	}
	q.WriteString(` WHERE true`)
	if !since.IsZero() {
		q.WriteString(` AND ` + tasksLikeFenced)
		args = append(args, tasksLikeArgs(owner, t, since)...)
	}
	if check != nil {
		q.WriteString(` AND ` + personCheckedSQL)
		args = append(args, check.id, check.name, check.zone)
	}
	q.WriteString(` RETURNING id),
	ch AS (INSERT INTO changes (owner_id, tool, summary, created, tbl, row_id, before, after)
		SELECT ?, ?, ? || ins.id || ?, ?, ?, ins.id, NULL, ? || ins.id || ? FROM ins RETURNING id)
	SELECT ins.id, ch.id FROM ins, ch`)
	args = append(args, owner, tool, sumPre+prefix, sumPost, tx.now.Unix(), tasksTable, imgPre, imgPost)

	var changeNo int64
	sent, err := s.implicitWrite(ctx, owner, q.String(), args, &id, &changeNo)
	if err != nil && !sent {
		return 0, "", false, true, fmt.Errorf("cannot start writing to the database: %w", err)
	}
	var pe *pgconn.PgError
	switch {
	case err == nil:
		if check != nil {
			check.settle(check.name, check.zone, true)
		}
		return id, changeID(changeNo), true, true, nil
	case errors.Is(err, sql.ErrNoRows):
		// Nothing added: a task like it, or the person not as checked,
		// which a read of the person tells apart.
		if check != nil {
			var name, zone string
			err := s.db.QueryRowContext(ctx, personCheckSQL, check.id).Scan(&name, &zone)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return 0, "", false, true, err
			}
			if err := check.settle(name, zone, err == nil); err != nil {
				return 0, "", false, true, err
			}
		}
		rearm(ctx)
		return 0, "", false, true, nil
	case errors.As(err, &pe) && strings.HasPrefix(pe.Code, "23"):
		// The statement broke a constraint (a person that does not
		// exist, a check), so its transaction was rolled back: nothing
		// was kept, and the general way words the error.
		rearm(ctx)
		return 0, "", false, false, nil
	}
	// The transaction ends at the batch's end: a connection lost
	// meanwhile may have lost its answer, not the commit itself.
	if ctx.Err() != nil {
		err = s.lockWaited(owner, err)
	}
	return 0, "", false, true, fmt.Errorf("cannot save the change: %w", s.commitFailed(err))
}

// implicitWrite runs q, a statement of one row whose columns scan into
// dest, for owner on PostgreSQL as one transaction without BEGIN or
// COMMIT: the owner's advisory lock (as [Store.Write] takes it) and q go
// in one pgx batch, which the server runs as one implicit transaction up
// to the batch's Sync, committed there unless a statement failed, and
// then rolled back whole (the protocol's extended query flow). The
// transaction is READ COMMITTED unless the server's default isolation
// says more. err is sql.ErrNoRows when q returned no row (the
// transaction was still committed: it wrote nothing); sent is false
// when nothing reached the server (no connection).
func (s *Store) implicitWrite(ctx context.Context, owner int64, q string, args []any, dest ...any) (sent bool, err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(*pipeConn)
		if !ok {
			return fmt.Errorf("store: a PostgreSQL connection of type %T", dc)
		}
		sent = true
		b := &pgx.Batch{}
		b.Queue("select pg_advisory_xact_lock($1)", owner)
		b.Queue(rebound(q), args...)
		trip(ctx)
		br := pc.Conn.Conn().SendBatch(ctx, b)
		_, err := br.Exec()
		if err == nil {
			err = br.QueryRow().Scan(dest...)
			if errors.Is(err, pgx.ErrNoRows) {
				err = sql.ErrNoRows
			}
		}
		if cerr := br.Close(); err == nil || errors.Is(err, sql.ErrNoRows) && cerr != nil {
			err = cerr
		}
		return err
	})
	return sent, err
}

// insertImage is the journal's image of the row Insert would add to tasks
// for row (see [Tx.Insert]) as the text before and after its id, made
// from the values; fits is false when a column of the image is not one it
// can make so.
func (tx *Tx) insertImage(cols []string, row Row) (pre, post string, fits bool, err error) {
	if _, ok := row["updated_at"]; ok {
		return "", "", false, nil
	}
	vals := make([]any, len(cols))
	for i, c := range cols {
		switch c {
		case "id":
			vals[i] = int64(idMark)
		case "owner_id":
			vals[i] = tx.owner
		case "updated_at":
			vals[i] = stamp(tx.now)
		case "deleted_at":
			vals[i] = nil
		default:
			if derivedColumn(c) {
				continue // not in images
			}
			v, ok := row[c]
			if !ok {
				return "", "", false, nil
			}
			switch x := v.(type) {
			case nil, int64, string:
			case int:
				v = int64(x)
			default:
				return "", "", false, nil
			}
			vals[i] = v
		}
	}
	for c := range row {
		if !contains(cols, c) {
			return "", "", false, nil
		}
	}
	img, err := encodeRow(cols, vals)
	if err != nil {
		return "", "", false, err
	}
	at := bytes.Index(img, imageIDMark)
	if at < 0 || bytes.Count(img, imageIDMark) != 1 {
		return "", "", false, nil
	}
	return string(img[:at+len(`"id":`)]), string(img[at+len(imageIDMark):]), true, nil
}
