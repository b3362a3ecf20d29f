-- A task without tags (tags_fold '[]', most of them) fires no trigger to
-- keep task_tags: json_each of '[]' gives no row, so the WHEN clause
-- changes nothing but the work of adding such a task.

-- +goose Up
DROP TRIGGER task_tags_insert;
-- +goose StatementBegin
CREATE TRIGGER task_tags_insert AFTER INSERT ON tasks WHEN NEW.tags_fold <> '[]' BEGIN
    INSERT OR IGNORE INTO task_tags (owner_id, tag, task_id)
        SELECT NEW.owner_id, value, NEW.id FROM json_each(NEW.tags_fold);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER task_tags_insert;
-- +goose StatementBegin
CREATE TRIGGER task_tags_insert AFTER INSERT ON tasks BEGIN
    INSERT OR IGNORE INTO task_tags (owner_id, tag, task_id)
        SELECT NEW.owner_id, value, NEW.id FROM json_each(NEW.tags_fold);
END;
-- +goose StatementEnd
