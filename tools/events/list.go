package events

import (
	"context"
	"fmt"
	"strings"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/fields"
)

// Page sizes of list_events: a full page of the longest lines (titles and
// places cut by clip, both zones shown) stays under tools.ModelLimit; a
// test checks the worst case.
const (
	listDefault = 30
	listMax     = 40
)

func listEvents(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	c, err := host(ctx, tc)
	if err != nil {
		return tools.Internal(err)
	}
	w := fields.ReadWindow(a, c.zone, c.now)
	query := a.Line("query")
	limit := a.Number("limit", listDefault, 1, listMax)
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	var (
		list, page []occ
		offset     int
	)
	err = c.s.Read(ctx, c.person.ID, func(tx *store.Tx) error {
		var err error
		if list, err = windowOccs(tx, c.zone, w, 0); err != nil {
			return err
		}
		if query != "" {
			// Matching needs every occurrence's text; without a query
			// only the page's is read.
			if err := fillText(tx, list); err != nil {
				return err
			}
			q := strings.ToLower(query)
			kept := list[:0]
			for _, o := range list {
				// through CleanLine: older rows may hold invisible characters
				if strings.Contains(strings.ToLower(args.CleanLine(o.Title)), q) || strings.Contains(strings.ToLower(args.CleanLine(o.Location)), q) ||
					strings.Contains(strings.ToLower(args.CleanLine(o.Notes)), q) {
					kept = append(kept, o)
				}
			}
			list = kept
		}
		offset = fields.ReadCursor(a, len(list))
		if a.Err() != nil {
			return nil
		}
		page = list[offset:min(len(list), offset+limit)]
		if query == "" {
			return fillText(tx, page)
		}
		return nil
	})
	if err != nil {
		return result(err)
	}
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	next := fields.NextCursor(offset, limit, len(list))
	what := "events"
	if len(list) == 1 {
		what = "event"
	}
	if query != "" {
		what += " matching " + quote(query)
	}
	var b strings.Builder
	switch {
	case len(list) == 0:
		fmt.Fprintf(&b, "No %s from %s (%s).", what, w.String(c.zone), c.zone.Name())
	case offset == 0 && next == "":
		fmt.Fprintf(&b, "%d %s from %s (%s):", len(list), what, w.String(c.zone), c.zone.Name())
	default:
		fmt.Fprintf(&b, "%s %d–%d of %d from %s (%s):", capital(what), offset+1, offset+len(page), len(list), w.String(c.zone), c.zone.Name())
	}
	data := make([]occData, 0, len(page))
	for i := range page {
		b.WriteByte('\n')
		b.WriteString(line(&page[i], c.zone))
		data = append(data, dataOf(&page[i]))
	}
	if next != "" {
		fmt.Fprintf(&b, "\nMore: call again with cursor %s.", next)
	}
	return tools.SuccessWithData(b.String(), map[string]any{
		"events": data, "total": len(list), "next_cursor": next, "time_zone": c.zone.Name(),
		"from": w.From.In(c.zone.Location()).Format("2006-01-02T15:04:05-07:00"),
		"to":   w.To.In(c.zone.Location()).Format("2006-01-02T15:04:05-07:00"),
	})
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
