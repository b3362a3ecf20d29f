package ics

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// TestExportVTimezones: every TZID an export uses has a VTIMEZONE, and
// each VTIMEZONE, read back as a custom zone (renamed, so its IANA name
// cannot help), gives the IANA zone's offsets: both its own rules and the
// zone the custom-VTIMEZONE matcher picks for it agree with the zone
// database just before, at and after every transition of the years the
// items cover, and mid-month.
func TestExportVTimezones(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Sao_Paulo", "Asia/Kolkata", "Pacific/Apia"}
		var items []string
		for i, z := range zones {
			items = append(items,
				"BEGIN:VEVENT", fmt.Sprintf("UID:ev%d", i), "SUMMARY:Series in "+z,
				"DTSTART;TZID="+z+":20170310T090000", "DURATION:PT1H", "RRULE:FREQ=MONTHLY;UNTIL=20221231T000000Z",
				"EXDATE;TZID="+z+":20180310T090000", "END:VEVENT",
				"BEGIN:VTODO", fmt.Sprintf("UID:td%d", i), "SUMMARY:Task in "+z, "DUE;TZID="+z+":20210601T170000", "END:VTODO")
		}
		ctx := context.Background()
		st, p := openStore(t)
		if rep, err := Import(ctx, st, p, strings.NewReader(vcalendar(items...)), ImportOptions{}); err != nil || len(rep.Skipped) > 0 {
			t.Fatalf("import: %v, skipped %+v", err, rep.Skipped)
		}
		var out bytes.Buffer
		if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		// Unfolded, so a TZID is never cut by a fold.
		text := strings.ReplaceAll(out.String(), "\r\n ", "")

		var pr parser
		roots := pr.parse([]byte(text))
		if len(roots) != 1 || len(pr.skipped) > 0 {
			t.Fatalf("the export does not parse: %d calendars, %+v", len(roots), pr.skipped)
		}
		defined := map[string]*node{}
		used := map[string]bool{}
		var walk func(n *node)
		walk = func(n *node) {
			for _, ps := range n.Props {
				for _, p := range ps {
					if id := p.Params.Get("TZID"); id != "" {
						used[id] = true
					}
				}
			}
			for _, c := range n.children {
				walk(c)
			}
		}
		for _, c := range roots[0].children {
			if c.Name == "VTIMEZONE" {
				defined[c.Props.Get("TZID").Value] = c
				continue
			}
			walk(c)
		}
		for _, z := range zones {
			if !used[z] {
				t.Errorf("the export uses no TZID %s", z)
			}
		}
		for id := range used {
			if defined[id] == nil {
				t.Errorf("TZID %s is used but has no VTIMEZONE", id)
			}
		}

		// The instants to compare: around every transition of 2017–2022 in
		// each zone, and the 1st and 15th of every month.
		instants := func(loc *time.Location) []time.Time {
			var ts []time.Time
			for at := time.Date(2017, 1, 1, 0, 0, 0, 0, loc); at.Year() < 2023; at = at.AddDate(0, 0, 14) {
				ts = append(ts, at)
			}
			end := time.Date(2023, 1, 1, 0, 0, 0, 0, loc)
			for at := time.Date(2017, 1, 1, 0, 0, 0, 0, loc); ; {
				_, next := at.ZoneBounds()
				if next.IsZero() || !next.Before(end) {
					break
				}
				ts = append(ts, next.Add(-time.Hour), next.Add(-time.Second), next, next.Add(time.Hour))
				at = next
			}
			return ts
		}
		offset := func(at time.Time, loc *time.Location) int {
			_, off := at.In(loc).Zone()
			return off
		}
		custom := text
		for i, z := range zones {
			iana := tz.MustZone(z).Location()
			rules, err := parseVTimezone(defined[z], 2017, 2022)
			if err != nil {
				t.Fatalf("%s: our own VTIMEZONE cannot be read: %v", z, err)
			}
			transitions := 0
			for _, at := range instants(iana) {
				if got, want := rules.offsetAt(at), offset(at, iana); got != want {
					t.Errorf("%s: the VTIMEZONE says %+d s at %s, the zone database %+d s", z, got, at.UTC().Format(time.RFC3339), want)
				}
			}
			for _, o := range rules.onsets {
				if o.at.Year() >= 2017 && o.at.Year() <= 2022 {
					transitions++
				}
			}
			// Sao Paulo (until 2019) and Apia (until 2021) changed clocks in
			// those years too; Kolkata did not.
			if z != "Asia/Kolkata" && transitions == 0 {
				t.Errorf("%s: the VTIMEZONE has no transition in 2017–2022", z)
			}
			name := fmt.Sprintf("Custom Zone %c", 'A'+i)
			custom = strings.ReplaceAll(custom, "TZID:"+z+"\r\n", "TZID:"+name+"\r\n")
			custom = strings.ReplaceAll(custom, "TZID="+z+":", "TZID="+name+":")
		}
		cal := DecodeBytes([]byte(custom), DecodeOptions{Zone: tz.MustZone("Europe/Berlin")})
		if len(cal.Skipped) > 0 || len(cal.Repaired) > 0 {
			t.Fatalf("the renamed export: skipped %+v repaired %+v", cal.Skipped, cal.Repaired)
		}
		for i, z := range zones {
			name := fmt.Sprintf("Custom Zone %c", 'A'+i)
			m, ok := cal.Zones[name]
			if !ok || !strings.HasPrefix(m.How, "VTIMEZONE rules (matched ") {
				t.Errorf("%s (%s): read as %+v, want a VTIMEZONE match", name, z, m)
				continue
			}
			t.Logf("%s (written as %s): %s", name, z, m.How)
			iana := tz.MustZone(z).Location()
			for _, at := range instants(iana) {
				if got, want := offset(at, m.Zone.Location()), offset(at, iana); got != want {
					t.Errorf("%s was matched to %s, which is %+d s at %s where %s is %+d s", name, m.Zone.Name(), got, at.UTC().Format(time.RFC3339), z, want)
				}
			}
		}
	})
}

