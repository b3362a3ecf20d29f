-- Speed of the event tools (package tools/events, issue 5 "Speed").
--
-- event_generations keeps, per person, a generation of their events: a
-- random 64-bit number drawn again by SQLite itself on every insert, update
-- or delete of one of their events or overrides, whichever process or code
-- path made it (tools, undo, import, a cascade). A process may keep parsed
-- series in memory for as long as the generation it read them at is still
-- the stored one. Random rather than counted, so that a value is never seen
-- twice with different rows behind it, not even after a backup is put back.
-- person_id has no foreign key on purpose: the row must outlive a person's
-- deletion (the cascade's own triggers write it), and it holds no data of
-- theirs.
--
-- The two override indexes let a listing read only the overrides near its
-- window: by RECURRENCE-ID (the original start) and by the moved start.

-- +goose Up
CREATE TABLE event_generations (
    person_id INTEGER PRIMARY KEY,
    gen       INTEGER NOT NULL
);
INSERT INTO event_generations (person_id, gen) SELECT DISTINCT owner_id, random() FROM events;
INSERT OR IGNORE INTO event_generations (person_id, gen) SELECT DISTINCT owner_id, random() FROM event_overrides;

-- +goose StatementBegin
CREATE TRIGGER events_gen_insert AFTER INSERT ON events BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (NEW.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER events_gen_update AFTER UPDATE ON events BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (NEW.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER events_gen_delete AFTER DELETE ON events BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (OLD.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_overrides_gen_insert AFTER INSERT ON event_overrides BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (NEW.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_overrides_gen_update AFTER UPDATE ON event_overrides BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (NEW.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_overrides_gen_delete AFTER DELETE ON event_overrides BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (OLD.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd

CREATE INDEX event_overrides_owner_key ON event_overrides(owner_id, recurrence_id) WHERE deleted_at IS NULL;
CREATE INDEX event_overrides_owner_start ON event_overrides(owner_id, start_at) WHERE deleted_at IS NULL AND start_at IS NOT NULL;

-- +goose Down
DROP INDEX event_overrides_owner_start;
DROP INDEX event_overrides_owner_key;
DROP TRIGGER event_overrides_gen_delete;
DROP TRIGGER event_overrides_gen_update;
DROP TRIGGER event_overrides_gen_insert;
DROP TRIGGER events_gen_delete;
DROP TRIGGER events_gen_update;
DROP TRIGGER events_gen_insert;
DROP TABLE event_generations;
