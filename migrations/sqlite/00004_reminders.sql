-- Reminders (package remind): one row per delivery, an index of each
-- item's next fire instant, and each person's bookkeeping.
--
-- Instants are INTEGER Unix seconds (UTC). None of these tables is
-- journaled: they record what the reminders job did, not what a person
-- wrote, so undo never touches them.

-- +goose Up

-- One row per (item, occurrence, trigger, fire instant): the unit that is
-- delivered exactly once (design §5). item is "t12", "e7" or "digest";
-- occurrence is the RECURRENCE-ID form of the occurrence's original start
-- ("20261005T070000Z", all-day "20261005"; a digest's day; "" for a task
-- with no due); trigger is "before:15" (minutes before the start or due),
-- "at:2026-10-05T08:00" (an absolute moment) or "digest". The key holds the
-- fire instant, so a moved occurrence gets a row of its own and a row
-- already sent for the old time never blocks it.
--
-- status: pending (due, waiting for its next attempt), claimed (a sender
-- holds it until lease_until), sent, failed (retries used up), skipped
-- (missed by more than the allowed lateness). next_attempt is when the row
-- may be taken next: the fire instant, a retry's time, or for a claimed row
-- the end of its lease, so one index finds everything there is to send.
-- delivery_id is derived from the key, so every resend carries the same one.
-- delivered_to lists the notifiers that accepted it (a JSON array), so a
-- retry goes only to those that did not.
CREATE TABLE reminder_deliveries (
    id           INTEGER PRIMARY KEY,
    owner_id     INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    item         TEXT    NOT NULL,
    occurrence   TEXT    NOT NULL,
    trigger      TEXT    NOT NULL,
    fire_at      INTEGER NOT NULL,
    delivery_id  TEXT    NOT NULL UNIQUE,
    status       TEXT    NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'claimed', 'sent', 'failed', 'skipped')),
    lease_until  INTEGER,
    claim_token  TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_attempt INTEGER NOT NULL,
    last_error   TEXT    NOT NULL DEFAULT '',
    delivered_to TEXT    NOT NULL DEFAULT '[]',
    created_at   INTEGER NOT NULL,
    sent_at      INTEGER,
    UNIQUE (owner_id, item, occurrence, trigger, fire_at)
);
CREATE INDEX reminder_deliveries_todo ON reminder_deliveries(owner_id, next_attempt)
    WHERE status IN ('pending', 'claimed');
CREATE INDEX reminder_deliveries_fire ON reminder_deliveries(owner_id, fire_at);

-- The next fire instant of each item with reminders that is not yet
-- recorded as a delivery (NULL when nothing more will fire), so a pass reads
-- only the items that can be due instead of expanding every series.
-- Recomputed when the change journal shows the item changed.
CREATE TABLE remind_next (
    owner_id  INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    item      TEXT    NOT NULL,
    next_fire INTEGER,
    PRIMARY KEY (owner_id, item)
) WITHOUT ROWID;
CREATE INDEX remind_next_fire ON remind_next(owner_id, next_fire) WHERE next_fire IS NOT NULL;

-- Per person: the last journal change the index has seen (change_mark), the
-- zone it was computed in (date-only bases are 00:00 in that zone), and the
-- instant up to which every fire has been recorded (passed_at).
CREATE TABLE remind_state (
    owner_id    INTEGER PRIMARY KEY REFERENCES people(id) ON DELETE CASCADE,
    change_mark INTEGER NOT NULL DEFAULT 0,
    zone        TEXT    NOT NULL,
    passed_at   INTEGER NOT NULL
);

-- +goose Down
DROP TABLE remind_state;
DROP TABLE remind_next;
DROP TABLE reminder_deliveries;
