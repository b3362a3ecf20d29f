package events

import (
	"context"
	"fmt"
	"time"

	"github.com/assistant-dev/assistant/args"
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
	local := now.In(zone.Location())
	return tools.SuccessWithData(fmt.Sprintf(format, tz.FormatModel(now, zone), zone.Name()), map[string]any{
		"now":       tz.RFC3339(now, zone),
		"date":      zone.Today(now).String(),
		"time":      local.Format("15:04"),
		"weekday":   local.Weekday().String(),
		"time_zone": zone.Name(),
		"offset":    tz.FormatOffset(now, zone),
	})
}

func setTimeZone(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	c, err := host(ctx, tc)
	if err != nil {
		return tools.Internal(err)
	}
	zone, ok := a.Zone("time_zone")
	if a.Err() == nil && !ok {
		a.Fail("time_zone", "“time_zone” must be an IANA zone name such as Europe/Paris or Asia/Tokyo.")
	}
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	if err := c.s.SetZone(ctx, c.person.ID, zone.Name()); err != nil {
		return result(err)
	}
	was := c.zone.Name()
	res := nowResult(c.now, zone, "Your time zone is now %[2]s (it was "+was+"): it is %[1]s there. Events keep their own zones; they are shown in the new one from now on.")
	return res
}
