package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Trouble is what is wrong with the database under a call when its engine
// says so: the disk or the file under SQLite (or the PostgreSQL server's
// disk, or a server that takes no writes), which no retry mends, so the
// person must act; or, on PostgreSQL, a call the server could not finish
// (Unavailable), which a retry does mend.
type Trouble int

// Kinds of Trouble.
const (
	// NoTrouble: the error is not about the disk or the file.
	NoTrouble Trouble = iota
	// DiskFull: SQLITE_FULL, or an SQLITE_IOERR (a disk I/O error, such
	// as "disk I/O error (4874)", SQLITE_IOERR_SHMSIZE, when the -shm file
	// beside the database cannot grow): the disk is full, or failing.
	DiskFull
	// ReadOnly: SQLITE_READONLY and its extended codes ("attempt to write
	// a readonly database (1544)", SQLITE_READONLY_DIRECTORY), or
	// SQLITE_CANTOPEN (14), which SQLite gives when it cannot make the
	// -shm or -wal file beside the database: the file or its folder
	// cannot be written (their modes, a read-only mount), or the database
	// was opened with Options.ReadOnly.
	ReadOnly
	// Corrupt: SQLITE_CORRUPT and its extended codes ("database disk image
	// is malformed (11)"): the file is damaged, and only a backup or
	// SQLite's .recover gets the data back.
	Corrupt
	// Unavailable (PostgreSQL only): the call could not be finished
	// because the connection was lost or the server stopped it — a
	// network that dropped, a backend ended by pg_terminate_backend or an
	// administrator's shutdown (SQLSTATE class 08, 57P01, 57P02, 57P03),
	// a server with no connection free (53300), a transaction that
	// collided with another (40001 serialization_failure, 40P01
	// deadlock_detected), or pgx's own errors of a connection that broke.
	// The call's transaction is rolled back by the server, so nothing of
	// it was kept, and running it again is the remedy.
	//
	// Also on PostgreSQL: 25006 (read_only_sql_transaction, a standby or
	// --db-read-only) is ReadOnly, 53100 (disk_full) is DiskFull, and
	// XX001/XX002 (data_corrupted, index_corrupted) are Corrupt.
	Unavailable
	// Busy: another writer held the database's write lock longer than the
	// call could wait, so nothing of the call was kept, and running it
	// again once that writer is done is the remedy. On SQLite,
	// SQLITE_BUSY (5) and its extended codes: another program (or another
	// server on the same file) kept its write transaction open past the
	// busy_timeout (10 s); and a write whose context ended while it waited
	// for the lock, held by another program or by a longer call of this
	// one (its chain keeps the error the wait ended with). On PostgreSQL,
	// a write whose context ended while another session held the
	// person's advisory lock, and 55P03 (lock_not_available): a lock the
	// call needed was held past the server's lock_timeout.
	Busy
)

// Retry reports whether running the call again is the remedy for t
// ([Unavailable], [Busy]): the call kept nothing, and nothing is wrong
// with the database that a person must mend.
func (t Trouble) Retry() bool { return t == Unavailable || t == Busy }

// SQLite's primary result codes (https://sqlite.org/rescode.html); an
// extended code carries the primary one in its low byte.
const (
	sqliteBusy     = 5
	sqliteReadOnly = 8
	sqliteCorrupt  = 11
	sqliteIOErr    = 10
	sqliteFull     = 13
	sqliteCantOpen = 14
)

// TroubleOf tells the Trouble behind err, NoTrouble when there is none:
// SQLite's result code, PostgreSQL's SQLSTATE or pgx's error of a broken
// connection (see [Unavailable]), or the system's error when the file
// itself could not be made or opened (ENOSPC: DiskFull; EROFS, EACCES,
// EPERM: ReadOnly). A call's own end (context.Canceled,
// context.DeadlineExceeded) is no Trouble.
func TroubleOf(err error) Trouble {
	if err == nil {
		return NoTrouble
	}
	var te *troubleError
	if errors.As(err, &te) {
		return te.trouble
	}
	if t, ok := pgTrouble(err); ok {
		return t
	}
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		switch {
		case errors.Is(err, syscall.ENOSPC):
			return DiskFull
		case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission):
			return ReadOnly
		}
		return NoTrouble
	}
	switch coded.Code() & 0xff {
	case sqliteFull, sqliteIOErr:
		return DiskFull
	case sqliteReadOnly, sqliteCantOpen:
		return ReadOnly
	case sqliteCorrupt:
		return Corrupt
	case sqliteBusy:
		return Busy
	}
	return NoTrouble
}

