package store

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

func TestFeedSecrets(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		plain, feed, err := f.s.CreateFeedSecret(f.ctx, f.alice.ID, " Google\u200b Calendar ")
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^asf_[a-z2-7]{52}$`).MatchString(plain) || !strings.HasPrefix(plain, feed.Prefix) || len(feed.Prefix) != 12 {
			t.Fatalf("secret %q, prefix %q: want asf_ and 52 URL-safe characters, the prefix its first 12", plain, feed.Prefix)
		}
		if feed.Label != "Google Calendar" || feed.PersonID != f.alice.ID || !feed.Created.Equal(t0) {
			t.Fatalf("feed = %+v", feed)
		}
		var stored int
		if err := f.s.DB().QueryRow(`SELECT count(*) FROM feed_secrets WHERE hash = ? OR prefix = ? OR label = ?`, plain, plain, plain).Scan(&stored); err != nil || stored != 0 {
			t.Fatalf("the plain secret is stored (%d rows, %v)", stored, err)
		}

		// A feed secret is never a token, and a token never a feed secret.
		token, _, _ := f.s.CreateToken(f.ctx, f.alice.ID, "laptop")
		if _, err := f.s.PersonByToken(f.ctx, plain); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a feed secret works as an access token: %v", err)
		}
		if _, err := f.s.PersonByFeedSecret(f.ctx, token); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an access token works as a feed secret: %v", err)
		}

		plain2, bobs, err := f.s.CreateFeedSecret(f.ctx, f.bob.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			secret string
			want   int64
		}{{plain, f.alice.ID}, {plain2, f.bob.ID}, {plain + "x", 0}, {plain[:len(plain)-1], 0}, {"", 0}, {feed.Prefix, 0}} {
			p, err := f.s.PersonByFeedSecret(f.ctx, c.secret)
			if p.ID != c.want || (c.want == 0 && !errors.Is(err, ErrNotFound)) {
				t.Errorf("PersonByFeedSecret(%q) = %d, %v; want %d", c.secret, p.ID, err, c.want)
			}
		}

		// Use is stamped at most once a minute.
		f.clock = t0.Add(30 * time.Second)
		f.s.PersonByFeedSecret(f.ctx, plain)
		list, err := f.s.FeedSecrets(f.ctx)
		if err != nil || len(list) != 2 || list[0].ID != feed.ID || !list[0].LastUsed.Equal(t0) || list[0].Label != "Google Calendar" ||
			list[1].ID != bobs.ID || list[1].PersonID != f.bob.ID || !list[1].LastUsed.Equal(t0) || !list[0].Revoked.IsZero() {
			t.Fatalf("FeedSecrets = %+v, %v", list, err)
		}
		f.clock = t0.Add(2 * time.Minute)
		f.s.PersonByFeedSecret(f.ctx, plain)
		if list, _ = f.s.FeedSecrets(f.ctx); !list[0].LastUsed.Equal(t0.Add(2 * time.Minute)) {
			t.Fatalf("last use not stamped after a minute: %+v", list[0])
		}

		for _, c := range []struct {
			key  string
			want error
			says string
		}{
			{"asf_", ErrInvalid, "“feed” must be a feed id or its shown prefix"},
			{"ast_abcdefgh", ErrInvalid, "“feed” must be a feed id"},
			{"asf_zzzzzzzz", ErrNotFound, "`assistant feed list` shows them"},
			{"99", ErrNotFound, "no feed matches “99”"},
		} {
			if err := f.s.RevokeFeedSecret(f.ctx, c.key); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("RevokeFeedSecret(%q) = %v; want %v saying %q", c.key, err, c.want, c.says)
			}
		}
		f.clock = t0.Add(time.Hour)
		// The whole secret, as copied from the URL, names it too.
		if err := f.s.RevokeFeedSecret(f.ctx, plain+".ics"); err != nil {
			t.Fatal(err)
		}
		_, err = f.s.PersonByFeedSecret(f.ctx, plain)
		_, err2 := f.s.PersonByFeedSecret(f.ctx, "asf_unknown")
		if !errors.Is(err, ErrNotFound) || err == nil || err2 == nil || err.Error() != err2.Error() {
			t.Fatalf("a revoked secret: %v; an unknown one: %v; want the same not-found sentence", err, err2)
		}
		if p, _ := f.s.PersonByFeedSecret(f.ctx, plain2); p.ID != f.bob.ID {
			t.Fatal("revoking alice's feed broke bob's")
		}
		if p, _ := f.s.PersonByToken(f.ctx, token); p.ID != f.alice.ID {
			t.Fatal("revoking alice's feed revoked her token")
		}
		// Revoking again keeps the first time.
		f.clock = t0.Add(2 * time.Hour)
		if err := f.s.RevokeFeedSecret(f.ctx, "1"); err != nil {
			t.Fatal(err)
		}
		if list, _ = f.s.FeedSecrets(f.ctx); !list[0].Revoked.Equal(t0.Add(time.Hour)) || !list[1].Revoked.IsZero() {
			t.Fatalf("after revoke: %+v", list)
		}

		// Labels follow the tokens' rules.
		for _, label := range []string{"x\xff", "two\nlines", strings.Repeat("l", MaxFeedLabel+1)} {
			if _, _, err := f.s.CreateFeedSecret(f.ctx, f.alice.ID, label); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "“label”") {
				t.Errorf("CreateFeedSecret label %q = %v; want ErrInvalid naming “label”", label, err)
			}
		}
		if _, _, err := f.s.CreateFeedSecret(f.ctx, 999, ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("a feed for an unknown person = %v; want ErrNotFound", err)
		}
		// Deleting the person deletes their feeds.
		if err := f.s.DeletePerson(f.ctx, f.bob.ID); err != nil {
			t.Fatal(err)
		}
		if list, _ = f.s.FeedSecrets(f.ctx); len(list) != 1 {
			t.Fatalf("bob's feed outlived him: %+v", list)
		}
	})
}
