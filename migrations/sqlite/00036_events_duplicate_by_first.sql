-- add_event's duplicate check now finds its candidates through
-- events_owner_range (owner_id, first_at, last_at): a call sent twice
-- stores the same first occurrence (first_at) as well as the same DTSTART
-- (start_at), so the check asks for both (store's EventsStartingAt).
-- events_owner_start, which served it alone, goes: every event written
-- kept an entry in it at a random place, and an import of 50,000 events
-- spent about an eighth of its time there (ics's BenchmarkScaleImport,
-- 33-35k events/s with it, 39-41k without).

-- +goose Up
DROP INDEX events_owner_start;

-- +goose Down
CREATE INDEX events_owner_start ON events(owner_id, start_at, created_at) WHERE deleted_at IS NULL;