// Explain is the sentence for the Trouble behind err, naming the database
// file path ("" leaves it unnamed), saying what happened and what to do;
// "" when err is no such trouble. A model gets it in place of an
// internal error's sentence, a person in place of SQLite's words.
//
// For an error of PostgreSQL, path is the database's URL, shown with its
// password replaced ([Redact]).
func Explain(err error, path string) string {
	var te *troubleError
	if errors.As(err, &te) {
		return te.sentence
	}
	if t, ok := pgTrouble(err); ok {
		return pgSentence(err, t, Redact(path))
	}
	return sentence(TroubleOf(err), path, false)
}

// pgTrouble is the Trouble of an error of pgx: ok reports that err came
// from pgx (a *pgconn.PgError, or an error of package pgconn about the
// connection), whether or not it is a Trouble.
func pgTrouble(err error) (t Trouble, ok bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgCodeTrouble(pe.Code), true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return NoTrouble, false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || fromPgconn(err) {
		return Unavailable, true
	}
	return NoTrouble, false
}

// pgCodeTrouble is the Trouble of a PostgreSQL SQLSTATE
// (https://www.postgresql.org/docs/current/errcodes-appendix.html).
func pgCodeTrouble(code string) Trouble {
	switch {
	case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03",
		code == "53300", code == "40001", code == "40P01":
		return Unavailable
	case code == "25006":
		return ReadOnly
	case code == "53100":
		return DiskFull
	case code == "XX001", code == "XX002":
		return Corrupt
	case code == "55P03":
		return Busy
	}
	return NoTrouble
}

// pgconnPath is the import path of pgx's connection package, whose own
// error types (unexported: a failed write or read, a closed connection)
// all mean the connection broke.
var pgconnPath = reflect.TypeFor[pgconn.PgError]().PkgPath()

// fromPgconn reports whether an error in err's chain is of a type of
// package pgconn.
func fromPgconn(err error) bool {
	for err != nil {
		if t := reflect.TypeOf(err); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == pgconnPath || t.PkgPath() == pgconnPath {
			return true
		}
		if m, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range m.Unwrap() {
				if fromPgconn(e) {
					return true
				}
			}
			return false
		}
		err = errors.Unwrap(err)
	}
	return false
}

// lostConnection reports an error that, from a PostgreSQL store, means its
// connection broke under the call though no pgx type says so: database/sql's
// driver.ErrBadConn, an end of stream, a reset or refused connection.
func lostConnection(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED)
}

// pgSentence says t, a Trouble of a PostgreSQL error err, for the database
// shown as where (its URL without the password; "" leaves it unnamed).
// Every Unavailable sentence ends "nothing of this call was kept; try
// again": the server rolled the call's transaction back.
func pgSentence(err error, t Trouble, where string) string {
	the := "the database"
	if where != "" {
		the = fmt.Sprintf("the database “%s”", where)
	}
	var pe *pgconn.PgError
	code := ""
	if errors.As(err, &pe) {
		code = pe.Code
	}
	switch t {
	case Unavailable:
		switch code {
		case "40001", "40P01":
			return fmt.Sprintf("%s stopped this call because it collided with another change made at the same moment, so nothing of this call was kept; try again.", capitalize(the))
		case "53300":
			return fmt.Sprintf("The PostgreSQL server of %s has no connection free (too many clients), so nothing of this call was kept; try again in a moment, or raise the server's max_connections.", the)
		case "57P03":
			return fmt.Sprintf("The PostgreSQL server of %s is starting up or shutting down, so nothing of this call was kept; try again in a moment.", the)
		}
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) || errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Sprintf("The PostgreSQL server of %s cannot be reached (it is stopped, or the network is down), so nothing of this call was kept; try again once it answers.", the)
		}
		return fmt.Sprintf("The connection to the PostgreSQL server of %s was lost during the call (the server stopped or restarted, or the network dropped), so nothing of this call was kept; try again.", the)
	case ReadOnly:
		return fmt.Sprintf("%s is on a PostgreSQL server that takes no writes (a standby, or one set to default_transaction_read_only), so nothing was changed; point --db at the primary server, or open it with --db-read-only to read it.", capitalize(the))
	case Busy:
		return fmt.Sprintf("Another transaction on %s held a lock this call needed longer than the server's lock_timeout, so nothing of this call was kept; try again in a moment.", the)
	case DiskFull:
		return fmt.Sprintf("The disk of the PostgreSQL server holding %s is full, so nothing was changed; free some space on the server and try again.", the)
	case Corrupt:
		return fmt.Sprintf("The PostgreSQL server finds data of %s damaged, so the command stopped; have the server's administrator restore it from the server's backups (pg_dump, a replica) and see the server's log for which table.", the)
	}
	return ""
}

