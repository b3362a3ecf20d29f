-- Reminders (package remind): the range of instants each task and event
-- can fire in, so the reminders job's first pass on a database (and its
-- rebuild after a zone change) reads only the items that can fire soon,
-- not every item with reminders.
--
-- +goose Up

-- remind_from and remind_until (INTEGER Unix seconds) bound every fire of
-- the item's reminders, in any zone the person may take (a date-only due
-- or an all-day event floats with it, so those are widened by more than a
-- day): no fire is before remind_from or after remind_until. remind_until
-- is NULL for a series without end. Both are 0 for an item that has no
-- reminder that can fire. Both NULL means not worked out yet: rows written
-- before this version, which the store works out when it opens the
-- database (store.Migrate), and which the job reads as it reads any item
-- until then. Every writer of the store sets them (store/remind_bounds.go).
ALTER TABLE tasks ADD COLUMN remind_from INTEGER;
ALTER TABLE tasks ADD COLUMN remind_until INTEGER;
ALTER TABLE events ADD COLUMN remind_from INTEGER;
ALTER TABLE events ADD COLUMN remind_until INTEGER;

-- What a rebuild reads: items whose first fire is in a window (every item
-- whose fires span at most two days is found so), items whose fires span
-- more (a series, a reminder long before its due) that have not all
-- passed, and series without end.
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

-- horizon (Unix seconds) is how far ahead remind_next is complete: every
-- item with a fire at or before it is in remind_next (or in the journal
-- since change_mark). NULL, as every row written before this version, means
-- remind_next holds every item.
ALTER TABLE remind_state ADD COLUMN horizon INTEGER;

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
