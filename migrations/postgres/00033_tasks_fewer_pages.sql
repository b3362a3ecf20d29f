-- The PostgreSQL form of ../sqlite/00033_tasks_fewer_pages.sql:
-- tasks_done_order holds done tasks only (list_tasks' done page, its one
-- reader, asks for status = 'done' in its text), so adding an open task
-- writes one index entry fewer. SQLite's FTS5 text index, which the same
-- migration makes again without per-row token counts, has no counterpart
-- here: tasks_search_trgm keeps none.

-- +goose Up
DROP INDEX tasks_done_order;
CREATE INDEX tasks_done_order ON tasks(owner_id, list_at, id) WHERE deleted_at IS NULL AND status = 'done';

-- +goose Down
DROP INDEX tasks_done_order;
CREATE INDEX tasks_done_order ON tasks(owner_id, status, list_at, id) WHERE deleted_at IS NULL;
