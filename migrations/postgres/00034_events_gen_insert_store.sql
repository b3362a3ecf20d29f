-- Nothing to do on PostgreSQL: its generation triggers run once per
-- statement (migration 00006), not once per row as SQLite's insert
-- triggers did, which ../sqlite/00034_events_gen_insert_store.sql drops.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
