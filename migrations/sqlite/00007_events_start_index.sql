-- add_event's duplicate check (design §6) looks for a live event of the
-- person with the same start instant made in the last ten minutes; by
-- created_at alone it read every event of a bulk import or a busy minute.
-- start_at narrows it to the events starting then.

-- +goose Up
CREATE INDEX events_owner_start ON events(owner_id, start_at, created_at) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX events_owner_start;