// sentence says t for the database at path; reading: the store is open
// for reading only because of t, and only a write failed.
func sentence(t Trouble, path string, reading bool) string {
	the := "the database"
	if path != "" {
		the = fmt.Sprintf("the database “%s”", path)
	}
	switch {
	case t == Corrupt:
		file := "FILE"
		if path != "" {
			file = path
		}
		return fmt.Sprintf("%s is damaged (SQLite finds its file malformed), so the command stopped; copy it aside, then put back a backup: the copy an upgrade makes beside it (%s.vN.bak, N the schema version it had) or your own, or save what is left with `sqlite3 %s .recover | sqlite3 recovered.db`.", capitalize(the), file, file)
	case t == DiskFull && reading:
		return fmt.Sprintf("The disk holding %s is full (or failing), so the database is open for reading only and nothing was changed; free some space on that disk and try again.", the)
	case t == DiskFull:
		return fmt.Sprintf("The disk holding %s is full (or failing), so nothing was changed; free some space on that disk and try again.", the)
	case t == ReadOnly && reading:
		return fmt.Sprintf("%s cannot be written, since the file or its folder is read-only, so it is open for reading only and nothing was changed; give yourself write permission on both to change it.", capitalize(the))
	case t == ReadOnly:
		return fmt.Sprintf("%s cannot be written, since the file or its folder is read-only, so nothing was changed; give yourself write permission on both, or open it with --db-read-only to read it.", capitalize(the))
	case t == Busy:
		return fmt.Sprintf("Another program was writing to %s and held it longer than the %d seconds a write waits for it, so nothing of this call was kept; try again in a moment.", the, int(busyTimeout.Seconds()))
	}
	return ""
}

// busyTimeout is how long an SQLite write waits for another connection's
// write lock before SQLITE_BUSY (the DSN's busy_timeout).
const busyTimeout = 10 * time.Second

// waitedTooLong is err, a write's start that ended with its context while
// it waited for the write lock (SQLite's, or on PostgreSQL the person's
// advisory lock), as a [Busy] trouble whose sentence names the database
// as the; the error stays in its chain.
func waitedTooLong(err error, the string) error {
	return &troubleError{trouble: Busy, err: err,
		sentence: fmt.Sprintf("The call ended while it waited for another writer of %s (another program, or a longer call such as an import) to finish, so nothing of this call was kept; try again in a moment.", the)}
}

