-- A rebuild of the reminders' index (store.Tx.RemindCandidates) reads
-- the wide items (fires spanning more than two days: a date-only due or
-- an all-day event, widened for the zones its person may take; a
-- series) whose fires are not all past and whose first fire is by the
-- new horizon. The index held remind_until only, so each wide item whose
-- first fire is still far off was read from the table to be left out:
-- most of a first pass's reads on a large database. With remind_from in
-- the index too, the index alone leaves them out.

-- +goose Up
DROP INDEX tasks_remind_wide;
CREATE INDEX tasks_remind_wide ON tasks(owner_id, remind_until, remind_from)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_until - remind_from > 172800;
DROP INDEX events_remind_wide;
CREATE INDEX events_remind_wide ON events(owner_id, remind_until, remind_from)
    WHERE deleted_at IS NULL AND remind_until - remind_from > 172800;

-- +goose Down
DROP INDEX events_remind_wide;
CREATE INDEX events_remind_wide ON events(owner_id, remind_until)
    WHERE deleted_at IS NULL AND remind_until - remind_from > 172800;
DROP INDEX tasks_remind_wide;
CREATE INDEX tasks_remind_wide ON tasks(owner_id, remind_until)
    WHERE deleted_at IS NULL AND status = 'open' AND remind_until - remind_from > 172800;
