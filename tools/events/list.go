package events

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Page sizes of list_events: a full page of the longest lines (titles and
// places cut by clip, both zones shown) stays under tools.ModelLimit; a
// test checks the worst case.
const (
	listDefault = 30
	listMax     = 40
)

// listSpanDays is how many days past where it starts one page of
// list_events looks (up to 00:00 of the day that many days later, in the
// person's zone): a longer window is served in stretches, each ending
// with a cursor, so a page's work follows its size and never the window's.
const listSpanDays = 366

// listCount is how many occurrences after a page list_events counts to
// give the total; past it the total is left out (the answer says more
// follow). Counting is most of a page's work, so it stays a few pages'
// worth: a page then reads at most about limit+listCount series, however
// many the window holds.
const listCount = 200

// cursorProp is list_events' cursor: a place in the listing, not an offset.
var cursorProp = tools.CursorProp

// readListCursor reads “cursor” as a place in the listing: shown is how
// many occurrences came before it.
func readListCursor(a *args.Args, scope []string) (at *position, shown int) {
	c := a.Text("cursor")
	if c == "" {
		return nil, 0
	}
	bad := func() (*position, int) {
		a.Fail("cursor", fmt.Sprintf("“cursor” must be the next_cursor of this same listing, not “%s” (a cursor holds the window and search it was given for, and the person's zone); leave it out for the first page.", clip(c, 60)))
		return nil, 0
	}
	body, ok := tools.OpenCursor(c, scope...)
	if !ok {
		return bad()
	}
	parts := strings.Split(body, ".")
	if len(parts) == 2 {
		parts = append(parts, "0", "") // a place between instants
	}
	if len(parts) != 4 || !strings.HasPrefix(parts[0], "p") {
		return bad()
	}
	n, err1 := strconv.Atoi(parts[0][1:])
	sec, err2 := strconv.ParseInt(parts[1], 10, 64)
	id, err3 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || n < 0 || id < 0 || len(parts[3]) > 20 {
		return bad()
	}
	return &position{start: time.Unix(sec, 0).UTC(), id: id, key: parts[3]}, n
}

// listCursor is the cursor of the page after shown occurrences, resuming
// after p.
func listCursor(shown int, p position) string {
	if p.id == 0 && p.key == "" {
		return fmt.Sprintf("p%d.%d", shown, p.start.Unix())
	}
	return fmt.Sprintf("p%d.%d.%d.%s", shown, p.start.Unix(), p.id, p.key)
}

// listArgs is what list_events reads.
type listArgs struct {
	w      tools.Window
	query  string
	limit  int
	after  *position
	offset int
}

// readList reads list_events' window, “query”, “limit” and “cursor”.
func readList(a *args.Args, c *tools.Env) listArgs {
	in := listArgs{w: tools.ReadWindow(a, c.Zone, c.Now), query: a.Line("query")}
	tools.TooLong(a, "query", "search text", in.query, item.MaxQuery)
	in.limit = a.Number("limit", listDefault, 1, listMax)
	in.after, in.offset = readListCursor(a, in.scope(c.Zone))
	return in
}

// scope is what a cursor of the listing in, read in zone, holds to itself
// ([tools.SealCursor]): in another window, search or zone its place would
// skip or repeat occurrences.
func (in listArgs) scope(zone tz.Zone) []string {
	return []string{strconv.FormatInt(in.w.From.Unix(), 10), strconv.FormatInt(in.w.To.Unix(), 10), in.query, zone.Name()}
}

func listEvents(c *tools.Env, in listArgs) tools.ExecResult {
	w, query, limit, after, offset := in.w, in.query, in.limit, in.after, in.offset
	var pg listing
	err := c.Read(func(tx *store.Tx) error {
		var err error
		pg, err = listPage(c.Ctx, tx, c.Zone, w, after, query, limit)
		return err
	})
	if err != nil {
		return tools.Fail(err)
	}
	page, rest, scan, cut, ended := pg.page, pg.rest, pg.scan, pg.cut, pg.ended
	var next string
	switch {
	case rest > 0:
		next = listCursor(offset+len(page), positionOf(&page[len(page)-1]))
	case cut:
		next = listCursor(offset+len(page), position{start: scan.To})
	}
	if next != "" {
		next = tools.SealCursor(next, in.scope(c.Zone)...)
	}
	total := -1
	if ended && !cut {
		total = offset + len(page) + rest
	}
	what := "events"
	if total == 1 {
		what = "event"
	}
	if query != "" {
		what += " matching " + args.Quote(query)
	}
	var b strings.Builder
	switch {
	case len(page) == 0 && offset == 0 && next == "":
		fmt.Fprintf(&b, "No %s from %s (%s).", what, w.String(c.Zone), c.Zone.Name())
	case len(page) == 0:
		fmt.Fprintf(&b, "No more %s from %s (%s) up to %s.", what, w.String(c.Zone), c.Zone.Name(), tz.FormatModel(scan.To, c.Zone))
	case offset == 0 && next == "":
		fmt.Fprintf(&b, "%d %s from %s (%s):", len(page), what, w.String(c.Zone), c.Zone.Name())
	case total >= 0:
		fmt.Fprintf(&b, "%s %d–%d of %d from %s (%s):", capital(what), offset+1, offset+len(page), total, w.String(c.Zone), c.Zone.Name())
	default:
		fmt.Fprintf(&b, "%s %d–%d from %s (%s), more follow:", capital(what), offset+1, offset+len(page), w.String(c.Zone), c.Zone.Name())
	}
	data := make([]occData, 0, len(page))
	for i := range page {
		b.WriteByte('\n')
		b.WriteString(line(&page[i], c.Zone))
		data = append(data, listDataOf(&page[i]))
	}
	if cut && rest == 0 {
		fmt.Fprintf(&b, "\nOne call looks at most %d days ahead, so this one stopped at %s; the window goes on: call again with cursor %s.",
			listSpanDays, tz.FormatModel(scan.To, c.Zone), next)
	} else if next != "" {
		fmt.Fprintf(&b, "\nMore: call again with cursor %s.", next)
	}
	out := map[string]any{
		"events": data, "next_cursor": next, "time_zone": c.Zone.Name(),
		"from": w.From.In(c.Zone.Location()).Format("2006-01-02T15:04:05-07:00"),
		"to":   w.To.In(c.Zone.Location()).Format("2006-01-02T15:04:05-07:00"),
	}
	if total >= 0 {
		out["total"] = total
	}
	if cut {
		out["searched_to"] = scan.To.In(c.Zone.Location()).Format("2006-01-02T15:04:05-07:00")
	}
	return tools.SuccessWithData(b.String(), out)
}

// listing is one page of list_events.
type listing struct {
	page  []occ
	rest  int          // occurrences after the page, counted up to listCount
	ended bool         // nothing follows rest
	scan  tools.Window // what the page looked at
	cut   bool         // scan ends before the window asked for
	scans int          // rule scans made, for the tests of bounded work
}

// listPage lists up to limit occurrences of w after the cursor position
// after (nil for the first page), with titles, and counts up to listCount
// more. It looks from the later of where the page starts and the first
// start any series in play can have, at most listSpanDays ahead.
func listPage(ctx context.Context, tx *store.Tx, zone tz.Zone, w tools.Window, after *position, query string, limit int) (listing, error) {
	pg := listing{scan: w}
	pageFrom := w.From
	if after != nil && after.start.After(pageFrom) {
		pageFrom = after.start
	}
	snap, err := seriesFor(tx, w.From, w.To)
	if err != nil {
		return pg, err
	}
	if end := zone.StartOfDay(zone.Today(pageFrom).AddDays(listSpanDays)); end.Before(w.To) {
		// A window longer than one call looks starts where the series
		// do: a call then never stops short in years with nothing.
		earliest, any := int64(0), false
		from, to := pageFrom.Unix(), w.To.Unix()
		for _, r := range snap.rows {
			if r.reaches(from, to) && (!any || r.first < earliest) {
				earliest, any = r.first, true
			}
		}
		if !any {
			pg.ended = true
			return pg, nil
		}
		if t := time.Unix(earliest, 0); t.After(pageFrom) {
			pageFrom = t
		}
	}
	if end := zone.StartOfDay(zone.Today(pageFrom).AddDays(listSpanDays)); end.Before(w.To) {
		pg.scan.To, pg.cut = end, true
	}
	var m *merger
	if query == "" {
		m, err = lazyStreams(ctx, tx, snap, zone, pg.scan, 0, after)
	} else {
		var streams []*stream
		if streams, err = windowStreams(tx, snap, zone, pg.scan, 0, after, query); err == nil {
			m, err = newMerger(ctx, streams)
		}
	}
	if err != nil {
		return pg, err
	}
	for len(pg.page) < limit {
		o, ok, err := m.next()
		if err != nil {
			return pg, err
		}
		if !ok {
			pg.ended = true
			break
		}
		pg.page = append(pg.page, o)
	}
	for !pg.ended && pg.rest < listCount {
		_, ok, err := m.next()
		if err != nil {
			return pg, err
		}
		if !ok {
			pg.ended = true
			break
		}
		pg.rest++
	}
	pg.scans = m.scans()
	return pg, fillText(tx, pg.page)
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
