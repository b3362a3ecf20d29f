-- Snoozes of reminders (package remind, docs/reminders.md "Snooze").
--
-- +goose Up

-- One row per snooze: a person put off a reminder that was sent (the
-- delivery snoozed, a reminder_deliveries.delivery_id) until fire_at
-- (INTEGER Unix seconds, UTC). The reminders job records a delivery for
-- it when fire_at comes, under delivery_id: the first delivery of the
-- chain (its root, never itself a snooze) and "-s" and the snooze's
-- number in that chain ("rd_4881ba5d44c573b6c2fc488f-s1", then "-s2"
-- when that one is snoozed in turn), so a receiver tells it apart from
-- the first send and from each other snooze. item, occurrence and
-- trigger are the root delivery's, origin_fire_at its fire instant, so
-- the message says what it reminded of.
--
-- Unlike the other reminder tables this one is what a person asked for,
-- so it is journaled (store.RegisterTable: id, owner_id, updated_at,
-- deleted_at) and undo takes a snooze back: a deleted row never fires.
CREATE TABLE reminder_snoozes (
    id             INTEGER PRIMARY KEY,
    owner_id       INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    snoozed        TEXT    NOT NULL,
    delivery_id    TEXT    NOT NULL UNIQUE,
    item           TEXT    NOT NULL,
    occurrence     TEXT    NOT NULL,
    trigger        TEXT    NOT NULL,
    origin_fire_at INTEGER NOT NULL,
    fire_at        INTEGER NOT NULL,
    updated_at     TEXT,
    deleted_at     TEXT
);
CREATE INDEX reminder_snoozes_fire ON reminder_snoozes(owner_id, fire_at) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE reminder_snoozes;
