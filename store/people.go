package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
)

// The person's own row is journaled like any item (migration 00008), so
// undo puts a zone change back. Its zone is the one thing a journaled
// change makes to it (SetZone), so list_changes and undo's answers call
// the row "time zone of person 3": a person row has no short id a tool
// takes, and the number is the one `assistant person list` shows.
func init() { RegisterTableAs("people", "time zone of person ") }

// Person is one row of people: the truth for who someone is and which IANA
// zone their civil times are read in.
type Person struct {
	ID      int64
	Name    string    // unique, as written when added
	Zone    string    // IANA name, "Europe/Paris"
	Created time.Time // UTC, whole seconds
}

// checkPerson checks a person's name and zone and returns the name as
// stored: one line, cleaned by [cleanName].
func checkPerson(name, zone string) (string, error) {
	if !utf8.ValidString(name) {
		return "", fmt.Errorf("“name” is not valid UTF-8 text (it has a broken byte sequence); write it again as UTF-8: %w", ErrInvalid)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return "", fmt.Errorf("“name” must be one line without control characters: %w", ErrInvalid)
	}
	name = cleanName(name)
	if name == "" {
		return "", fmt.Errorf("“name” must not be blank; write the person's name, for example “alice”: %w", ErrInvalid)
	}
	if n := utf8.RuneCountInString(name); n > MaxPersonName {
		return "", fmt.Errorf("“name” may be at most %d characters; this one has %d: %w", MaxPersonName, n, ErrInvalid)
	}
	return name, checkZone(zone)
}

// cleanName is a one-line name (a person's, a token's label) as stored and
// looked up: [args.CleanLine]'s rules (the invisible format characters
// such as U+200B dropped, so "bo\u200bb" is "bob"), then trimmed.
func cleanName(s string) string { return strings.TrimSpace(args.CleanLine(s)) }

// MaxPersonName is the longest person name, in characters.
const MaxPersonName = 64

// checkZone accepts IANA zone names only: "Local" would mean whatever zone
// the machine running the binary happens to be in.
func checkZone(zone string) error {
	if zone == "" || zone == "Local" {
		return fmt.Errorf("“zone” must be an IANA time zone such as “Europe/Paris”, not %s: %w", args.Quote(zone), ErrInvalid)
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return fmt.Errorf("“zone” must be an IANA time zone such as “Europe/Paris”; %s is not one: %w", args.Quote(zone), ErrInvalid)
	}
	return nil
}

const personCols = `id, name, zone, created`

func scanPerson(sc interface{ Scan(...any) error }) (Person, error) {
	var p Person
	var created int64
	err := sc.Scan(&p.ID, &p.Name, &p.Zone, &created)
	p.Created = time.Unix(created, 0).UTC()
	return p, err
}

// queryRow runs a one-row query on the pool through the statement cache
// (see [Store.stmt]): the lookups made on every call (the person, a
// token) are parsed once per connection, not once per call.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := s.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.db.QueryRowContext(ctx, q, args...)
}

// PersonByName finds a person by exact name; ErrNotFound when none.
func (s *Store) PersonByName(ctx context.Context, name string) (Person, error) {
	p, err := scanPerson(s.queryRow(ctx,
		`SELECT `+personCols+` FROM people WHERE name = ?`, cleanName(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("there is no person named %s: %w", args.Quote(name), ErrNotFound)
	}
	return p, err
}

// PersonByID finds a person by id; ErrNotFound when none.
func (s *Store) PersonByID(ctx context.Context, id int64) (Person, error) {
	p, err := scanPerson(s.queryRow(ctx, `SELECT `+personCols+` FROM people WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("there is no person with id %d: %w", id, ErrNotFound)
	}
	return p, err
}

// People lists everyone, by name.
func (s *Store) People(ctx context.Context) ([]Person, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+personCols+` FROM people ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Person
	for rows.Next() {
		p, err := scanPerson(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// AddPerson adds a person with an IANA zone. A taken name is ErrConflict.
// Adding someone is not a journaled change (undo cannot take a person
// away); the row gets owner_id = id from a trigger (migration 00008).
func (s *Store) AddPerson(ctx context.Context, name, zone string) (Person, error) {
	name, err := checkPerson(name, zone)
	if err != nil {
		return Person{}, err
	}
	now := s.now()
	p, err := scanPerson(s.db.QueryRowContext(ctx,
		`INSERT INTO people (name, zone, created, updated_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (name) DO NOTHING RETURNING `+personCols, name, zone, now.Unix(), stamp(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return Person{}, fmt.Errorf("a person named “%s” already exists; choose another “name”: %w", name, ErrConflict)
	}
	return p, s.troubled(err)
}

// EnsurePerson returns the person with this name, adding them with zone if
// there is none. An existing person keeps their stored zone: the table is
// the truth, and a zone from config or TZ only seeds the first run.
func (s *Store) EnsurePerson(ctx context.Context, name, zone string) (Person, error) {
	p, err := s.PersonByName(ctx, name)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return p, err
	}
	p, err = s.AddPerson(ctx, name, zone)
	if errors.Is(err, ErrConflict) { // added by another process meanwhile
		return s.PersonByName(ctx, name)
	}
	return p, err
}

// SetZone changes person id's IANA zone as one journaled change made by
// tool ("person set-zone"), so undo puts the old zone back. It
// returns the change id ("c31"; "" when the person was already in zone and
// nothing changed) and the zone before. ErrNotFound for an unknown id.
func (s *Store) SetZone(ctx context.Context, id int64, zone, tool string) (change, was string, err error) {
	change, err = s.Write(ctx, id, tool, func(tx *Tx) error {
		var err error
		was, err = tx.SetZone(zone)
		return err
	})
	return change, was, err
}

// SetZone changes tx.Owner()'s IANA zone through Update, so the Write
// journals it, and sets the change's summary ("time zone Europe/Paris →
// Asia/Tokyo"; a caller may Summarize again after it). It returns the zone
// before; setting the zone already stored changes nothing. The owner
// filter of Update means only one's own row can change.
func (tx *Tx) SetZone(zone string) (was string, err error) {
	if err := checkZone(zone); err != nil {
		return "", err
	}
	row, err := tx.Get("people", tx.owner)
	if err != nil {
		return "", err
	}
	was, _ = row["zone"].(string)
	if was == zone {
		return was, nil
	}
	if err := tx.Update("people", tx.owner, Row{"zone": zone}); err != nil {
		return "", err
	}
	if err := tx.relistTasks(zone); err != nil {
		return "", err
	}
	tx.Summarize("time zone " + was + " → " + zone)
	return was, nil
}

// DeletePerson removes a person and everything of theirs for good — items,
// journal, idempotency keys, tokens, chat history — in one transaction.
// It relies on the convention that every owner_id column references
// people(id) ON DELETE CASCADE (on PostgreSQL, events' reference is a
// trigger's, migration 00037); it is not undoable. On PostgreSQL the
// transaction is READ COMMITTED whatever the database's default: the
// cascade of events runs only there, where it sees every event committed
// before it.
func (s *Store) DeletePerson(ctx context.Context, id int64) error {
	var opts *sql.TxOptions
	if s.engine == Postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("cannot delete person %d: %w", id, err)
	}
	defer tx.Rollback()
	r, err := tx.ExecContext(ctx, `DELETE FROM people WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("cannot delete person %d: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("there is no person with id %d: %w", id, ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cannot delete person %d: %w", id, s.commitFailed(err))
	}
	return nil
}
