package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
)

// Exit codes of the binary. For `assistant call` the code is the tool
// result's own (tools.CodeOK … tools.CodeUnavailable: 0, 1, 4, 5, 6, 7;
// never tools.CodeSpill, since call prints an answer whole and only the
// chat and MCP fronts cut one to fit a model); every other command uses
// the same numbers for the same kinds of failure, and the codes from 8 up
// for failures only the binary has. 2 is never a tool's code
// (tools.CodeInvalid is 1, and tools leave 2 free), so a script can tell a
// usage mistake from a tool's answer.
//
// A database that cannot be used at all — a PostgreSQL server that
// refuses the connection, a wrong password, a missing database, a server
// too old, a newer schema — is exitDatabase (8): a service to start or a
// setting to fix, said in the sentence. A location no engine takes
// (mysql://…, a URL that cannot be read) is a setting error, exitConfig
// (10). A call the database began but could not finish (the connection
// lost mid-call) is exitUnavailable (7): nothing was kept, run it again.
const (
	exitOK       = tools.CodeOK       // 0
	exitInvalid  = tools.CodeInvalid  // 1: a value is wrong (a zone, a duration, a tool argument)
	exitUsage    = 2                  // a wrong flag, an unknown subcommand, a missing argument
	exitNotFound = tools.CodeNotFound // 4: no such person, token or tool item
	exitConflict = tools.CodeConflict // 5: a name already taken
	exitInternal = tools.CodeInternal // 6: anything else that went wrong inside
	// exitUnavailable: the database lost the call midway (PostgreSQL: the
	// connection dropped, the server stopped, a collision with another
	// transaction), or another writer held it longer than the call could
	// wait; nothing of it was kept, and running it again is safe.
	exitUnavailable = tools.CodeUnavailable // 7
	exitDatabase    = 8                     // the database could not be opened or migrated (a server refused, a wrong password, no such database, a server too old, a newer schema)
	exitDelivery    = 9                     // remind: a delivery failed, or a reminder was given up
	exitConfig      = 10                    // a setting is wrong: the config file, a variable, a --db no engine takes
	exitDiskFull    = 11                    // the disk under the database (or the PostgreSQL server's) is full (or failing): free space
	exitReadOnly    = 12                    // the database file or its folder cannot be written (or --db-read-only, or a PostgreSQL standby)
	exitCorrupt     = 13                    // the database file (or PostgreSQL's data) is damaged: restore a backup
	exitCancelled   = 130                   // interrupted (SIGINT), as shells report it
)

// exitError carries the exit code of a failed command. Every RunE returns
// one (or nil); an error of any other type comes from cobra itself (flag
// parsing, argument counts, unknown commands) and exits with exitUsage.
type exitError struct {
	code int
	err  error // nil: exit quietly, the command already printed what it had to
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// fail wraps err with code; a nil err stays nil.
func fail(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// failf is fail with a formatted sentence.
func failf(code int, format string, a ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, a...)}
}

// quietExit ends the command with code and prints nothing more.
func quietExit(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// storeFail gives a store error its exit code: not found and conflict keep
// the tool codes for the same kinds; anything else is internal, since the
// commands check every value (names, zones) before they reach the store.
func storeFail(err error) error {
	switch {
	case err == nil:
		return nil
	case store.TroubleOf(err) != store.NoTrouble:
		// execute says it again with the path, from the store the run opened
		return fail(troubleExit(store.TroubleOf(err)), &wrapped{msg: store.Explain(err, ""), err: err})
	case errors.Is(err, store.ErrNotFound):
		return fail(exitNotFound, sentence(err, store.ErrNotFound))
	case errors.Is(err, store.ErrConflict):
		return fail(exitConflict, sentence(err, store.ErrConflict))
	case errors.Is(err, store.ErrInvalid):
		return fail(exitInvalid, sentence(err, store.ErrInvalid))
	}
	return fail(exitInternal, err)
}

// sentence drops the ": not found" that wrapping a sentinel with %w leaves
// at the end of a store sentence; the exit code already says it.
func sentence(err, sentinel error) error {
	msg := strings.TrimSuffix(err.Error(), ": "+sentinel.Error())
	return &wrapped{msg: msg, err: err}
}

type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// troubleExit is the exit code of a Trouble with the disk or the file
// under the database, or of a call the database could not finish; 0 for
// none.
func troubleExit(t store.Trouble) int {
	switch t {
	case store.DiskFull:
		return exitDiskFull
	case store.ReadOnly:
		return exitReadOnly
	case store.Corrupt:
		return exitCorrupt
	case store.Unavailable, store.Busy:
		return exitUnavailable
	}
	return 0
}

// trouble is the exit code and sentence of a command's error whose cause
// is a Trouble with the database (store.TroubleOf), whatever command it
// came from and however it was wrapped: the one place every command's
// error passes, so none is missed. It uses the store the run opened, which
// knows why it is read-only; 0 and "" for any other error, and for an
// interrupted command.
func (a *app) trouble(err error) (int, string) {
	var ee *exitError
	if errors.As(err, &ee) && ee.code == exitCancelled {
		return 0, ""
	}
	if a.opened != nil {
		if t := a.opened.Trouble(err); t != store.NoTrouble {
			return troubleExit(t), a.opened.Explain(err)
		}
		return 0, ""
	}
	t := store.TroubleOf(err)
	if t == store.NoTrouble {
		return 0, ""
	}
	return troubleExit(t), store.Explain(err, a.dbPath)
}
