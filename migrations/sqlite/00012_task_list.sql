-- list_tasks in SQL (store/tasklist.go): the order, the tag filter and the
-- text search read indexes instead of every task of the person.
--
-- Derived columns, written by the store with every task it writes (and by
-- a pass at start-up for rows older than this migration, search_fold NULL
-- until then); they are left out of the journal's row images, and undo
-- computes them again for a row it puts back:
--   list_day    the person's civil day of the due as yyyymmdd (a timed due
--               read in the owner's zone), 99999999 for an open task with
--               no due; 0 for a done task.
--   list_at     Unix seconds: the due's start (a floating day starts at
--               midnight in the owner's zone); for a done task its
--               completed_at.
--   list_zone   the IANA zone list_day and list_at of an open task were
--               worked out in; '' for a done task. A zone change of the
--               person works them out again in the same transaction.
--   search_fold title and notes as search compares them (item.FoldText:
--               invisible characters dropped, lower case, accents
--               removed), separated by U+001F.
--   tags_fold   a JSON array of the tags as task.HasTag compares them.
--
-- Open tasks list by (list_day, priority, list_at, id), done ones by
-- (list_at, id) descending: tasks_open_order and tasks_done_order.

-- +goose Up
ALTER TABLE tasks ADD COLUMN list_day INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN list_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN list_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN search_fold TEXT;
ALTER TABLE tasks ADD COLUMN tags_fold TEXT NOT NULL DEFAULT '[]';
CREATE INDEX tasks_open_order ON tasks(owner_id, status, list_day, priority, list_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tasks_done_order ON tasks(owner_id, status, list_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tasks_list_zone ON tasks(owner_id, status, list_zone) WHERE deleted_at IS NULL;
CREATE INDEX tasks_underived ON tasks(owner_id) WHERE search_fold IS NULL;

-- One row per tag of a task, kept by triggers from tags_fold.
CREATE TABLE task_tags (
    owner_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    tag      TEXT    NOT NULL,
    task_id  INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    PRIMARY KEY (owner_id, tag, task_id)
) WITHOUT ROWID;
CREATE INDEX task_tags_task ON task_tags(task_id);

-- +goose StatementBegin
CREATE TRIGGER task_tags_insert AFTER INSERT ON tasks BEGIN
    INSERT OR IGNORE INTO task_tags (owner_id, tag, task_id)
        SELECT NEW.owner_id, value, NEW.id FROM json_each(NEW.tags_fold);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER task_tags_update AFTER UPDATE OF tags_fold ON tasks BEGIN
    DELETE FROM task_tags WHERE task_id = OLD.id;
    INSERT OR IGNORE INTO task_tags (owner_id, tag, task_id)
        SELECT NEW.owner_id, value, NEW.id FROM json_each(NEW.tags_fold);
END;
-- +goose StatementEnd

-- The text search: trigram FTS5 over search_fold (an external-content
-- index: the text stays in tasks). A query of three characters or more
-- reads it; the store checks each hit with instr, so matching stays
-- substring containment.
CREATE VIRTUAL TABLE tasks_fts USING fts5(search_fold, content='tasks', content_rowid='id', tokenize='trigram remove_diacritics 1');
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

-- +goose Down
DROP TRIGGER tasks_fts_update;
DROP TRIGGER tasks_fts_delete;
DROP TRIGGER tasks_fts_insert;
DROP TABLE tasks_fts;
DROP TRIGGER task_tags_update;
DROP TRIGGER task_tags_insert;
DROP TABLE task_tags;
DROP INDEX tasks_underived;
DROP INDEX tasks_list_zone;
DROP INDEX tasks_done_order;
DROP INDEX tasks_open_order;
ALTER TABLE tasks DROP COLUMN tags_fold;
ALTER TABLE tasks DROP COLUMN search_fold;
ALTER TABLE tasks DROP COLUMN list_zone;
ALTER TABLE tasks DROP COLUMN list_at;
ALTER TABLE tasks DROP COLUMN list_day;
