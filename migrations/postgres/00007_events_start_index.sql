-- add_event's duplicate check (design §6) looks for a live event of the
-- person with the same start instant made in the last ten minutes. The
-- PostgreSQL form of ../sqlite/00007_events_start_index.sql.

-- +goose Up
CREATE INDEX events_owner_start ON events(owner_id, start_at, created_at) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX events_owner_start;
