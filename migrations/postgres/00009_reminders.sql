-- Reminders (package remind): failures counted apart from sends, the
-- wall-clock time of a fire set by a date-only start or due, the zone a
-- task's remind_at was written in, and one-time reminders. The PostgreSQL
-- form of ../sqlite/00009_reminders.sql, whose comments say what each
-- column keeps.

-- +goose Up
ALTER TABLE reminder_deliveries ADD COLUMN failures BIGINT NOT NULL DEFAULT 0;

ALTER TABLE reminder_deliveries ADD COLUMN local_fire TEXT;
CREATE INDEX reminder_deliveries_local ON reminder_deliveries(owner_id, item, occurrence, trigger, local_fire)
    WHERE local_fire IS NOT NULL;

ALTER TABLE tasks ADD COLUMN remind_zone TEXT;

ALTER TABLE events ADD COLUMN remind_once TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN remind_once TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE tasks DROP COLUMN remind_once;
ALTER TABLE events DROP COLUMN remind_once;
ALTER TABLE tasks DROP COLUMN remind_zone;
DROP INDEX reminder_deliveries_local;
ALTER TABLE reminder_deliveries DROP COLUMN local_fire;
ALTER TABLE reminder_deliveries DROP COLUMN failures;
