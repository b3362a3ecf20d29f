package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A server older than PostgreSQL 13 is refused in a sentence naming the
// version it runs and the one needed (no old server runs here, so the
// sentence is checked with a version number).
func TestPostgresTooOldSentence(t *testing.T) {
	err := tooOld("db.example:5432", "12.19")
	want := "the PostgreSQL server at db.example:5432 runs version 12.19, and this assistant needs PostgreSQL 13 or newer; upgrade the server or point the URL at another one"
	if !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("got %q, want it to start %q and wrap ErrUnavailable", err, want)
	}
	if minServer != 130000 || minServerName != "13" {
		t.Errorf("minServer %d (%s): the docs say PostgreSQL 13", minServer, minServerName)
	}
}

// PostgreSQL's SQLSTATEs map to the Troubles a person can act on: a lost
// connection, a stopped server or a collision is Unavailable, whose
// sentence ends "nothing of this call was kept; try again"; a standby is
// ReadOnly, a full disk DiskFull, damaged data Corrupt; anything else is
// no Trouble. A call's own end never is one.
func TestPostgresTroubles(t *testing.T) {
	for code, want := range map[string]Trouble{
		"08006": Unavailable, "08003": Unavailable, "57P01": Unavailable, "57P02": Unavailable, "57P03": Unavailable,
		"53300": Unavailable, "40001": Unavailable, "40P01": Unavailable,
		"25006": ReadOnly, "53100": DiskFull, "XX001": Corrupt, "XX002": Corrupt,
		"23505": NoTrouble, "42P01": NoTrouble, "57014": NoTrouble,
	} {
		err := fmt.Errorf("cannot journal the change: %w", &pgconn.PgError{Code: code, Message: "words of the server"})
		if got := TroubleOf(err); got != want {
			t.Errorf("%s: Trouble %d, want %d", code, got, want)
		}
		s := Explain(err, "postgres://ann:secret@db.example/a")
		if want == NoTrouble {
			if s != "" {
				t.Errorf("%s: sentence %q for no trouble", code, s)
			}
			continue
		}
		if strings.Contains(s, "secret") || strings.Contains(s, "words of the server") || strings.Contains(s, code) {
			t.Errorf("%s: sentence %q shows the password or the server's words", code, s)
		}
		if !strings.Contains(s, "“postgres://ann:xxxxx@db.example/a”") {
			t.Errorf("%s: sentence %q does not name the database", code, s)
		}
		if want == Unavailable && !strings.HasSuffix(s, "nothing of this call was kept; try again.") &&
			!strings.Contains(s, "nothing of this call was kept; try again ") {
			t.Errorf("%s: sentence %q does not say to try again", code, s)
		}
	}
	if s := Explain(&pgconn.PgError{Code: "40001"}, ""); !strings.HasPrefix(s, "The database stopped this call because it collided with another change") {
		t.Errorf("40001: %q", s)
	}
	for _, err := range []error{context.Canceled, context.DeadlineExceeded, io.EOF, errors.New("x")} {
		if got := TroubleOf(fmt.Errorf("wrapped: %w", err)); got != NoTrouble {
			t.Errorf("%v: Trouble %d, want none", err, got)
		}
	}
}

// On a PostgreSQL store, a broken connection only database/sql or the
// network names (an unexpected end of stream, driver.ErrBadConn) in the
// store's own work is Unavailable too, told without the URL; on SQLite it
// is no Trouble.
func TestStoreLostConnection(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		s, err := Open(context.Background(), storetest.Location(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		err = fmt.Errorf("cannot read the database: %w", io.ErrUnexpectedEOF)
		want := NoTrouble
		if s.Engine() == Postgres {
			want = Unavailable
		}
		own := s.troubled(err)
		if got := TroubleOf(own); got != want {
			t.Errorf("Trouble %d, want %d", got, want)
		}
		if want == Unavailable && (!strings.Contains(own.Error(), "was lost during the call") || strings.Contains(own.Error(), "postgres://")) {
			t.Errorf("sentence %q", own.Error())
		}
		// Asked of any error (a command's, whose cause may be a model
		// server), the store does not claim a lost connection as its own.
		if got := s.Trouble(err); got != NoTrouble {
			t.Errorf("Store.Trouble of an error not of the store: %d", got)
		}
		if got := s.Trouble(context.Canceled); got != NoTrouble {
			t.Errorf("a cancelled call: Trouble %d", got)
		}
	})
}
