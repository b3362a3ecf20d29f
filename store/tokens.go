package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base32"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
)

// tokenPrefix marks our bearer tokens so a leaked one is recognisable
// (secret scanners key on such prefixes).
const tokenPrefix = "ast_"

// shownLen is how much of a token is kept in clear to tell tokens apart
// in listings: the marker and 8 characters (40 bits, not enough to guess
// the remaining 200).
const shownLen = len(tokenPrefix) + 8

// Token is an access token for MCP over streamable HTTP, mapped to one
// person. Only the SHA-256 of the token is stored; the token itself is
// shown once, by CreateToken.
type Token struct {
	ID       int64
	PersonID int64
	Prefix   string    // the first characters of the token, "ast_k3j9x2qa"
	Label    string    // what it is for, "laptop"
	Created  time.Time // UTC
	LastUsed time.Time // UTC; zero if never used
	Revoked  time.Time // UTC; zero while valid
}

func hashToken(plain string) []byte {
	h := sha256.Sum256([]byte(plain))
	return h[:]
}

// MaxTokenLabel is the longest token label, in characters.
const MaxTokenLabel = 100

// CreateToken makes a new token for personID: 32 random bytes, base32,
// behind "ast_". The plain token is returned once and never stored. The
// label is one line, cleaned as a person's name is (invisible format
// characters dropped, trimmed), of at most [MaxTokenLabel] characters; a
// label that is not valid UTF-8, holds control characters or is longer is
// ErrInvalid.
func (s *Store) CreateToken(ctx context.Context, personID int64, label string) (string, Token, error) {
	switch {
	case !utf8.ValidString(label):
		return "", Token{}, fmt.Errorf("“label” is not valid UTF-8 text (it has a broken byte sequence); write it again as UTF-8: %w", ErrInvalid)
	case strings.ContainsFunc(label, unicode.IsControl):
		return "", Token{}, fmt.Errorf("“label” must be one line without control characters: %w", ErrInvalid)
	}
	label = cleanName(label)
	if n := utf8.RuneCountInString(label); n > MaxTokenLabel {
		return "", Token{}, fmt.Errorf("“label” may be at most %d characters; this one has %d: %w", MaxTokenLabel, n, ErrInvalid)
	}
	if _, err := s.PersonByID(ctx, personID); err != nil {
		return "", Token{}, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", Token{}, err
	}
	plain := tokenPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw[:]))
	t := Token{PersonID: personID, Prefix: plain[:shownLen], Label: label, Created: s.now()}
	err := s.db.QueryRowContext(ctx, `INSERT INTO access_tokens (person_id, hash, prefix, label, created)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, personID, hashToken(plain), t.Prefix, t.Label, t.Created.Unix()).Scan(&t.ID)
	if err != nil {
		return "", Token{}, fmt.Errorf("cannot save the new token: %w", err)
	}
	return plain, t, nil
}

func unixOrZero(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(v.Int64, 0).UTC()
}

// Tokens lists every token (valid and revoked) of every person, oldest first.
func (s *Store) Tokens(ctx context.Context) ([]Token, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, person_id, prefix, label, created, last_used, revoked
		FROM access_tokens ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		var t Token
		var created int64
		var used, revoked sql.NullInt64
		if err := rows.Scan(&t.ID, &t.PersonID, &t.Prefix, &t.Label, &created, &used, &revoked); err != nil {
			return nil, err
		}
		t.Created, t.LastUsed, t.Revoked = time.Unix(created, 0).UTC(), unixOrZero(used), unixOrZero(revoked)
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeToken revokes a token named by its id ("3") or its shown prefix
// ("ast_k3j9x2qa", or a longer start of the token). ErrNotFound when none
// matches, ErrConflict when a prefix matches several. Revoking a revoked
// token is not an error.
func (s *Store) RevokeToken(ctx context.Context, idOrPrefix string) error {
	key := strings.TrimSpace(idOrPrefix)
	if _, perr := strconv.ParseInt(key, 10, 64); perr != nil {
		if len(key) > shownLen {
			key = key[:shownLen]
		}
		if len(key) < len(tokenPrefix)+4 {
			return fmt.Errorf("“token” must be a token id or its shown prefix such as “ast_k3j9x2qa”, not %s", args.Quote(idOrPrefix))
		}
	}
	return s.revokeSecret(ctx, secretTable{table: "access_tokens", noun: "token"}, key, idOrPrefix)
}

// secretTable is a table of hashed secrets a person signs in or reads
// with (access_tokens, feed_secrets): its name and what one row is called
// in sentences and in `assistant NOUN list`.
type secretTable struct{ table, noun string }

// revokeSecret revokes the row of t whose id is key, or whose shown
// prefix starts with key (already checked by the caller); idOrPrefix is
// what the person wrote, for the sentences. ErrNotFound when none
// matches, ErrConflict when a prefix matches several.
func (s *Store) revokeSecret(ctx context.Context, t secretTable, key, idOrPrefix string) error {
	var res sql.Result
	var err error
	if id, perr := strconv.ParseInt(key, 10, 64); perr == nil {
		res, err = s.db.ExecContext(ctx, `UPDATE `+t.table+` SET revoked = coalesce(revoked, ?) WHERE id = ?`, s.now().Unix(), id)
	} else {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t.table+` WHERE substr(prefix, 1, ?) = ?`, len(key), key).Scan(&n); err != nil {
			return err
		}
		if n > 1 {
			return fmt.Errorf("%s matches %d %ss; give the %s id instead: %w", args.Quote(idOrPrefix), n, t.noun, t.noun, ErrConflict)
		}
		res, err = s.db.ExecContext(ctx, `UPDATE `+t.table+` SET revoked = coalesce(revoked, ?) WHERE substr(prefix, 1, ?) = ?`,
			s.now().Unix(), len(key), key)
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("no %s matches %s; `assistant %s list` shows them: %w", t.noun, args.Quote(idOrPrefix), t.noun, ErrNotFound)
	}
	return nil
}

// personBySecret finds the person a valid (not revoked) secret of t
// belongs to, looked up by its SHA-256 and compared in constant time;
// ErrNotFound with unknown, one sentence for an unknown and a revoked
// secret alike. The secret and its person are read in one prepared
// statement, since every HTTP request makes this lookup. Use is stamped at
// most once a minute, so a busy client does not turn every request into a
// write.
func (s *Store) personBySecret(ctx context.Context, t secretTable, plain, unknown string) (Person, error) {
	h := hashToken(strings.TrimSpace(plain))
	var id int64
	var stored []byte
	var used sql.NullInt64
	var p Person
	var created int64
	err := s.queryRow(ctx, `SELECT t.id, t.hash, t.last_used, p.id, p.name, p.zone, p.created FROM `+t.table+` t
		JOIN people p ON p.id = t.person_id WHERE t.hash = ? AND t.revoked IS NULL`, h).
		Scan(&id, &stored, &used, &p.ID, &p.Name, &p.Zone, &created)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(stored, h) != 1) {
		return Person{}, fmt.Errorf("%s: %w", unknown, ErrNotFound)
	}
	if err != nil {
		return Person{}, err
	}
	p.Created = time.Unix(created, 0).UTC()
	now := s.now().Unix()
	if !used.Valid || now-used.Int64 >= 60 {
		_, _ = s.db.ExecContext(ctx, `UPDATE `+t.table+` SET last_used = ? WHERE id = ?`, now, id)
	}
	return p, nil
}

// PersonByToken finds the person a valid (not revoked) token belongs to.
// The token is looked up by its SHA-256, so the lookup's timing tells
// nothing about the token, and the stored hash is compared in constant
// time. ErrNotFound for an unknown or revoked token.
func (s *Store) PersonByToken(ctx context.Context, plain string) (Person, error) {
	return s.personBySecret(ctx, secretTable{table: "access_tokens", noun: "token"}, plain, "the access token is unknown or revoked")
}
