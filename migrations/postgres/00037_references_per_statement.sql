-- Two references are checked once per statement, not once per row:
-- events.owner_id -> people(id) and change_rows.change_id -> changes(id),
-- both ON DELETE CASCADE as before. A FOREIGN KEY checks each new row
-- by itself (a lookup and a row lock per row); an import adds 50,000
-- events and 50,000 journal rows, and those checks were a third of the
-- server's time for its events and more than half for its journal rows.
-- SQLite keeps both foreign keys (../sqlite/00037_references_per_statement.sql):
-- its checks cost little.
--
-- What stands in for each foreign key, so the database keeps the same
-- promise:
--   * after a statement adds rows, one query finds every referenced row
--     among the statement's new rows (a transition table) and locks it as
--     a foreign key's check does (FOR KEY SHARE): a missing one fails the
--     statement with SQLSTATE 23503, as the foreign key did, and a person
--     or change being deleted meanwhile waits for this transaction, then
--     deletes the new rows with the rest;
--   * a row whose reference changes is checked the same way, one row at a
--     time (the store never changes either column);
--   * deleting people or changes deletes what referenced them, once per
--     statement;
--   * changing the id of a referenced person or change is refused while
--     rows still reference it (the foreign keys' NO ACTION);
--   * the cascade of a delete that removed rows runs only at READ
--     COMMITTED, where each of its statements sees every row committed
--     before it (the store deletes people and changes so): at REPEATABLE
--     READ or SERIALIZABLE the transaction's snapshot may miss an event
--     added since, which a foreign key's cascade refused as a
--     serialization failure, so the delete is refused there with
--     SQLSTATE 40001 too;
--   * TRUNCATE of people or changes is refused while events or
--     change_rows hold rows (a foreign key refused it), as TRUNCATE fires
--     no delete trigger.
-- Each function looks tables up in the schema the migration ran in (SET
-- search_path FROM CURRENT), not in the caller's search_path, as the
-- foreign keys did; so does the generation trigger of migration 00006.

-- +goose Up
ALTER TABLE events DROP CONSTRAINT events_owner_id_fkey;
ALTER TABLE change_rows DROP CONSTRAINT change_rows_change_id_fkey;

-- +goose StatementBegin
CREATE FUNCTION events_person_exists() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    missing bigint;
BEGIN
    SELECT n.owner_id INTO missing
        FROM (SELECT DISTINCT owner_id FROM new_rows) AS n
        LEFT JOIN (SELECT id FROM people WHERE id IN (SELECT owner_id FROM new_rows) FOR KEY SHARE) AS p
            ON p.id = n.owner_id
        WHERE p.id IS NULL
        LIMIT 1;
    IF FOUND THEN
        RAISE foreign_key_violation USING
            MESSAGE = 'insert or update on table "events" violates foreign key constraint "events_owner_id_fkey"',
            DETAIL = format('Key (owner_id)=(%s) is not present in table "people".', missing),
            TABLE = 'events', CONSTRAINT = 'events_owner_id_fkey';
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION change_rows_change_exists() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    missing bigint;
BEGIN
    SELECT n.change_id INTO missing
        FROM (SELECT DISTINCT change_id FROM new_rows) AS n
        LEFT JOIN (SELECT id FROM changes WHERE id IN (SELECT change_id FROM new_rows) FOR KEY SHARE) AS c
            ON c.id = n.change_id
        WHERE c.id IS NULL
        LIMIT 1;
    IF FOUND THEN
        RAISE foreign_key_violation USING
            MESSAGE = 'insert or update on table "change_rows" violates foreign key constraint "change_rows_change_id_fkey"',
            DETAIL = format('Key (change_id)=(%s) is not present in table "changes".', missing),
            TABLE = 'change_rows', CONSTRAINT = 'change_rows_change_id_fkey';
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- reference_kept checks one row whose reference changed: TG_ARGV[0] is
-- the referenced table (keyed by id), TG_ARGV[1] the column.
-- +goose StatementBegin
CREATE FUNCTION reference_kept() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    ref bigint := (to_jsonb(NEW) ->> TG_ARGV[1])::bigint;
    kept bigint;
BEGIN
    EXECUTE format('SELECT id FROM %I WHERE id = $1 FOR KEY SHARE', TG_ARGV[0]) INTO kept USING ref;
    IF kept IS NULL THEN
        RAISE foreign_key_violation USING
            MESSAGE = format('insert or update on table "%s" violates foreign key constraint "%s_%s_fkey"',
                TG_TABLE_NAME, TG_TABLE_NAME, TG_ARGV[1]),
            DETAIL = format('Key (%s)=(%s) is not present in table "%s".', TG_ARGV[1], ref, TG_ARGV[0]),
            TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- referenced_id_kept refuses a new id for a row still referenced:
-- TG_ARGV[0] is the referencing table, TG_ARGV[1] its column.
-- +goose StatementBegin
CREATE FUNCTION referenced_id_kept() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    used boolean;
BEGIN
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I = $1)', TG_ARGV[0], TG_ARGV[1]) INTO used USING OLD.id;
    IF used THEN
        RAISE foreign_key_violation USING
            MESSAGE = format('update on table "%s" violates foreign key constraint "%s_%s_fkey" on table "%s"',
                TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[1], TG_ARGV[0]),
            DETAIL = format('Key (id)=(%s) is still referenced from table "%s".', OLD.id, TG_ARGV[0]),
            TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- cascade_read_committed refuses, outside READ COMMITTED, a delete from
