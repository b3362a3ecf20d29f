-- A person's own row joins the change journal (design §6: every change is
-- journaled and undo restores it), so a zone change is undone like any
-- other change. The PostgreSQL form of ../sqlite/00008_people_journal.sql.
--
-- people gets the columns of package store's journaled tables: owner_id is
-- the row's own id (a person owns exactly their own row, so the store's
-- owner filter keeps one person from reading or changing another's),
-- updated_at, and deleted_at, which always stays NULL: a person is removed
-- for good with everything of theirs (store.DeletePerson), never
-- soft-deleted, so Purge never finds one to remove.
--
-- owner_id has no REFERENCES clause and is not NOT NULL, as in SQLite; the
-- triggers below keep it equal to id whatever code inserts or updates a
-- person, and raise with the same texts as SQLite's, as a constraint error
-- (SQLSTATE 23000; SQLite's RAISE(ABORT) is a constraint error too).

-- +goose Up
ALTER TABLE people ADD COLUMN owner_id BIGINT;
ALTER TABLE people ADD COLUMN updated_at TEXT;
ALTER TABLE people ADD COLUMN deleted_at TEXT;
UPDATE people SET owner_id = id,
    updated_at = to_char(to_timestamp(created) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');

-- A new person owns their row: AddPerson leaves owner_id out, and the id
-- (its identity default) is already in NEW when a BEFORE trigger runs. A
-- person is never made through a journaled Write: Tx.Insert would give the
-- new row its caller as owner (and undo would soft-delete a person), so an
-- owner_id other than the row's id is refused.
-- +goose StatementBegin
CREATE FUNCTION people_insert_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.owner_id IS NULL THEN
        NEW.owner_id := NEW.id;
    ELSIF NEW.owner_id IS DISTINCT FROM NEW.id THEN
        RAISE EXCEPTION 'a person owns only their own row; add people with store.AddPerson'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER people_insert_owner BEFORE INSERT ON people
    FOR EACH ROW EXECUTE FUNCTION people_insert_owner();

-- owner_id stays equal to id; and Tx.Delete on people would hide a person
-- while keeping everything of theirs, so deleted_at is never set: removal
-- is DeletePerson's, for good.
-- +goose StatementBegin
CREATE FUNCTION people_update_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.owner_id IS DISTINCT FROM NEW.id THEN
        RAISE EXCEPTION 'a person owns only their own row; owner_id must stay equal to id'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.deleted_at IS NOT NULL THEN
        RAISE EXCEPTION 'a person is deleted for good with store.DeletePerson, never soft-deleted'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER people_update_owner BEFORE UPDATE ON people
    FOR EACH ROW EXECUTE FUNCTION people_update_owner();

-- +goose Down
DROP TRIGGER people_update_owner ON people;
DROP FUNCTION people_update_owner();
DROP TRIGGER people_insert_owner ON people;
DROP FUNCTION people_insert_owner();
ALTER TABLE people DROP COLUMN deleted_at;
ALTER TABLE people DROP COLUMN updated_at;
ALTER TABLE people DROP COLUMN owner_id;
