-- event_overrides gets an index led by event_id. Deleting an event
-- (purge) looks up its overrides through the foreign key
-- event_overrides.event_id, which no index led, so each deleted event
-- read the whole table; and an import reads the overrides of the events
-- its file names by event_id (store.Tx.ofKeys), which on PostgreSQL
-- needs an index the planner cannot trade for the person's whole range.

-- +goose Up
CREATE INDEX event_overrides_event ON event_overrides(event_id);

-- +goose Down
DROP INDEX event_overrides_event;
