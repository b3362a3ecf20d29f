#!/usr/bin/python3
"""A CalDAV session with python3-caldav (Debian's package), as
e2e/caldav_python_test.go drives it: signs in from the server's root URL,
then reads steps from standard input, one JSON array a line
(["search", "20261006T000000Z", "20261008T000000Z"]), and answers each
with one JSON object on its own line of standard output: what the step
found, or {"error": "..."} with the Python traceback when it failed.

Usage: client.py URL USER PASSWORD

Steps:
  discover                  the principal, and each calendar with its
                            supported components
  create                    saves the events of EVENTS; gives their URLs
  freebusy START END        free-busy-query; gives the busy periods in UTC
  todo                      saves TODO in the VTODO calendar; gives its URL
                            and the pending tasks
  complete URL              marks the task at URL completed; gives the
                            pending tasks and all of them
  search START END          calendar-query with a time range (UTC,
                            20261006T000000Z) without and with expand
  textsearch TEXT           the events whose SUMMARY contains TEXT
  override URL RECURRENCE-ID DTSTART SUMMARY
                            loads the series at URL, adds an override of
                            one occurrence and saves the whole object
  get URL                   the object at URL
  delete URL                deletes the object at URL
  sync [TOKEN]              sync-collection from TOKEN (none: everything);
                            each member reported is loaded, a 404 counts
                            as gone
"""

import json
import sys
import traceback
from datetime import datetime, timezone

import caldav
import icalendar
from caldav.lib import error

# The events the create step saves: one single event, with a property
# the server does not model (it must come back), and a daily series in
# Europe/Paris with its VTIMEZONE, as desktop clients write them.
EVENTS = {
    "dentist": """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//e2e//python3-caldav//EN
BEGIN:VEVENT
UID:dentist-4f1c@e2e.example
DTSTAMP:20261001T080000Z
DTSTART:20261007T130000Z
DTEND:20261007T140000Z
SUMMARY:Dentist
LOCATION:Rue de Rivoli 12
X-E2E-COLOR:teal
END:VEVENT
END:VCALENDAR
""",
    "holiday": """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//e2e//python3-caldav//EN
BEGIN:VEVENT
UID:holiday-33d0@e2e.example
DTSTAMP:20261001T080000Z
DTSTART;VALUE=DATE:20261009
DTEND;VALUE=DATE:20261010
SUMMARY:Day off
END:VEVENT
END:VCALENDAR
""",
    "yoga": """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//e2e//python3-caldav//EN
BEGIN:VTIMEZONE
TZID:Europe/Paris
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE
BEGIN:VEVENT
UID:yoga-91ab@e2e.example
DTSTAMP:20261001T080000Z
DTSTART;TZID=Europe/Paris:20261005T180000
DTEND;TZID=Europe/Paris:20261005T190000
RRULE:FREQ=DAILY;COUNT=5
SUMMARY:Yoga
END:VEVENT
END:VCALENDAR
""",
}

# The task the todo step saves in the collection of VTODOs.
TODO = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//e2e//python3-caldav//EN
BEGIN:VTODO
UID:todo-5e21@e2e.example
DTSTAMP:20261001T080000Z
DUE:20261009T160000Z
SUMMARY:Renew the passport
STATUS:NEEDS-ACTION
END:VTODO
END:VCALENDAR
"""


def components(obj):
    """The VEVENTs and VTODOs of obj's data, each as the test reads it."""
    out = []
    for c in obj.icalendar_instance.walk():
        if c.name not in ("VEVENT", "VTODO"):
            continue
        d = {"uid": str(c.get("UID", "")), "summary": str(c.get("SUMMARY", ""))}
        if c.get("STATUS") is not None:
            d["status"] = str(c.get("STATUS"))
        for name in ("DTSTART", "RECURRENCE-ID", "DUE"):
            if c.get(name) is not None:
                d[name.lower()] = utc(c.decoded(name))
        if c.get("RRULE") is not None:
            d["rrule"] = c.get("RRULE").to_ical().decode()
        if c.get("X-E2E-COLOR") is not None:
            d["x-e2e-color"] = str(c.get("X-E2E-COLOR"))
        out.append(d)
    return out


def utc(v):
    """A DTSTART or RECURRENCE-ID value in UTC (20261007T160000Z), or the
    date of an all-day one (20261007)."""
    if isinstance(v, datetime):
        if v.tzinfo is None:
            return v.strftime("%Y%m%dT%H%M%S")
        return v.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return v.strftime("%Y%m%d")


def parse_utc(s):
    return datetime.strptime(s, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)


def events_calendar(principal, comp="VEVENT"):
    """The principal's calendar that takes comp."""
    for cal in principal.calendars():
        if comp in cal.get_supported_components():
            return cal
    raise LookupError("no calendar of the principal takes " + comp)


def main():
    url, user, password = sys.argv[1:4]
    client = caldav.DAVClient(url, username=user, password=password)
    principal = None
    for line in sys.stdin:
        step, *args = json.loads(line)
        try:
            if principal is None:
                principal = client.principal()
            out = run(principal, step, args)
        except Exception:
            out = {"error": traceback.format_exc()}
        print(json.dumps(out, sort_keys=True), flush=True)


