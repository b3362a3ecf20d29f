-- The PostgreSQL form of ../sqlite/00030_task_tags_when.sql: a task
-- without tags (tags_fold '[]') calls no trigger function to keep
-- task_tags, which would find no tag in it.

-- +goose Up
DROP TRIGGER task_tags_insert ON tasks;
CREATE TRIGGER task_tags_insert AFTER INSERT ON tasks FOR EACH ROW
    WHEN (NEW.tags_fold <> '[]') EXECUTE FUNCTION task_tags_keep();

-- +goose Down
DROP TRIGGER task_tags_insert ON tasks;
CREATE TRIGGER task_tags_insert AFTER INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION task_tags_keep();
