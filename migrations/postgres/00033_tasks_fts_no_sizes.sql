-- ../sqlite/00033_tasks_fts_no_sizes.sql makes SQLite's FTS5 text index
-- of tasks again without per-row token counts. PostgreSQL's text index
-- (tasks_search_trgm, a trigram GIN index) keeps none: nothing to change.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
