package events

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// ref is an id as the model quotes it: a series (e7) or one occurrence of
// it (e7@20261005T070000Z, all-day e7@20261005).
type ref struct {
	ID  int64
	Key string // "" for a series
}

func (r ref) String() string {
	if r.Key == "" {
		return label(r.ID)
	}
	return label(r.ID) + "@" + r.Key
}

var idPattern = regexp.MustCompile(`^[eE]([0-9]{1,18})(?:@([0-9]{8}(?:[Tt][0-9]{6}[Zz])?))?$`)

// readID reads “id”, which must be there.
func readID(a *args.Args) ref {
	text := a.Needed("id")
	if a.Err() != nil {
		return ref{}
	}
	m := idPattern.FindStringSubmatch(text)
	var r ref
	if m != nil {
		r.ID, _ = strconv.ParseInt(m[1], 10, 64)
		r.Key = strings.ToUpper(m[2])
		if r.Key != "" {
			if _, _, ok := keyStart(r.Key, tz.UTC); !ok {
				m = nil
			}
		}
	}
	if m == nil || r.ID <= 0 {
		a.Fail("id", fmt.Sprintf("“id” must be an event id such as e7, or an occurrence id such as e7@20261005T070000Z as list_events shows it, not %s.", args.Quote(text)))
		return ref{}
	}
	return r
}

// target is what an id names: a live event of the owner and, for an
// occurrence id, that occurrence as the rule gives it.
type target struct {
	E   *event
	Occ *recur.Occurrence
}

// resolve finds what r names. An unknown id, another person's, or a
// deleted one gets the same not-found sentence; an occurrence id made
// stale by a split or a shift gets a sentence naming its new id.
func resolve(tx *store.Tx, r ref, person tz.Zone) (target, error) {
	e, err := tx.Event(r.ID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return target{}, tools.Refuse(tools.CodeNotFound, fmt.Sprintf("There is no event %s; list_events shows the ids of your events.", r))
		}
		return target{}, err
	}
	t := target{E: e}
	if r.Key == "" {
		return t, nil
	}
	if o, ok := occurrenceAt(e.Series(person), r.Key, person); ok {
		t.Occ = &o
		return t, nil
	}
	return target{}, tools.Refuse(tools.CodeNotFound, stale(tx, e, r, person))
}

// stale explains why r is not an occurrence of its event, naming the id it
// has now when it was moved by a shift of the series or went to a new
// series in a split.
func stale(tx *store.Tx, e *event, r ref, person tz.Zone) string {
	s := e.Series(person)
	s.ExDates = nil
	if _, ok := occurrenceAt(s, r.Key, person); ok {
		return fmt.Sprintf("%s was deleted from the series %s; undo can bring it back.", r, e.Label())
	}
	if now, why := moved(tx, e, r.Key, person, 0); now != "" {
		return fmt.Sprintf("%s is no longer an occurrence id: %s; that occurrence is now %s.", r, why, now)
	}
	return fmt.Sprintf("%s is not an occurrence of %s; get_event %s or list_events shows its occurrence ids.", r, e.Label(), e.Label())
}

// moved finds the id that key of e has after shifts and splits, with the
// reason in words; "" when none is found.
func moved(tx *store.Tx, e *event, key string, person tz.Zone, depth int) (string, string) {
	if depth > 4 {
		return "", ""
	}
	s := e.Series(person)
	for i := len(e.PrevStarts) - 1; i >= 0; i-- {
		for _, k := range shiftKeys(e, e.PrevStarts[i], key) {
			if k == key {
				continue
			}
			if _, ok := occurrenceAt(s, k, person); ok {
				return e.Label() + "@" + k, "the series " + e.Label() + " was moved"
			}
		}
	}
	kids, err := tx.SplitsOf(e.ID)
	if err != nil {
		return "", ""
	}
	for _, id := range kids {
		child, err := tx.Event(id)
		if err != nil {
			continue
		}
		why := "the series " + e.Label() + " was split and this part is now " + child.Label()
		if _, ok := occurrenceAt(child.Series(person), key, person); ok {
			return child.Label() + "@" + key, why
		}
		if now, _ := moved(tx, child, key, person, depth+1); now != "" {
			return now, why
		}
	}
	return "", ""
}

// shiftKeys maps key, an occurrence of the series as it was when it
// started at prev, to the keys it may have after the series moved to e's
// start and zone: the same shift of the civil time the rule gave it, read
// in the new zone. A key whose instant a DST gap moved forward may stand
// for an earlier civil time, so each reading the gap could have moved is
// a candidate; none when key does not fit prev.
func shiftKeys(e *event, prev prevStart, key string) []string {
	old, err := tz.ParseMoment(prev.Start)
	if err != nil || old.HasTime != e.Start.HasTime {
		return nil
	}
	m, utc, err := tz.ParseBasic(key)
	if err != nil {
		return nil
	}
	if !old.HasTime {
		if m.HasTime {
			return nil
		}
		return []string{m.Date.AddDays(old.Date.DaysUntil(e.Start.Date)).Basic()}
	}
	oldZone, err := tz.LoadZone(prev.TZID)
	if err != nil || !utc {
		return nil
	}
	at := m.DateTime.AsUTC()
	shift := e.Start.DateTime.AsUTC().Sub(old.DateTime.AsUTC())
	var out []string
	for _, back := range []time.Duration{0, 30 * time.Minute, time.Hour, 2 * time.Hour} {
		civil := tz.FromUTCClock(oldZone.In(at).AsUTC().Add(-back))
		if back > 0 {
			if t, moved := oldZone.Instant(civil); !moved || !t.Equal(at) {
				continue
			}
		}
		t, _ := e.Zone.Instant(tz.FromUTCClock(civil.AsUTC().Add(shift)))
		out = append(out, tz.FromUTCClock(t).Basic()+"Z")
	}
	return out
}
