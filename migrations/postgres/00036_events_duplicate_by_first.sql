-- add_event's duplicate check reads events_owner_range; events_owner_start
-- goes. The PostgreSQL form of ../sqlite/00036_events_duplicate_by_first.sql.

-- +goose Up
DROP INDEX events_owner_start;

-- +goose Down
CREATE INDEX events_owner_start ON events(owner_id, start_at, created_at) WHERE deleted_at IS NULL;
