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

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/assistant-dev/assistant/task"
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
// INSERT, the journal and COMMIT are one statement sent with BEGIN and the
// lock: one round trip, where a Write makes three. A [PersonCheck] of
// owner in ctx is made as by Write; when nothing was added it is left for
// the caller's next transaction to make again.
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
// sent in one batch behind BEGIN and the owner's lock, with COMMIT behind
// it. The journal's image is the one a Write makes from the row its
// INSERT returns, worked out from the values bound (every column of tasks
// is BIGINT or TEXT and reads back as bound) around the id, which the
// statement puts in; the summary likewise. The person check is no
// statement of its own: the INSERT requires the person as checked, so a
// failed check adds nothing, and only then is the person read, to tell a
// changed person from a task like t.
//
// ok is false, with nothing written, when it cannot make the image from
// the values (a column it does not know), or the statement broke a
// constraint (a person that does not exist, a check): AddTask then goes
// the general way, which words the error as Write does. Any other error
// (a connection lost, the server shutting down) is the change's, as a
// Write's journal with COMMIT behind it says it.
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
	sqlTx, end, err := s.beginWriteChecking(ctx, owner, nil)
	if err != nil {
		return 0, "", false, true, fmt.Errorf("cannot start writing to the database: %w", err)
	}
	defer end()
	tx := &Tx{s: s, ctx: ctx, tx: sqlTx, owner: owner, now: s.now(), tool: tool}
	tx.AssumeZone(zone)
	row, err := tx.taskRow(t)
	if err != nil {
		return 0, "", false, true, err
	}
	cols, err := s.columns(ctx, sqlTx, tasksTable)
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
		q.WriteString(` AND NOT EXISTS (SELECT 1 FROM tasks` + tasksLikeWhere + `)`)
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

	var done committed
	qctx := withCommit(context.WithValue(ctx, guardedKey{}, true), &done)
	var changeNo int64
	err = sqlTx.QueryRowContext(qctx, q.String(), args...).Scan(&id, &changeNo)
	var pe *pgconn.PgError
	switch {
	case err == nil:
		// With COMMIT already answered this only closes the *sql.Tx.
		if cerr := sqlTx.Commit(); cerr != nil && !done.ok {
			return 0, "", false, true, fmt.Errorf("cannot save the change: %w", s.commitFailed(cerr))
		}
		if check != nil {
			check.settle(check.name, check.zone, true)
		}
		return id, changeID(changeNo), true, true, nil
	case errors.Is(err, sql.ErrNoRows) && done.ok:
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
	case errors.Is(err, ErrPersonChanged):
		return 0, "", false, true, err
	case errors.As(err, &pe) && strings.HasPrefix(pe.Code, "23"):
		// The statement broke a constraint (a person that does not
		// exist, a check), so the COMMIT behind did not run: nothing was
		// kept, and the general way words the error.
		rearm(ctx)
		return 0, "", false, false, nil
	case !done.ok:
		// COMMIT rode in the same batch: a connection lost meanwhile
		// may have lost its answer, not the COMMIT itself.
		return 0, "", false, true, fmt.Errorf("cannot save the change: %w", s.commitFailed(err))
	}
	return 0, "", false, true, err
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
