-- Adding a task writes its text to the trigram index later, in batches:
--
-- FTS5 writes each transaction's changes to tasks_fts as a new segment
-- when it commits, and a segment of one row costs as much to write (and
-- later to merge) as the rest of adding a task. A task written with a
-- search_fold is now marked in tasks_fts_pending instead; once 64 are
-- marked, the statement that marks the 64th writes them all to tasks_fts
-- and clears the marks (tasks_fts_fold). So fewer than 64 tasks are
-- pending after any statement, and the store's text search reads the
-- index's hits and the pending tasks that hold the text (store/tasklist.go).
--
-- A task is either in tasks_fts or marked pending, never both, and it is in
-- neither while its search_fold is NULL: FTS5 takes an external-content
-- 'delete' on trust, and one for a row it does not hold (with that text)
-- corrupts the index. So a changed search_fold deletes the old text from
-- tasks_fts only when the task is not pending, then marks the task
-- pending (or drops the mark when the text is now NULL); deleting a task
-- does the same without the mark. A search_fold set to the value it had
-- changes nothing, in tasks_fts or the marks. A 'rebuild' of tasks_fts
-- indexes every task, so it goes with DELETE FROM tasks_fts_pending.
--
-- Every task with a search_fold is in tasks_fts before this migration
-- (triggers of 00012, the rebuild of 00033), so none starts pending.
--
-- A batch is a segment of its own, and FTS5 merges segments once
-- 'automerge' of them lie at one level (4 by default). Folded in batches,
-- a bulk add (an import of 10,000 tasks in one transaction) left segments
-- whose merges were half done, and a text query at 10,000 tasks took
-- 2.2 times as long as with a segment per row. Merging at 2 keeps at most
-- one segment a level: that query costs 1.3 times what it did at 10,000
-- tasks, the same at 1,000 and less at 100,000, and the merges, which
-- happen only when a batch is written, make a 100,000-task bulk add 15 %
-- slower (BenchmarkScaleListTasksQuery in tools/tasks).

-- +goose Up
CREATE TABLE tasks_fts_pending (id INTEGER PRIMARY KEY);
INSERT INTO tasks_fts (tasks_fts, rank) VALUES ('automerge', 2);
DROP TRIGGER tasks_fts_insert;
DROP TRIGGER tasks_fts_delete;
DROP TRIGGER tasks_fts_update;
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks WHEN NEW.search_fold IS NOT NULL BEGIN
    INSERT OR IGNORE INTO tasks_fts_pending (id) VALUES (NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks WHEN OLD.search_fold IS NOT NULL BEGIN
    INSERT INTO tasks_fts (tasks_fts, rowid, search_fold) SELECT 'delete', OLD.id, OLD.search_fold
        WHERE NOT EXISTS (SELECT 1 FROM tasks_fts_pending WHERE id = OLD.id);
    DELETE FROM tasks_fts_pending WHERE id = OLD.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF search_fold ON tasks
WHEN OLD.search_fold IS NOT NEW.search_fold OR OLD.id <> NEW.id BEGIN
    INSERT INTO tasks_fts (tasks_fts, rowid, search_fold) SELECT 'delete', OLD.id, OLD.search_fold
        WHERE OLD.search_fold IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks_fts_pending WHERE id = OLD.id);
    DELETE FROM tasks_fts_pending WHERE id = OLD.id AND (NEW.search_fold IS NULL OR NEW.id <> OLD.id);
    INSERT OR IGNORE INTO tasks_fts_pending (id) SELECT NEW.id WHERE NEW.search_fold IS NOT NULL;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_fold AFTER INSERT ON tasks_fts_pending
WHEN (SELECT count(*) FROM tasks_fts_pending) >= 64 BEGIN
    INSERT INTO tasks_fts (rowid, search_fold)
        SELECT t.id, t.search_fold FROM tasks_fts_pending p CROSS JOIN tasks t ON t.id = p.id;
    DELETE FROM tasks_fts_pending;
END;
-- +goose StatementEnd

-- +goose Down
INSERT INTO tasks_fts (rowid, search_fold)
    SELECT t.id, t.search_fold FROM tasks_fts_pending p CROSS JOIN tasks t ON t.id = p.id;
DROP TRIGGER tasks_fts_fold;
DROP TRIGGER tasks_fts_update;
DROP TRIGGER tasks_fts_delete;
DROP TRIGGER tasks_fts_insert;
DROP TABLE tasks_fts_pending;
INSERT INTO tasks_fts (tasks_fts, rank) VALUES ('automerge', 4);
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks WHEN NEW.search_fold IS NOT NULL BEGIN
    INSERT INTO tasks_fts (rowid, search_fold) VALUES (NEW.id, NEW.search_fold);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks WHEN OLD.search_fold IS NOT NULL BEGIN
    INSERT INTO tasks_fts (tasks_fts, rowid, search_fold) VALUES ('delete', OLD.id, OLD.search_fold);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF search_fold ON tasks BEGIN
    INSERT INTO tasks_fts (tasks_fts, rowid, search_fold) SELECT 'delete', OLD.id, OLD.search_fold WHERE OLD.search_fold IS NOT NULL;
    INSERT INTO tasks_fts (rowid, search_fold) SELECT NEW.id, NEW.search_fold WHERE NEW.search_fold IS NOT NULL;
END;
-- +goose StatementEnd
