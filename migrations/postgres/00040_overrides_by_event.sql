-- The PostgreSQL form of ../sqlite/00040_overrides_by_event.sql: an index
-- led by event_id for the foreign key's lookups and an import's reads of
-- the overrides of the events it names.

-- +goose Up
CREATE INDEX event_overrides_event ON event_overrides(event_id);

-- +goose Down
DROP INDEX event_overrides_event;
