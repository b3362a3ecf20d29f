-- An insert into events or event_overrides no longer draws the person's
-- event generation (migration 00006) in a trigger, once per row: the
-- store draws it itself, once per statement that adds rows, in the same
-- transaction and before the rows (store.Tx.bumpEventGeneration, called
-- by every way the store inserts rows). The trigger was a third of the
-- time SQLite spent adding an imported event. Updates and deletes,
-- cascades included, still draw it in their triggers. An event or
-- override added by SQL typed by hand, around the store, no longer
-- changes the generation: a process keeping parsed series may not see it
-- until its snapshot is read again (tools/events.patchAge).

-- +goose Up
DROP TRIGGER events_gen_insert;
DROP TRIGGER event_overrides_gen_insert;

-- +goose Down
-- +goose StatementBegin
CREATE TRIGGER events_gen_insert AFTER INSERT ON events BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (NEW.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_overrides_gen_insert AFTER INSERT ON event_overrides BEGIN
    INSERT INTO event_generations (person_id, gen) VALUES (NEW.owner_id, random())
        ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen;
END;
-- +goose StatementEnd