// lockWaited is err, a write of owner that failed once its context had
// ended, as a [Busy] trouble when on PostgreSQL another session holds
// owner's advisory lock: the write's BEGIN, the lock and its first
// statement go in one batch (pipeConn), and the server answers none of
// them until the lock is granted, so the answer cannot tell a wait for
// the lock from a slow statement, and pg_locks is asked (one query, only
// on this failure's path, bounded by a second). err is returned as it is
// otherwise, and on SQLite, whose waits [Store.beginWriteChecking] tells.
func (s *Store) lockWaited(owner int64, err error) error {
	if s.engine != Postgres || owner == 0 || err == nil || TroubleOf(err) != NoTrouble {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var held bool
	// pg_locks shows a bigint key as classid (its high 32 bits) and
	// objid (its low 32), objsubid 1.
	if e := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1 AND pid <> pg_backend_pid())`,
		owner>>32, owner&0xffffffff).Scan(&held); e != nil || !held {
		return err
	}
	return s.waitedTooLong(err)
}

// waitedTooLong is the package's waitedTooLong naming this store's file
// (on PostgreSQL no URL, as [Store.Explain]).
func (s *Store) waitedTooLong(err error) error {
	if s.engine == SQLite {
		return waitedTooLong(err, fmt.Sprintf("the database “%s”", s.path))
	}
	return waitedTooLong(err, "the database")
}

// Explain is the package's Explain for an error of this store, naming its
// file (on PostgreSQL naming no URL: the sentence may reach models and MCP
// clients, who have no business knowing the server's host and user); a
// write refused because the store was opened for reading only
// says why it was: Options.ReadOnly (--db-read-only), or the Trouble that
// made Open fall back to reading.
func (s *Store) Explain(err error) string {
	var te *troubleError
	if errors.As(err, &te) {
		return te.sentence
	}
	if s.readOnly && TroubleOf(err) == ReadOnly {
		if s.degraded == NoTrouble {
			if s.engine == Postgres {
				return "The database was opened with --db-read-only, so nothing was changed; run without it to change the database."
			}
			return fmt.Sprintf("The database “%s” was opened with --db-read-only, so nothing was changed; run without it to change the database.", s.path)
		}
		return sentence(s.degraded, s.path, true)
	}
	if s.engine == Postgres {
		return pgSentence(err, s.Trouble(err), "")
	}
	return Explain(err, s.path)
}

// Trouble is the Trouble behind err for this store: a write refused by a
// store that fell back to reading has the Trouble that made it fall back,
// and on PostgreSQL a broken connection that only database/sql or the
// network names ([lostConnection]) is Unavailable.
func (s *Store) Trouble(err error) Trouble {
	t := TroubleOf(err)
	if s.readOnly && t == ReadOnly && s.degraded != NoTrouble {
		return s.degraded
	}
	return t
}

// ownTrouble is [Store.Trouble] of an error known to come from this
// store's own work: on PostgreSQL a broken connection that only
// database/sql or the network names ([lostConnection]) is Unavailable.
// (Store.Trouble cannot judge so: it is asked about any error of a
// command, and a refused connection to a model server is no database's.)
func (s *Store) ownTrouble(err error) Trouble {
	t := TroubleOf(err)
	if t == NoTrouble && err != nil && s.engine == Postgres && lostConnection(err) {
		return Unavailable
	}
	if s.readOnly && t == ReadOnly && s.degraded != NoTrouble {
		return s.degraded
	}
	return t
}

// capitalize upper-cases the first letter of an ASCII sentence start.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// troubled wraps err, an error of opening path, with the sentence of its
// Trouble when it has one; err unchanged otherwise.
func troubled(err error, path string) error {
	if s := Explain(err, path); s != "" {
		return &troubleError{sentence: s, trouble: TroubleOf(err), err: err}
	}
	return err
}

// troubled wraps err, an error of this store, with its Trouble and the
// sentence of Store.Explain when it has one; err unchanged otherwise
// (nil stays nil).
//
// On PostgreSQL the sentence names no URL (it reaches models and MCP
// clients, who have no business knowing the server's host and user).
func (s *Store) troubled(err error) error {
	if t := s.ownTrouble(err); t != NoTrouble {
		var te *troubleError
		if errors.As(err, &te) {
			return err
		}
		sentence := s.Explain(err)
		if s.engine == Postgres && t != s.Trouble(err) {
			sentence = pgSentence(err, t, "") // a lost connection only ownTrouble sees
		}
		return &troubleError{sentence: sentence, trouble: t, err: err}
	}
	return err
}

// troubleError is an error of the disk or file (or of the PostgreSQL
// server) told in Explain's sentence; it unwraps to the cause (SQLite's
// error, pgx's, or the system's).
type troubleError struct {
	sentence string
	trouble  Trouble
	err      error
}

func (e *troubleError) Error() string { return e.sentence }
func (e *troubleError) Unwrap() error { return e.err }

// LogValue keeps the cause's own words (SQLite's code) in the log, after
// the sentence.
func (e *troubleError) LogValue() slog.Value {
	return slog.StringValue(e.sentence + " (" + e.err.Error() + ")")
}

// commitFailed is the error of a failed COMMIT of this store: on
// PostgreSQL, when the connection broke at the COMMIT (no answer of the
// server, a *pgconn.PgError, came back), the COMMIT may have reached the
// server and been done, and the Unavailable sentence of "nothing was
// kept" would not be true: the error then says the change may have been
// kept, and to look before trying again. pgx cannot tell a COMMIT never
// sent from one whose answer was lost (both end as "conn closed"), so
// every such failure says so. Any other error is returned as it is.
func (s *Store) commitFailed(err error) error {
	if err == nil || s.engine != Postgres || s.ownTrouble(err) != Unavailable {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return err // the server answered: it rolled back
	}
	return &troubleError{trouble: Unavailable, err: err, sentence: "The connection to the PostgreSQL server of the database was lost just as the change was being saved, so it may have been kept or not; look (list_changes shows the latest changes) before you try again."}
}
