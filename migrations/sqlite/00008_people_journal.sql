-- A person's own row joins the change journal (design §6: every change is
-- journaled and undo restores it), so a zone change is undone like any
-- other change instead of being skipped over by undo.
--
-- people gets the columns of package store's journaled tables: owner_id is
-- the row's own id (a person owns exactly their own row, so the store's
-- owner filter keeps one person from reading or changing another's),
-- updated_at, and deleted_at, which always stays NULL: a person is removed
-- for good with everything of theirs (store.DeletePerson), never
-- soft-deleted, so Purge never finds one to remove.
--
-- owner_id has no REFERENCES clause: it names the row itself, whose
-- deletion removes it anyway. It cannot be NOT NULL (ALTER TABLE would need
-- a default), so the triggers below keep it equal to id whatever code
-- inserts or updates a person.

-- +goose Up
ALTER TABLE people ADD COLUMN owner_id INTEGER;
ALTER TABLE people ADD COLUMN updated_at TEXT;
ALTER TABLE people ADD COLUMN deleted_at TEXT;
UPDATE people SET owner_id = id, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', created, 'unixepoch');

-- A new person owns their row. AddPerson leaves owner_id out, since the id
-- is only known once the row exists.
-- +goose StatementBegin
CREATE TRIGGER people_own_row AFTER INSERT ON people WHEN NEW.owner_id IS NULL BEGIN
    UPDATE people SET owner_id = NEW.id WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- A person is never made through a journaled Write: Tx.Insert would give
-- the new row its caller as owner (and undo would soft-delete a person).
-- In a BEFORE INSERT trigger an id SQLite has yet to choose reads as -1,
-- so only an explicit, matching id passes.
-- +goose StatementBegin
CREATE TRIGGER people_insert_owner BEFORE INSERT ON people
WHEN NEW.owner_id IS NOT NULL AND NEW.owner_id IS NOT NEW.id BEGIN
    SELECT RAISE(ABORT, 'a person owns only their own row; add people with store.AddPerson');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER people_update_owner BEFORE UPDATE OF owner_id ON people
WHEN NEW.owner_id IS NOT NEW.id BEGIN
    SELECT RAISE(ABORT, 'a person owns only their own row; owner_id must stay equal to id');
END;
-- +goose StatementEnd

-- Tx.Delete on people would hide a person while keeping everything of
-- theirs; removal is DeletePerson's, for good.
-- +goose StatementBegin
CREATE TRIGGER people_no_soft_delete BEFORE UPDATE OF deleted_at ON people
WHEN NEW.deleted_at IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'a person is deleted for good with store.DeletePerson, never soft-deleted');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER people_no_soft_delete;
DROP TRIGGER people_update_owner;
DROP TRIGGER people_insert_owner;
DROP TRIGGER people_own_row;
ALTER TABLE people DROP COLUMN deleted_at;
ALTER TABLE people DROP COLUMN updated_at;
ALTER TABLE people DROP COLUMN owner_id;
