-- The tasks' text index keeps no per-row token counts (FTS5 columnsize=0):
-- they serve only ranking (bm25), which the store never asks for, yet
-- every task written rewrote a page of tasks_fts_docsize. The index is
-- made again from search_fold ('rebuild'); the triggers that keep it stay
-- as they are.

-- +goose Up
DROP TABLE tasks_fts;
CREATE VIRTUAL TABLE tasks_fts USING fts5(search_fold, content='tasks', content_rowid='id', tokenize='trigram remove_diacritics 1', columnsize=0);
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');

-- +goose Down
DROP TABLE tasks_fts;
CREATE VIRTUAL TABLE tasks_fts USING fts5(search_fold, content='tasks', content_rowid='id', tokenize='trigram remove_diacritics 1');
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');
