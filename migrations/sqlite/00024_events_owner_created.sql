-- events_owner_created (migration 00003) served add_event's duplicate
-- check until events_owner_start (migration 00007) took it over; no read
-- takes it since, and each event written kept an entry in it (an import
-- of 50,000 events wrote 187 pages of it).

-- +goose Up
DROP INDEX events_owner_created;

-- +goose Down
CREATE INDEX events_owner_created ON events(owner_id, created_at);
