-- The reminder index of items that can fire (migration 00014) leaves out
-- the items that never fire (remind_from and remind_until 0: no reminder,
-- or none that can fire): most tasks have none, and each of their writes
-- kept an entry no rebuild reads. The reads name remind_from <> 0 too, so
-- the planner can take these indexes (store/remind_bounds.go).

-- +goose Up
DROP INDEX tasks_remind_from;
CREATE INDEX tasks_remind_from ON tasks(owner_id, remind_from)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_from <> 0;
DROP INDEX events_remind_from;
CREATE INDEX events_remind_from ON events(owner_id, remind_from)
    WHERE deleted_at IS NULL AND remind_from <> 0;

-- +goose Down
DROP INDEX tasks_remind_from;
CREATE INDEX tasks_remind_from ON tasks(owner_id, remind_from)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_from IS NOT NULL;
DROP INDEX events_remind_from;
CREATE INDEX events_remind_from ON events(owner_id, remind_from)
    WHERE deleted_at IS NULL AND remind_from IS NOT NULL;
