-- Speed of the event tools (package tools/events, issue 5 "Speed"). The
-- PostgreSQL form of ../sqlite/00006_events_speed.sql.
--
-- event_generations keeps, per person, a generation of their events: a
-- random 64-bit number drawn again by the server itself on every insert,
-- update or delete of one of their events or overrides, whichever process
-- or code path made it (tools, undo, import, a cascade, another server). A
-- process may keep parsed series in memory for as long as the generation it
-- read them at is still the stored one. Random rather than counted, so that
-- a value is never seen twice with different rows behind it, not even after
-- a backup is put back. person_id has no foreign key on purpose: the row
-- must outlive a person's deletion (the cascade's own triggers write it),
-- and it holds no data of theirs.
--
-- The random value is the first 64 bits of the MD5 of a random UUID
-- (gen_random_uuid, built in since PostgreSQL 13), read as a signed BIGINT
-- (bit(64) to bigint never overflows), like SQLite's random(). One trigger
-- function serves the six statement-level triggers, named as SQLite's are.
--
-- The two override indexes let a listing read only the overrides near its
-- window: by RECURRENCE-ID (the original start) and by the moved start.

-- +goose Up
CREATE TABLE event_generations (
    person_id BIGINT PRIMARY KEY,
    gen       BIGINT NOT NULL
);
INSERT INTO event_generations (person_id, gen)
    SELECT owner_id, ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint
    FROM (SELECT DISTINCT owner_id FROM events) AS e;
INSERT INTO event_generations (person_id, gen)
    SELECT owner_id, ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint
    FROM (SELECT DISTINCT owner_id FROM event_overrides) AS o
    ON CONFLICT DO NOTHING;

-- +goose StatementBegin
CREATE FUNCTION event_generations_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO event_generations (person_id, gen)
            SELECT DISTINCT owner_id, 0 FROM old_rows
            ON CONFLICT (person_id) DO NOTHING;
        UPDATE event_generations g
            SET gen = ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint
            WHERE g.person_id IN (SELECT owner_id FROM old_rows);
    ELSE
        INSERT INTO event_generations (person_id, gen)
            SELECT DISTINCT owner_id, 0 FROM new_rows
            ON CONFLICT (person_id) DO NOTHING;
        UPDATE event_generations g
            SET gen = ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint
            WHERE g.person_id IN (SELECT owner_id FROM new_rows);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- Statement-level, with the statement's rows as a transition table: one
-- new generation per person a statement touches, not one per row. A
-- bulk insert of 64 events is one statement; per row, PostgreSQL would
-- write 64 versions of the same generation row, and an import of 50,000
-- events in one transaction made each update walk a longer chain of them.
CREATE TRIGGER events_gen_insert AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_generations_bump();
CREATE TRIGGER events_gen_update AFTER UPDATE ON events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_generations_bump();
CREATE TRIGGER events_gen_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION event_generations_bump();
CREATE TRIGGER event_overrides_gen_insert AFTER INSERT ON event_overrides
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_generations_bump();
CREATE TRIGGER event_overrides_gen_update AFTER UPDATE ON event_overrides
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_generations_bump();
CREATE TRIGGER event_overrides_gen_delete AFTER DELETE ON event_overrides
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION event_generations_bump();

CREATE INDEX event_overrides_owner_key ON event_overrides(owner_id, recurrence_id) WHERE deleted_at IS NULL;
CREATE INDEX event_overrides_owner_start ON event_overrides(owner_id, start_at) WHERE deleted_at IS NULL AND start_at IS NOT NULL;

-- +goose Down
DROP INDEX event_overrides_owner_start;
DROP INDEX event_overrides_owner_key;
DROP TRIGGER event_overrides_gen_delete ON event_overrides;
DROP TRIGGER event_overrides_gen_update ON event_overrides;
DROP TRIGGER event_overrides_gen_insert ON event_overrides;
DROP TRIGGER events_gen_delete ON events;
DROP TRIGGER events_gen_update ON events;
DROP TRIGGER events_gen_insert ON events;
DROP FUNCTION event_generations_bump();
DROP TABLE event_generations;
