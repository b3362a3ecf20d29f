// Reads each exported calendar of a manifest with ical.js and prints every
// occurrence starting in the manifest's window (widened by three days), as
// JSON lines {"case": …, "occ": [[start, end, title], …]}, in the forms
// read.py uses.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.ICALJS_DIR + '/');
const ICAL = require('ical.js');

function form(t, last) {
  if (t.isDate) {
    const d = t.clone();
    if (last) d.adjust(-1, 0, 0, 0);
    const p = (n) => String(n).padStart(2, '0');
    return 'D:' + d.year + '-' + p(d.month) + '-' + p(d.day);
  }
  return t.toJSDate().toISOString().replace('.000Z', 'Z');
}

const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const lo = new Date(Date.parse(manifest.from) - 3 * 864e5);
const hi = new Date(Date.parse(manifest.to) + 3 * 864e5);
for (const c of manifest.cases) {
  try {
    const comp = new ICAL.Component(ICAL.parse(fs.readFileSync(c.file, 'utf8')));
    // Each file's zones alone: a TZID never finds another file's VTIMEZONE.
    ICAL.TimezoneService.reset();
    for (const vtz of comp.getAllSubcomponents('vtimezone')) {
      const z = new ICAL.Timezone(vtz);
      ICAL.TimezoneService.register(z, z.tzid);
    }
    const masters = new Map();
    const overrides = [];
    for (const ve of comp.getAllSubcomponents('vevent')) {
      if (ve.hasProperty('recurrence-id')) overrides.push(ve);
      else masters.set(ve.getFirstPropertyValue('uid'), new ICAL.Event(ve));
    }
    for (const ov of overrides) {
      const m = masters.get(ov.getFirstPropertyValue('uid'));
      if (m) m.relateException(new ICAL.Event(ov));
    }
    const occ = [];
    for (const ev of masters.values()) {
      const it = ev.iterator();
      for (let n = 0, next; (next = it.next()) && n < 100000; n++) {
        if (next.toJSDate() >= hi) break;
        const det = ev.getOccurrenceDetails(next);
        if (det.startDate.toJSDate() < lo) continue;
        const status = det.item.component.getFirstPropertyValue('status');
        if (status && String(status).toUpperCase() === 'CANCELLED') continue;
        // ical.js adds a master's length on the wall clock and reads an
        // end in a repeated hour as the later time; RFC 5545 §3.3.6 says
        // hours and minutes are exact, so a master's occurrence ends its
        // exact length after its start. An override's own end is kept.
        let end = form(det.endDate, true);
        if (det.item === ev && !det.startDate.isDate) {
          end = new Date(det.startDate.toJSDate().getTime() + ev.duration.toSeconds() * 1000).toISOString().replace('.000Z', 'Z');
        }
        occ.push([form(det.startDate, false), end, det.item.summary || '']);
      }
    }
    console.log(JSON.stringify({ case: c.name, occ }));
  } catch (ex) {
    console.log(JSON.stringify({ case: c.name, error: String(ex) }));
  }
}
