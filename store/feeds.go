package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base32"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
)

// FeedSecretPrefix marks a calendar feed's secret ("asf_…"), so a leaked
// feed URL is told apart from a leaked access token ("ast_…") at a glance.
const FeedSecretPrefix = "asf_"

// feedShownLen is how much of a feed secret is kept in clear to tell
// feeds apart in listings: the marker and 8 characters (40 bits of the
// 260).
const feedShownLen = len(FeedSecretPrefix) + 8

// MaxFeedLabel is the longest feed label, in characters.
const MaxFeedLabel = 100

// FeedSecret is the secret of one read-only calendar feed
// (/feed/SECRET.ics), mapped to one person. It is no access token: it
// reads that person's iCalendar export and nothing else, and it is
// revoked on its own. Only the SHA-256 of the secret is stored; the secret
// itself is shown once, by [Store.CreateFeedSecret].
type FeedSecret struct {
	ID       int64
	PersonID int64
	Prefix   string    // the first characters of the secret, "asf_k3j9x2qa"
	Label    string    // where it is subscribed, "Google Calendar"
	Created  time.Time // UTC
	LastUsed time.Time // UTC, to the minute; zero if never used
	Revoked  time.Time // UTC; zero while valid
}

// checkLabel cleans a label as a person's name is cleaned (invisible
// format characters dropped, trimmed) and checks it is one line of valid
// UTF-8 of at most most characters; anything else is ErrInvalid.
func checkLabel(label string, most int) (string, error) {
	switch {
	case !utf8.ValidString(label):
		return "", fmt.Errorf("“label” is not valid UTF-8 text (it has a broken byte sequence); write it again as UTF-8: %w", ErrInvalid)
	case strings.ContainsFunc(label, unicode.IsControl):
		return "", fmt.Errorf("“label” must be one line without control characters: %w", ErrInvalid)
	}
	label = cleanName(label)
	if n := utf8.RuneCountInString(label); n > most {
		return "", fmt.Errorf("“label” may be at most %d characters; this one has %d: %w", most, n, ErrInvalid)
	}
	return label, nil
}

// CreateFeedSecret makes a new feed secret for personID: 32 random bytes,
// lower-case base32 (letters and digits, safe in a URL path as they are)
// behind [FeedSecretPrefix]. The plain secret is returned once and never
// stored. The label follows the rules of a token's ([Store.CreateToken]),
// at most [MaxFeedLabel] characters; ErrInvalid otherwise, ErrNotFound
// for an unknown person.
func (s *Store) CreateFeedSecret(ctx context.Context, personID int64, label string) (string, FeedSecret, error) {
	label, err := checkLabel(label, MaxFeedLabel)
	if err != nil {
		return "", FeedSecret{}, err
	}
	if _, err := s.PersonByID(ctx, personID); err != nil {
		return "", FeedSecret{}, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", FeedSecret{}, err
	}
	plain := FeedSecretPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw[:]))
	f := FeedSecret{PersonID: personID, Prefix: plain[:feedShownLen], Label: label, Created: s.now()}
	err = s.db.QueryRowContext(ctx, `INSERT INTO feed_secrets (person_id, hash, prefix, label, created)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, personID, hashToken(plain), f.Prefix, f.Label, f.Created.Unix()).Scan(&f.ID)
	if err != nil {
		return "", FeedSecret{}, fmt.Errorf("cannot save the new feed secret: %w", err)
	}
	return plain, f, nil
}

// FeedSecrets lists every feed secret (valid and revoked) of every person,
// oldest first.
func (s *Store) FeedSecrets(ctx context.Context) ([]FeedSecret, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, person_id, prefix, label, created, last_used, revoked
		FROM feed_secrets ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FeedSecret
	for rows.Next() {
		var f FeedSecret
		var created int64
		var used, revoked sql.NullInt64
		if err := rows.Scan(&f.ID, &f.PersonID, &f.Prefix, &f.Label, &created, &used, &revoked); err != nil {
			return nil, err
		}
		f.Created, f.LastUsed, f.Revoked = time.Unix(created, 0).UTC(), unixOrZero(used), unixOrZero(revoked)
		out = append(out, f)
	}
	return out, rows.Err()
}

// RevokeFeedSecret revokes a feed secret named by its id ("3") or its
// shown prefix ("asf_k3j9x2qa", or a longer start of the secret, such as
// the whole secret or the last segment of the feed's URL). ErrNotFound
// when none matches, ErrConflict when a prefix matches several, ErrInvalid
// for a prefix too short to tell. Revoking a revoked secret is not an
// error. A revoked feed answers as an unknown one from then on.
func (s *Store) RevokeFeedSecret(ctx context.Context, idOrPrefix string) error {
	key := strings.TrimSuffix(strings.TrimSpace(idOrPrefix), ".ics")
	if _, perr := strconv.ParseInt(key, 10, 64); perr != nil {
		if len(key) > feedShownLen {
			key = key[:feedShownLen]
		}
		if len(key) < len(FeedSecretPrefix)+4 || !strings.HasPrefix(key, FeedSecretPrefix) {
			return fmt.Errorf("“feed” must be a feed id or its shown prefix such as “asf_k3j9x2qa”, not %s: %w", args.Quote(idOrPrefix), ErrInvalid)
		}
	}
	return s.revokeSecret(ctx, feedTable, key, idOrPrefix)
}

// feedTable is where feed secrets are kept.
var feedTable = secretTable{table: "feed_secrets", noun: "feed"}

// PersonByFeedSecret finds the person a valid (not revoked) feed secret
// belongs to. The secret is looked up by its SHA-256, so the lookup's
// timing tells nothing about the secret, and the stored hash is compared
// in constant time. ErrNotFound for an unknown or revoked secret, with one
// sentence for both. Use is stamped at most once a minute.
func (s *Store) PersonByFeedSecret(ctx context.Context, plain string) (Person, error) {
	return s.personBySecret(ctx, feedTable, plain, "the feed secret is unknown or revoked")
}