-- the table parent that would cascade into the table child.
-- +goose StatementBegin
CREATE FUNCTION cascade_read_committed(parent text, child text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE serialization_failure USING
            MESSAGE = format('deleting from table "%s" deletes the rows of table "%s" that name them, which this database does only at READ COMMITTED',
                parent, child),
            HINT = 'Run the DELETE in a READ COMMITTED transaction (BEGIN ISOLATION LEVEL READ COMMITTED).';
    END IF;
END;
$$;
-- +goose StatementEnd

-- truncate_refused refuses a TRUNCATE of the table that fires it while
-- TG_ARGV[0], which references it, holds rows.
-- +goose StatementBegin
CREATE FUNCTION truncate_refused() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    used boolean;
BEGIN
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', TG_ARGV[0]) INTO used;
    IF used THEN
        RAISE feature_not_supported USING
            MESSAGE = format('cannot truncate table "%s": table "%s" names its rows', TG_TABLE_NAME, TG_ARGV[0]),
            HINT = format('Truncate table "%s" first, in a statement of its own, or DELETE FROM "%s".', TG_ARGV[0], TG_TABLE_NAME);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION people_events_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM old_rows) THEN
        RETURN NULL;
    END IF;
    PERFORM cascade_read_committed(TG_TABLE_NAME, 'events');
    DELETE FROM events WHERE owner_id IN (SELECT id FROM old_rows);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION changes_rows_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM old_rows) THEN
        RETURN NULL;
    END IF;
    PERFORM cascade_read_committed(TG_TABLE_NAME, 'change_rows');
    DELETE FROM change_rows WHERE change_id IN (SELECT id FROM old_rows);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER events_owner_ref AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_person_exists();
CREATE TRIGGER events_owner_ref_update AFTER UPDATE OF owner_id ON events
    FOR EACH ROW WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id) EXECUTE FUNCTION reference_kept('people', 'owner_id');
CREATE TRIGGER people_events_cascade AFTER DELETE ON people
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION people_events_delete();
CREATE TRIGGER people_events_truncate BEFORE TRUNCATE ON people
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_refused('events');
CREATE TRIGGER people_events_id AFTER UPDATE OF id ON people
    FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION referenced_id_kept('events', 'owner_id');

CREATE TRIGGER change_rows_change_ref AFTER INSERT ON change_rows
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION change_rows_change_exists();
CREATE TRIGGER change_rows_change_ref_update AFTER UPDATE OF change_id ON change_rows
    FOR EACH ROW WHEN (OLD.change_id IS DISTINCT FROM NEW.change_id) EXECUTE FUNCTION reference_kept('changes', 'change_id');
CREATE TRIGGER changes_rows_cascade AFTER DELETE ON changes
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION changes_rows_delete();
CREATE TRIGGER changes_rows_truncate BEFORE TRUNCATE ON changes
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_refused('change_rows');
CREATE TRIGGER changes_rows_id AFTER UPDATE OF id ON changes
    FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION referenced_id_kept('change_rows', 'change_id');

ALTER FUNCTION event_generations_bump() SET search_path FROM CURRENT;

-- +goose Down
ALTER FUNCTION event_generations_bump() RESET search_path;
DROP TRIGGER changes_rows_truncate ON changes;
DROP TRIGGER people_events_truncate ON people;
DROP TRIGGER changes_rows_id ON changes;
DROP TRIGGER changes_rows_cascade ON changes;
DROP TRIGGER change_rows_change_ref_update ON change_rows;
DROP TRIGGER change_rows_change_ref ON change_rows;
DROP TRIGGER people_events_id ON people;
DROP TRIGGER people_events_cascade ON people;
DROP TRIGGER events_owner_ref_update ON events;
DROP TRIGGER events_owner_ref ON events;
DROP FUNCTION changes_rows_delete();
DROP FUNCTION people_events_delete();
DROP FUNCTION truncate_refused();
DROP FUNCTION cascade_read_committed(text, text);
DROP FUNCTION referenced_id_kept();
DROP FUNCTION reference_kept();
DROP FUNCTION change_rows_change_exists();
DROP FUNCTION events_person_exists();
ALTER TABLE change_rows ADD CONSTRAINT change_rows_change_id_fkey
    FOREIGN KEY (change_id) REFERENCES changes(id) ON DELETE CASCADE;
ALTER TABLE events ADD CONSTRAINT events_owner_id_fkey
    FOREIGN KEY (owner_id) REFERENCES people(id) ON DELETE CASCADE;
