-- Reminders (package remind): failures counted apart from sends, the
-- wall-clock time of a fire set by a date-only start or due, the zone a
-- task's remind_at was written in, and one-time reminders.
--
-- +goose Up

-- failures counts the attempts that ended in a notifier's error; attempts
-- keeps counting every send started. A sender that stopped (killed, the
-- machine off) before recording a result is not a failure: its delivery
-- is taken up again, up to --max-late, and only failures use up retries.
--
-- lease_until (of 00004) is from now on read on the real clock every
-- process shares, never a clock fixed for tests or another machine's
-- idea of the time, and its holder renews it while the send runs.
ALTER TABLE reminder_deliveries ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;

-- local_fire is the fire's wall-clock time in the person's zone
-- ("2026-10-04T23:00") when a date-only start or due sets it (00:00 of that
-- day in the person's zone), else NULL. After the person's zone changes,
-- the same day's reminder has another instant, so another fire_at and
-- delivery id; a row with the same item, occurrence, trigger and
-- local_fire says it was already recorded for that day.
ALTER TABLE reminder_deliveries ADD COLUMN local_fire TEXT;
CREATE INDEX reminder_deliveries_local ON reminder_deliveries(owner_id, item, occurrence, trigger, local_fire)
    WHERE local_fire IS NOT NULL;

-- remind_zone is the IANA zone a task's remind_at moments were read in
-- when the task has no timed due (whose own zone they are read in). NULL,
-- as in rows written before, means the person's zone.
ALTER TABLE tasks ADD COLUMN remind_zone TEXT;

-- remind_once are one-time reminders: a JSON array of instants as RFC 3339
-- UTC texts (["2026-10-05T07:00:00Z"]), each fired once at its instant
-- however the item repeats. They come from absolute alarms read from a
-- calendar file (TRIGGER;VALUE=DATE-TIME, RFC 5545 §3.8.6.3), unlike
-- remind_at, which on a repeating item keeps its distance from the start
-- of each occurrence. The tools show them and leave them as they are.
ALTER TABLE events ADD COLUMN remind_once TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN remind_once TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE tasks DROP COLUMN remind_once;
ALTER TABLE events DROP COLUMN remind_once;
ALTER TABLE tasks DROP COLUMN remind_zone;
DROP INDEX reminder_deliveries_local;
ALTER TABLE reminder_deliveries DROP COLUMN local_fire;
ALTER TABLE reminder_deliveries DROP COLUMN failures;