def run(principal, step, args):
    """Does one step and returns what it found."""
    out = {}
    if step == "discover":
        out["principal"] = str(principal.url)
        out["calendars"] = [
            {"url": str(c.url), "name": c.get_display_name(), "components": c.get_supported_components()}
            for c in principal.calendars()
        ]
    elif step == "create":
        cal = events_calendar(principal)
        out["created"] = {name: str(cal.save_event(ical).url) for name, ical in EVENTS.items()}
    elif step == "search":
        cal = events_calendar(principal)
        start, end = parse_utc(args[0]), parse_utc(args[1])
        plain = cal.date_search(start=start, end=end, expand=False)
        out["plain"] = [{"url": str(o.url), "components": components(o)} for o in plain]
        # What the server answered to an expand request, before
        # python3-caldav would expand on its own a series sent whole.
        xml, comp_class = cal.build_search_xml_query(start=start, end=end, expand=True, event=True)
        _, raw = cal._request_report_build_resultlist(xml, comp_class)
        out["expanded_raw"] = [{"url": str(o.url), "components": components(o)} for o in raw]
        expanded = cal.search(start=start, end=end, event=True, expand=True)
        out["expanded"] = [{"url": str(o.url), "components": components(o)} for o in expanded]
    elif step == "textsearch":
        cal = events_calendar(principal)
        # A calendar-query with a prop-filter text-match (RFC 4791
        # §9.7.5); python3-caldav hands on what the server answers.
        out["found"] = sorted(str(o.url) for o in cal.search(summary=args[0], event=True))
    elif step == "override":
        cal = events_calendar(principal)
        obj = cal.event_by_url(args[0])
        obj.load()
        master = [c for c in obj.icalendar_instance.walk("VEVENT") if c.get("RECURRENCE-ID") is None][0]
        rid, start, summary = parse_utc(args[1]), parse_utc(args[2]), args[3]
        length = master.decoded("DTEND") - master.decoded("DTSTART")
        ov = icalendar.Event()
        ov.add("UID", master["UID"])
        ov.add("DTSTAMP", datetime(2026, 10, 2, 8, 0, tzinfo=timezone.utc))
        ov.add("RECURRENCE-ID", rid)
        ov.add("DTSTART", start)
        ov.add("DTEND", start + length)
        ov.add("SUMMARY", summary)
        obj.icalendar_instance.add_component(ov)
        obj.save()
        obj.load()
        out["components"] = components(obj)
    elif step == "get":
        cal = events_calendar(principal)
        obj = cal.event_by_url(args[0])
        obj.load()
        out["components"] = components(obj)
    elif step == "delete":
        cal = events_calendar(principal)
        cal.event_by_url(args[0]).delete()
        try:
            cal.event_by_url(args[0]).load()
            out["gone"] = False
        except error.NotFoundError:
            out["gone"] = True
    elif step == "freebusy":
        cal = events_calendar(principal)
        fb = cal.freebusy_request(parse_utc(args[0]), parse_utc(args[1]))
        # Read by hand: the python3-icalendar of Debian 12 cannot parse a
        # FREEBUSY line with several periods, which RFC 5545 §3.8.2.6
        # allows.
        busy = []
        unfolded = fb.data.replace("\r\n ", "").replace("\n ", "")
        for line in unfolded.splitlines():
            name, _, value = line.partition(":")
            if name.split(";")[0].upper() != "FREEBUSY":
                continue
            for period in value.split(","):
                start, _, end = period.partition("/")
                begin = parse_utc(start)
                if end.startswith(("P", "+P")):
                    finish = begin + icalendar.vDuration.from_ical(end)
                else:
                    finish = parse_utc(end)
                busy.append(utc(begin) + "/" + utc(finish))
        out["busy"] = sorted(busy)
    elif step == "todo":
        cal = events_calendar(principal, "VTODO")
        out["created"] = {"todo": str(cal.save_todo(TODO).url)}
        # python3-caldav's pending tasks: three calendar-queries with
        # prop-filters on STATUS and COMPLETED, merged.
        out["pending"] = [{"url": str(o.url), "components": components(o)} for o in cal.todos()]
    elif step == "complete":
        cal = events_calendar(principal, "VTODO")
        todo = caldav.Todo(cal.client, url=args[0], parent=cal)
        todo.load()
        todo.complete(completion_timestamp=datetime(2026, 10, 5, 8, 30, tzinfo=timezone.utc))
        out["pending"] = [{"url": str(o.url), "components": components(o)} for o in cal.todos()]
        out["all"] = [{"url": str(o.url), "components": components(o)} for o in cal.todos(include_completed=True)]
    elif step == "sync":
        cal = events_calendar(principal)
        token = args[0] if args else None
        got = cal.objects_by_sync_token(sync_token=token, load_objects=False)
        out["token"] = got.sync_token
        out["changed"], out["gone"] = [], []
        for o in got:
            try:
                o.load()
                out["changed"].append({"url": str(o.url), "components": components(o)})
            except error.NotFoundError:
                out["gone"].append(str(o.url))
    else:
        raise ValueError("unknown step " + step)
    return out


if __name__ == "__main__":
    main()
