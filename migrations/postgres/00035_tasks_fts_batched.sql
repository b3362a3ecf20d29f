-- The PostgreSQL form of ../sqlite/00035_tasks_fts_batched.sql: SQLite's
-- FTS5 text index now takes new tasks' text in batches; tasks_search_trgm
-- (a GIN index, whose own pending list does the same) needs nothing.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
