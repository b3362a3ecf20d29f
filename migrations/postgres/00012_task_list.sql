-- list_tasks in SQL: the PostgreSQL form of ../sqlite/00012_task_list.sql,
-- whose comments say what each derived column keeps. The text search
-- index is pg_trgm's GIN index over search_fold; where the server refuses
-- CREATE EXTENSION (a role without the right, an image without contrib),
-- the migration goes on without it and a query reads the person's tasks
-- in list order instead (docs/data.md).

-- +goose Up
ALTER TABLE tasks ADD COLUMN list_day BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN list_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN list_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN search_fold TEXT;
ALTER TABLE tasks ADD COLUMN tags_fold TEXT NOT NULL DEFAULT '[]';
CREATE INDEX tasks_open_order ON tasks(owner_id, status, list_day, priority, list_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tasks_done_order ON tasks(owner_id, status, list_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tasks_list_zone ON tasks(owner_id, status, list_zone) WHERE deleted_at IS NULL;
CREATE INDEX tasks_underived ON tasks(owner_id) WHERE search_fold IS NULL;

CREATE TABLE task_tags (
    owner_id BIGINT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    tag      TEXT   NOT NULL,
    task_id  BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    PRIMARY KEY (owner_id, tag, task_id)
);
CREATE INDEX task_tags_task ON task_tags(task_id);

-- +goose StatementBegin
CREATE FUNCTION task_tags_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.tags_fold IS NOT DISTINCT FROM OLD.tags_fold THEN
            RETURN NULL;
        END IF;
        DELETE FROM task_tags WHERE task_id = OLD.id;
    END IF;
    INSERT INTO task_tags (owner_id, tag, task_id)
        SELECT NEW.owner_id, t, NEW.id FROM jsonb_array_elements_text(NEW.tags_fold::jsonb) AS t
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER task_tags_insert AFTER INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION task_tags_keep();
CREATE TRIGGER task_tags_update AFTER UPDATE OF tags_fold ON tasks FOR EACH ROW EXECUTE FUNCTION task_tags_keep();

-- +goose StatementBegin
DO $$
BEGIN
    BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'pg_trgm is not available (%); list_tasks searches without a text index', SQLERRM;
    END;
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        EXECUTE 'CREATE INDEX tasks_search_trgm ON tasks USING gin (search_fold gin_trgm_ops)';
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX IF EXISTS tasks_search_trgm;
DROP EXTENSION IF EXISTS pg_trgm;
DROP TRIGGER task_tags_update ON tasks;
DROP TRIGGER task_tags_insert ON tasks;
DROP FUNCTION task_tags_keep();
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
