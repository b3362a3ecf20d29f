package events

import (
	"context"
	"fmt"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

func currentTime(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	p, err := tools.Require[tools.Person](tc)
	if err != nil {
		return tools.Internal(err)
	}
	return nowResult(tools.Now(tc), p.Zone, "It is %s in %s.")
}

func nowResult(now time.Time, zone tz.Zone, format string) tools.ExecResult {
	return tools.SuccessWithData(fmt.Sprintf(format, tz.FormatModel(now, zone), zone.Name()), nowData(now, zone))
}

func nowData(now time.Time, zone tz.Zone) map[string]any {
	local := now.In(zone.Location())
	return map[string]any{
		"now":       tz.RFC3339(now, zone),
		"date":      zone.Today(now).String(),
		"time":      local.Format("15:04"),
		"weekday":   local.Weekday().String(),
		"time_zone": zone.Name(),
		"offset":    tz.FormatOffset(now, zone),
	}
}

// setTimeZone stores the person's new zone as one journaled change, so
// undo puts the old zone back. Naming the zone already stored
// changes nothing and makes no change to undo.
// readZone reads set_time_zone's “time_zone”.
func readZone(a *args.Args, _ *tools.Env) tz.Zone {
	zone, ok := a.Zone("time_zone")
	if a.Err() == nil && !ok {
		a.Fail("time_zone", "“time_zone” must be an IANA zone name such as Europe/Paris or Asia/Tokyo.")
	}
	return zone
}

func setTimeZone(c *tools.Env, zone tz.Zone) tools.ExecResult {
	// was is the stored zone, not c.Zone: a run with --tz shows another.
	var was string
	change, err := c.Write(func(tx *store.Tx) error {
		var err error
		was, err = tx.SetZone(zone.Name())
		return err
	})
	if err != nil {
		return tools.Fail(err)
	}
	if change == "" {
		return nowResult(c.Now, zone, "Your time zone is already %[2]s; nothing changed. It is %[1]s there.")
	}
	tools.InsertResult(c.TC, tools.Changed{Change: change})
	data := nowData(c.Now, zone)
	data["change"], data["was"] = change, was
	out := fmt.Sprintf("Your time zone is now %s (it was %s): it is %s there. "+
		"Events keep their own zones; they are shown in the new one from now on. Change %s; undo puts %s back.",
		zone.Name(), was, tz.FormatModel(c.Now, zone), change, was)
	return tools.SuccessWithData(out, data)
}
