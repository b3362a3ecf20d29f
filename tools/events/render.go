package events

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/tz"
)

// Lengths at which a listing cuts a title and a place, so that a full page
// stays under the model's limit (tools.ModelLimit) whatever was written.
const (
	listTitleRunes    = 60
	listLocationRunes = 40
)

// clip cuts s to at most n runes and 2n bytes, ending in "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n && len(s) <= 2*n {
		return s
	}
	var b strings.Builder
	runes := 0
	for _, r := range s {
		if runes == n-1 || b.Len()+utf8.RuneLen(r) > 2*n-3 {
			break
		}
		b.WriteRune(r)
		runes++
	}
	return strings.TrimSpace(b.String()) + "…"
}

const (
	dayLayout  = "Mon 2006-01-02"
	timeLayout = "15:04"
)

// span gives when o happens as read in zone: "Mon 2026-10-05 09:00–10:00
// (+02:00)", "Sun 2026-10-25 02:30 (+02:00)–02:30 (+01:00)" across a DST
// change, "Mon 2026-10-05 22:00 (+02:00) to Tue 2026-10-06 01:00
// (+02:00)", or for all-day ones "Mon 2026-10-05 (all day)" and "Mon
// 2026-10-05 to Wed 2026-10-07 (all day)".
func span(o *occ, zone tz.Zone) string {
	if o.AllDay {
		return daySpan(o.First, o.Last)
	}
	return timeSpan(o.Start, o.End, zone)
}

func daySpan(first, last tz.Date) string {
	if first == last {
		return tz.FormatDateModel(first) + " (all day)"
	}
	return tz.FormatDateModel(first) + " to " + tz.FormatDateModel(last) + " (all day)"
}

func timeSpan(start, end time.Time, zone tz.Zone) string {
	loc := zone.Location()
	s, e := start.In(loc), end.In(loc)
	if !e.After(s) {
		return tz.FormatModel(start, zone)
	}
	_, so := s.Zone()
	_, eo := e.Zone()
	if tz.DateOf(s) == tz.DateOf(e) {
		if so == eo {
			return s.Format(dayLayout+" "+timeLayout) + "–" + e.Format(timeLayout) + " (" + tz.FormatOffset(start, zone) + ")"
		}
		// The clocks changed in between: each time gets its offset, or a
		// fall-back 02:30–02:30 would read as no time at all.
		return s.Format(dayLayout+" "+timeLayout) + " (" + tz.FormatOffset(start, zone) + ")–" +
			e.Format(timeLayout) + " (" + tz.FormatOffset(end, zone) + ")"
	}
	return tz.FormatModel(start, zone) + " to " + tz.FormatModel(end, zone)
}

// ownZone is the note on an occurrence whose zone differs from the
// person's: " (America/New_York: 09:00–10:00)", with the day when it
// differs from the day the person reads, and with offsets when the zone's
// offset changes within it: " (Europe/Paris: 02:30 (+02:00)–02:30 (+01:00))".
func ownZone(o *occ, person tz.Zone) string {
	if o.AllDay || o.Zone.Name() == person.Name() {
		return ""
	}
	loc := o.Zone.Location()
	s, e := o.Start.In(loc), o.End.In(loc)
	ps := o.Start.In(person.Location())
	// When the zone's offset changes between start and end (a DST change
	// inside the event), each time gets its offset: on a fall-back day
	// 02:30–02:30 is an hour, which only the offsets tell.
	_, so := s.Zone()
	_, eo := e.Zone()
	offset := func(t time.Time) string {
		if so == eo || !e.After(s) {
			return ""
		}
		return " (" + tz.FormatOffset(t, o.Zone) + ")"
	}
	text := s.Format(timeLayout) + offset(o.Start)
	if tz.DateOf(s) != tz.DateOf(ps) {
		text = s.Format(dayLayout+" "+timeLayout) + offset(o.Start)
	}
	if e.After(s) {
		if tz.DateOf(e) == tz.DateOf(s) {
			text += "–" + e.Format(timeLayout) + offset(o.End)
		} else {
			text += " to " + e.Format(dayLayout+" "+timeLayout) + offset(o.End)
		}
	}
	return " (" + o.Zone.Name() + ": " + text + ")"
}

// gapNote says that the rule's time did not exist that day.
func gapNote(o *occ) string {
	if !o.Moved {
		return ""
	}
	return fmt.Sprintf(" (%s does not exist that day in %s; moved to %s)",
		fmt.Sprintf("%02d:%02d", o.Original.Hour, o.Original.Minute), o.Zone.Name(), o.Start.In(o.Zone.Location()).Format(timeLayout))
}

// line is one occurrence in a listing.
func line(o *occ, person tz.Zone) string {
	var b strings.Builder
	b.WriteString(o.id())
	b.WriteString("  ")
	b.WriteString(span(o, person))
	b.WriteString(ownZone(o, person))
	b.WriteString("  ")
	b.WriteString(clip(o.Title, listTitleRunes))
	if o.Location != "" {
		b.WriteString(" @ ")
		b.WriteString(clip(o.Location, listLocationRunes))
	}
	if o.Override != nil {
		if o.Override.HasTime {
			b.WriteString(" (moved)")
		} else {
			b.WriteString(" (changed)")
		}
	}
	b.WriteString(gapNote(o))
	return b.String()
}

// occData is one occurrence for programs (Data): start and end in RFC 3339
// with the offset of time_zone, or dates for all-day ones with end
// inclusive.
type occData struct {
	ID       string `json:"id"`
	Series   string `json:"series"`
	Title    string `json:"title"`
	Start    string `json:"start"`
	End      string `json:"end"`
	TimeZone string `json:"time_zone"`
	AllDay   bool   `json:"all_day"`
	Location string `json:"location,omitempty"`
	Notes    string `json:"notes,omitempty"`
	NotesCut bool   `json:"notes_cut,omitempty"`
	Changed  bool   `json:"changed,omitempty"`
	Moved    bool   `json:"moved_by_dst_gap,omitempty"`
}

func dataOf(o *occ) occData {
	d := occData{ID: o.id(), Series: o.Event.Label(), Title: o.Title, TimeZone: o.Zone.Name(), AllDay: o.AllDay,
		Location: o.Location, Notes: o.Notes, Changed: o.Override != nil, Moved: o.Moved}
	if o.AllDay {
		d.Start, d.End = o.First.String(), o.Last.String()
	} else {
		d.Start, d.End = tz.RFC3339(o.Start, o.Zone), tz.RFC3339(o.End, o.Zone)
	}
	return d
}

// listDataOf is o as a list's Data gives it: notes only as their preview
// (item.Preview), with notes_cut set when get_event has more.
func listDataOf(o *occ) occData {
	d := dataOf(o)
	d.Notes, d.NotesCut = item.Preview(o.Notes)
	return d
}

// minutes gives a length in words: "45 min", "1 h", "1 h 30 min", "2 days".
func minutes(d time.Duration) string {
	m := int(d / time.Minute)
	switch {
	case m%1440 == 0 && m >= 1440:
		if m == 1440 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", m/1440)
	case m >= 60 && m%60 == 0:
		return fmt.Sprintf("%d h", m/60)
	case m > 60:
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
	return fmt.Sprintf("%d min", m)
}

// quote puts a title in typographic quotes for sentences.
func quote(s string) string { return "“" + s + "”" }
