package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Person is one row of people: the truth for who someone is and which IANA
// zone their civil times are read in (design §3).
type Person struct {
	ID      int64
	Name    string    // unique, as written when added
	Zone    string    // IANA name, "Europe/Paris"
	Created time.Time // UTC, whole seconds
}

func checkPerson(name, zone string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", fmt.Errorf("“name” must not be blank; write the person's name, for example “alice”")
	}
	return name, checkZone(zone)
}

// checkZone accepts IANA zone names only: "Local" would mean whatever zone
// the machine running the binary happens to be in.
func checkZone(zone string) error {
	if zone == "" || zone == "Local" {
		return fmt.Errorf("“zone” must be an IANA time zone such as “Europe/Paris”, not “%s”", zone)
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return fmt.Errorf("“zone” must be an IANA time zone such as “Europe/Paris”; “%s” is not one", zone)
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

// PersonByName finds a person by exact name; ErrNotFound when none.
func (s *Store) PersonByName(ctx context.Context, name string) (Person, error) {
	p, err := scanPerson(s.db.QueryRowContext(ctx,
		`SELECT `+personCols+` FROM people WHERE name = ?`, strings.TrimSpace(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("there is no person named “%s”; add them first: %w", name, ErrNotFound)
	}
	return p, err
}

// PersonByID finds a person by id; ErrNotFound when none.
func (s *Store) PersonByID(ctx context.Context, id int64) (Person, error) {
	p, err := scanPerson(s.db.QueryRowContext(ctx,
		`SELECT `+personCols+` FROM people WHERE id = ?`, id))
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
func (s *Store) AddPerson(ctx context.Context, name, zone string) (Person, error) {
	name, err := checkPerson(name, zone)
	if err != nil {
		return Person{}, err
	}
	p, err := scanPerson(s.db.QueryRowContext(ctx,
		`INSERT INTO people (name, zone, created) VALUES (?, ?, ?)
		 ON CONFLICT (name) DO NOTHING RETURNING `+personCols, name, zone, s.now().Unix()))
	if errors.Is(err, sql.ErrNoRows) {
		return Person{}, fmt.Errorf("a person named “%s” already exists; choose another “name”: %w", name, ErrConflict)
	}
	return p, err
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

// SetZone changes a person's IANA zone; ErrNotFound for an unknown id.
func (s *Store) SetZone(ctx context.Context, id int64, zone string) error {
	if err := checkZone(zone); err != nil {
		return err
	}
	r, err := s.db.ExecContext(ctx, `UPDATE people SET zone = ? WHERE id = ?`, zone, id)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("there is no person with id %d: %w", id, ErrNotFound)
	}
	return nil
}

// DeletePerson removes a person and everything of theirs for good — items,
// journal, idempotency keys, tokens, chat history — in one transaction.
// It relies on the convention that every owner_id column references
// people(id) ON DELETE CASCADE; it is not undoable.
func (s *Store) DeletePerson(ctx context.Context, id int64) error {
	r, err := s.db.ExecContext(ctx, `DELETE FROM people WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("cannot delete person %d: %v", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("there is no person with id %d: %w", id, ErrNotFound)
	}
	return nil
}
