package events

import (
	"fmt"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// deleteEvent is delete_event: one occurrence (an EXDATE, its override
// removed), it and the following ones ([calendar.DeleteFollowing] through
// updater.endBefore), or the whole series.
// scoped is an id with the scope of a call on it.
type scoped struct {
	r     ref
	scope string
}

// readScoped reads “id” and “scope”.
func readScoped(a *args.Args, _ *tools.Env) scoped {
	r := readID(a)
	return scoped{r, readScope(a, r)}
}

func deleteEvent(c *tools.Env, in scoped) tools.ExecResult {
	r, scope := in.r, in.scope
	var (
		u    *updater
		what string
	)
	change, err := c.Write(func(tx *store.Tx) error {
		t, err := resolve(tx, r, c.Zone)
		if err != nil {
			return err
		}
		ovs, err := tx.Overrides(t.E.ID)
		if err != nil {
			return err
		}
		e := t.E
		u = &updater{tx: tx, c: c, e: e, ovs: ovs, person: c.Zone}
		u.item(e.Label())
		switch {
		case scope == scopeThis && !e.Repeats():
			scope = scopeAll
		case scope == scopeFollowing && isFirst(e, *t.Occ, c.Zone):
			scope = scopeAll
		}
		tx.Summarize(fmt.Sprintf("deleted %s (%s)", r, scope))
		switch scope {
		case scopeAll:
			what = fmt.Sprintf("Deleted %s %s and all its occurrences", e.Label(), quote(e.Title))
			return tx.DeleteEvent(e.ID)
		case scopeThis:
			o, _ := shown(e, *t.Occ, u.ovs, c.Zone)
			if ov := u.ovs[o.Key()]; ov != nil {
				if err := tx.DeleteOverride(ov.ID); err != nil {
					return err
				}
				delete(u.ovs, o.Key())
			}
			what = fmt.Sprintf("Deleted %s %s (%s) from the series %s", o.id(), quote(o.Title), span(&o, c.Zone), e.Label())
			n := e.Clone()
			n.ExDates = append(n.ExDates, t.Occ.Original)
			if len(n.Series(c.Zone).All(1)) == 0 {
				what += "; it was the last one, so the series is deleted too"
				return tx.DeleteEvent(e.ID)
			}
			return tx.SaveEvent(e, n)
		default:
			old, _, _, err := u.endBefore(*t.Occ, false)
			if err != nil {
				return err
			}
			from := tz.FormatDateModel(t.Occ.Original.Date)
			if !e.AllDay {
				from = tz.FormatModel(t.Occ.Start, c.Zone)
			}
			what = fmt.Sprintf("Deleted %s %s from %s on", e.Label(), quote(e.Title), from)
			if last, ok := lastBefore(old, u.ovs, c.Zone, t.Occ.Start); ok {
				what += fmt.Sprintf("; its last occurrence is now %s (%s)", last.id(), span(&last, c.Zone))
			}
			return nil
		}
	})
	if err != nil {
		return tools.Fail(err)
	}
	tools.InsertResult(c.TC, tools.Changed{Change: change, Items: u.items})
	return tools.SuccessWithData(fmt.Sprintf("%s (change %s; undo %s to bring it back).", what, change, change),
		map[string]any{"change": change, "deleted": r.String(), "scope": scope})
}
