-- Reminders (package remind): the range of instants each task and event
-- can fire in. The PostgreSQL form of ../sqlite/00014_remind_bounds.sql,
-- whose comments say what each column keeps.

-- +goose Up
ALTER TABLE tasks ADD COLUMN remind_from BIGINT;
ALTER TABLE tasks ADD COLUMN remind_until BIGINT;
ALTER TABLE events ADD COLUMN remind_from BIGINT;
ALTER TABLE events ADD COLUMN remind_until BIGINT;

CREATE INDEX tasks_remind_from ON tasks(owner_id, remind_from)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_from IS NOT NULL;
CREATE INDEX tasks_remind_wide ON tasks(owner_id, remind_until)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_until - remind_from > 172800;
CREATE INDEX tasks_remind_open ON tasks(owner_id, remind_from)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_until IS NULL;
CREATE INDEX tasks_remind_unknown ON tasks(id) WHERE remind_from IS NULL;
CREATE INDEX events_remind_from ON events(owner_id, remind_from)
    WHERE deleted_at IS NULL AND remind_from IS NOT NULL;
CREATE INDEX events_remind_wide ON events(owner_id, remind_until)
    WHERE deleted_at IS NULL AND remind_until - remind_from > 172800;
CREATE INDEX events_remind_open ON events(owner_id, remind_from)
    WHERE deleted_at IS NULL AND remind_until IS NULL;
CREATE INDEX events_remind_unknown ON events(id) WHERE remind_from IS NULL;

ALTER TABLE remind_state ADD COLUMN horizon BIGINT;

-- +goose Down
ALTER TABLE remind_state DROP COLUMN horizon;
DROP INDEX events_remind_unknown;
DROP INDEX events_remind_open;
DROP INDEX events_remind_wide;
DROP INDEX events_remind_from;
DROP INDEX tasks_remind_unknown;
DROP INDEX tasks_remind_open;
DROP INDEX tasks_remind_wide;
DROP INDEX tasks_remind_from;
ALTER TABLE events DROP COLUMN remind_until;
ALTER TABLE events DROP COLUMN remind_from;
ALTER TABLE tasks DROP COLUMN remind_until;
ALTER TABLE tasks DROP COLUMN remind_from;
