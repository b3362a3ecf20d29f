package store

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Trouble is what is wrong with the disk or the file under the database
// when SQLite says so: no retry mends it, the person must act.
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
)

// SQLite's primary result codes (https://sqlite.org/rescode.html); an
// extended code carries the primary one in its low byte.
const (
	sqliteReadOnly = 8
	sqliteCorrupt  = 11
	sqliteIOErr    = 10
	sqliteFull     = 13
	sqliteCantOpen = 14
)

// TroubleOf tells the Trouble behind err, NoTrouble when there is none:
// SQLite's result code, or the system's error when the file itself could
// not be made or opened (ENOSPC: DiskFull; EROFS, EACCES, EPERM: ReadOnly).
func TroubleOf(err error) Trouble {
	if err == nil {
		return NoTrouble
	}
	var te *troubleError
	if errors.As(err, &te) {
		return te.trouble
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "25006" { // read_only_sql_transaction
		return ReadOnly
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
	}
	return NoTrouble
}

// Explain is the sentence for the Trouble behind err, naming the database
// file path ("" leaves it unnamed), saying what happened and what to do;
// "" when err is no such trouble. A model gets it in place of an
// internal error's sentence, a person in place of SQLite's words.
func Explain(err error, path string) string {
	var te *troubleError
	if errors.As(err, &te) {
		return te.sentence
	}
	return sentence(TroubleOf(err), path, false)
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
	}
	return ""
}

// Explain is the package's Explain for an error of this store, naming its
// file; a write refused because the store was opened for reading only
// says why it was: Options.ReadOnly (--db-read-only), or the Trouble that
// made Open fall back to reading.
func (s *Store) Explain(err error) string {
	var te *troubleError
	if errors.As(err, &te) {
		return te.sentence
	}
	if s.readOnly && TroubleOf(err) == ReadOnly {
		if s.degraded == NoTrouble {
			return fmt.Sprintf("The database “%s” was opened with --db-read-only, so nothing was changed; run without it to change the database.", s.path)
		}
		return sentence(s.degraded, s.path, true)
	}
	return Explain(err, s.path)
}

// Trouble is the Trouble behind err for this store: a write refused by a
// store that fell back to reading has the Trouble that made it fall back.
func (s *Store) Trouble(err error) Trouble {
	t := TroubleOf(err)
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
func (s *Store) troubled(err error) error {
	if t := s.Trouble(err); t != NoTrouble {
		var te *troubleError
		if errors.As(err, &te) {
			return err
		}
		return &troubleError{sentence: s.Explain(err), trouble: t, err: err}
	}
	return err
}

// troubleError is an error of the disk or file told in Explain's
// sentence; it unwraps to the cause (SQLite's error, or the system's).
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