// A VTIMEZONE covers at most MaxZoneYears years past 1970, whatever the
// dates: its lines (a DTSTART or RDATE each, or an RRULE for the years a
// yearly rule holds) stay within two a year, the years after Go's zone
// table (where it reports year boundaries, one a day early in leap years)
// add no more, and read back it still gives Paris's two changes a year.
func TestVTimezoneBounded(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	for _, span := range [][2]int{{2031, 2041}, {2038, 2042}, {1980, 9999}, {1, 9999}, {9990, 9999}} {
		c := vtimezone(paris, span[0], span[1], false)
		lines := 0
		n := &node{Component: c}
		for _, o := range c.Children {
			n.children = append(n.children, &node{Component: o})
			// DTSTART, which is also the first RDATE when there are some.
			lines += max(1, len(o.Props["RDATE"]))
		}
		last := min(span[1], max(span[0], 1970)+MaxZoneYears-1)
		years := last - span[0] + 1
		if lines > 2*years+2 {
			t.Errorf("%d–%d: %d onsets written, want at most %d", span[0], span[1], lines, 2*years+2)
		}
		rules, err := parseVTimezone(n, max(span[0], 1980), last)
		if err != nil {
			t.Fatalf("%d–%d: %v", span[0], span[1], err)
		}
		read := 0
		for _, o := range rules.onsets {
			if y := o.at.Year(); y >= max(span[0], 1980) && y <= last {
				read++
			}
		}
		if want := 2 * (last - max(span[0], 1980) + 1); read < want-4 || read > want+4 {
			t.Errorf("%d–%d: %d changes read back, want about %d", span[0], span[1], read, want)
		}
	}
}

// A file whose items span centuries gets a VTIMEZONE that serves both
// ends: an event of 1800 and one of July 2027 in Paris read with the
// offsets of their own times (+00:09:21 local mean time, and +02:00).
func TestVTimezoneSpansCenturies(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	for _, from := range []int{1, 1700, 1800} {
		c := vtimezone(paris, from, 2027, false)
		n := &node{Component: c}
		first := ""
		for _, o := range c.Children {
			n.children = append(n.children, &node{Component: o})
			if d := o.Props.Get("DTSTART").Value; first == "" || d < first {
				first = d
			}
		}
		rules, err := parseVTimezone(n, from, 2027)
		if err != nil {
			t.Fatalf("from %d: %v", from, err)
		}
		if got := rules.offsetAt(time.Date(2027, 7, 1, 12, 0, 0, 0, time.UTC)); got != 7200 {
			t.Errorf("from %d: July 2027 reads at %+d s, want +7200 s", from, got)
		}
		if got := rules.offsetAt(time.Date(1800, 7, 1, 12, 0, 0, 0, time.UTC)); from <= 1800 && got != 561 {
			t.Errorf("from %d: 1800 reads at %+d s, want Paris's local mean time +561 s", from, got)
		}
		if first > fmt.Sprintf("%04d0101T000000", from) {
			t.Errorf("from %d: the first onset is %s, after the earliest DTSTART", from, first)
		}
	}
}

