-- Fewer pages written per task:
--
-- The tasks' text index keeps no per-row token counts (FTS5 columnsize=0):
-- they serve only ranking (bm25), which the store never asks for, yet
-- every task written rewrote a page of tasks_fts_docsize. The index is
-- made again from search_fold ('rebuild'); the triggers that keep it stay
-- as they are.
--
-- tasks_done_order holds done tasks only: list_tasks' done page is its one
-- reader and asks for status = 'done' in its text, so an open task (every
-- task add_task adds) has no entry in it to write.

-- +goose Up
DROP TABLE tasks_fts;
CREATE VIRTUAL TABLE tasks_fts USING fts5(search_fold, content='tasks', content_rowid='id', tokenize='trigram remove_diacritics 1', columnsize=0);
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');
DROP INDEX tasks_done_order;
CREATE INDEX tasks_done_order ON tasks(owner_id, list_at, id) WHERE deleted_at IS NULL AND status = 'done';

-- +goose Down
DROP INDEX tasks_done_order;
CREATE INDEX tasks_done_order ON tasks(owner_id, status, list_at, id) WHERE deleted_at IS NULL;
DROP TABLE tasks_fts;
CREATE VIRTUAL TABLE tasks_fts USING fts5(search_fold, content='tasks', content_rowid='id', tokenize='trigram remove_diacritics 1');
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');
