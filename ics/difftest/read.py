"""Reads each exported calendar of a manifest with python3-icalendar and
python3-recurring-ical-events and prints every occurrence starting in the
manifest's window, as JSON lines {"case": …, "occ": [[start, end, title], …]}.
Timed starts and ends are UTC RFC 3339 texts; all-day ones are "D:" and the
first and last day (inclusive)."""
import datetime
import json
import sys

import icalendar
import recurring_ical_events

UTC = datetime.timezone.utc


def form(v, last=False):
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=UTC)
        return v.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if last:
        v = v - datetime.timedelta(days=1)
    return "D:" + v.isoformat()


def main():
    manifest = json.load(open(sys.argv[1]))
    for c in manifest["cases"]:
        try:
            cal = icalendar.Calendar.from_ical(open(c["file"], "rb").read())
            lo = datetime.datetime.fromisoformat(manifest["from"].replace("Z", "+00:00"))
            hi = datetime.datetime.fromisoformat(manifest["to"].replace("Z", "+00:00"))
            # RFC 5545 §3.8.4.4: a RECURRENCE-ID replaces the occurrence it
            # names, an RDATE's too; recurring-ical-events 2.0.1 keeps an
            # RDATE's occurrence beside its override, so it is dropped here.
            replaced = set()
            for e in cal.walk("VEVENT"):
                if "RECURRENCE-ID" in e:
                    replaced.add((str(e["UID"]), form(e["RECURRENCE-ID"].dt)))
            occ = []
            for e in recurring_ical_events.of(cal).between(lo - datetime.timedelta(days=3), hi + datetime.timedelta(days=3)):
                if str(e.get("STATUS", "")).upper() == "CANCELLED":
                    continue
                s = e["DTSTART"].dt
                if "RECURRENCE-ID" not in e and (str(e["UID"]), form(s)) in replaced:
                    continue
                if "DTEND" in e:
                    en = e["DTEND"].dt
                elif "DURATION" in e:
                    en = s + e["DURATION"].dt
                else:
                    en = s
                occ.append([form(s), form(en, last=True), str(e.get("SUMMARY", ""))])
            print(json.dumps({"case": c["name"], "occ": occ}))
        except Exception as ex:  # one unreadable file is that case's failure
            print(json.dumps({"case": c["name"], "error": repr(ex)}))


main()