// A VTIMEZONE written for a span carries the zone's yearly rule past it:
// for every zone of the database, the VTIMEZONE of a series that never
// ends, started in 2026 or in 1995 (before the United States' rule of
// 2007 and Europe's of 1996), read back by the import's own VTIMEZONE
// reader, gives the zone database's offset around every change and at the
// 1st and 15th of every month until 2076, wherever it writes an RRULE;
// and the zones of the common rules (last Sunday, nth Sunday, "Sunday on
// or after", a southern summer) get one. Before, a reader kept the last
// offset written after ten years from the start, an hour off every
// summer. A series of 1850 gets it too, for a few zones. A zone without a
// rule gets every change up to 2037 (Istanbul's permanent +03 of 2016 for
// a series of 1995), and is read right up to then, and after if it
// changes no more.
func TestVTimezoneRuleCarriesOn(t *testing.T) {
	const readTo = 2075
	want := map[string]bool{"Europe/Paris": true, "America/New_York": true, "Australia/Sydney": true,
		"Asia/Jerusalem": true, "America/Santiago": true, "Pacific/Chatham": true, "Australia/Lord_Howe": true}
	check := func(name string, fromY int) bool {
		z, err := tz.LoadZone(name)
		if err != nil {
			return false
		}
		c := vtimezone(z, fromY, fromY+10, true)
		n := &node{Component: c}
		hasRule := false
		for _, o := range c.Children {
			n.children = append(n.children, &node{Component: o})
			if o.Props.Get("RRULE") != nil {
				hasRule = true
			}
		}
		if want[name] && !hasRule {
			t.Errorf("%s from %d: no RRULE in its VTIMEZONE", name, fromY)
		}
		loc := z.Location()
		// A zone without a rule gets every change to ruleYear, and is
		// right after it only if it changes no more (Istanbul since 2016,
		// not Cairo).
		until := readTo
		if !hasRule && len(onsetsIn(loc, ruleYear+1, readTo)) > 0 {
			until = ruleYear
		}
		rules, err := parseVTimezone(n, fromY, readTo)
		if err != nil {
			t.Fatalf("%s from %d: its VTIMEZONE cannot be read: %v", name, fromY, err)
		}
		var at []time.Time
		for m := time.Date(fromY, 1, 1, 0, 0, 0, 0, loc); m.Year() <= until; m = m.AddDate(0, 0, 14) {
			at = append(at, m)
		}
		// A minute either side: the reader keeps DTSTART to the minute,
		// and local mean time changed at odd seconds (New York's 1883
		// change was at 12:03:58).
		for _, o := range onsetsIn(loc, fromY, until) {
			at = append(at, o.at.Add(-time.Minute), o.at.Add(time.Minute), o.at.Add(time.Hour))
		}
		for _, a := range at {
			_, off := a.In(loc).Zone()
			if got := rules.offsetAt(a); got != off {
				t.Errorf("%s from %d: the VTIMEZONE says %+d s at %s, the zone database %+d s", name, fromY, got, a.UTC().Format(time.RFC3339), off)
				break
			}
		}
		return hasRule
	}
	for _, fromY := range []int{2026, 1995} {
		ruled := 0
		for _, name := range tz.ZoneNames() {
			if check(name, fromY) {
				ruled++
			}
		}
		if ruled < 50 {
			t.Errorf("from %d: only %d zones got a yearly rule", fromY, ruled)
		}
	}
	for _, name := range []string{"Europe/Paris", "America/New_York", "Australia/Sydney", "Europe/Istanbul", "Pacific/Apia", "Asia/Singapore"} {
		check(name, 1850)
	}
}
