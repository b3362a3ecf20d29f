-- Tasks (package tools/tasks) and the done occurrences of each task.
--
-- The due is kept in its civil form beside the zone it was written in
-- (design §3): a date-only due floats (due_date only; due_time, due_zone
-- and due_at stay NULL, and "today"/"overdue" are worked out in the
-- person's zone when a list is asked for); a timed due has its civil
-- due_time, the IANA due_zone it is pinned to, due_at (the UTC instant in
-- Unix seconds, for windows and reminders) and due_date (its civil day in
-- due_zone). created_at and completed_at are Unix seconds (UTC);
-- updated_at and deleted_at follow the journal's RFC 3339 UTC TEXT
-- convention.

-- +goose Up
CREATE TABLE tasks (
    id            INTEGER PRIMARY KEY,
    owner_id      INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    title         TEXT    NOT NULL,
    -- fields.NormTitle(title), for the 10-minute duplicate window (design §6).
    title_norm    TEXT    NOT NULL,
    notes         TEXT    NOT NULL DEFAULT '',
    due_date      TEXT,
    due_time      TEXT,
    due_zone      TEXT,
    due_at        INTEGER,
    priority      INTEGER NOT NULL DEFAULT 4 CHECK (priority BETWEEN 1 AND 4),
    -- A JSON array of tag texts, as written, without duplicates (case-folded).
    tags          TEXT    NOT NULL DEFAULT '[]',
    -- RFC 5545 RRULE value of the series that starts at the current due;
    -- its COUNT is what remains of the series from that due.
    rrule         TEXT,
    repeat_from   TEXT CHECK (repeat_from IN ('schedule', 'completion')),
    remind_before TEXT    NOT NULL DEFAULT '[]',
    remind_at     TEXT    NOT NULL DEFAULT '[]',
    status        TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
    completed_at  INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    TEXT,
    deleted_at    TEXT,
    CHECK ((due_time IS NULL) = (due_zone IS NULL) AND (due_time IS NULL) = (due_at IS NULL)),
    CHECK (due_time IS NULL OR due_date IS NOT NULL),
    CHECK (rrule IS NULL OR due_date IS NOT NULL)
);
CREATE INDEX tasks_owner_due_at ON tasks(owner_id, status, due_at) WHERE deleted_at IS NULL;
CREATE INDEX tasks_owner_due_date ON tasks(owner_id, status, due_date) WHERE deleted_at IS NULL;
CREATE INDEX tasks_owner_title ON tasks(owner_id, title_norm, created_at);

-- One row per completion: the occurrence that was done (its due, as the
-- task had it) and when. A repeating task gets one row per occurrence; a
-- single task one row, taken back (soft-deleted) when it is reopened.
CREATE TABLE task_completions (
    id           INTEGER PRIMARY KEY,
    owner_id     INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    task_id      INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    due_date     TEXT,
    due_time     TEXT,
    due_zone     TEXT,
    due_at       INTEGER,
    completed_at INTEGER NOT NULL,
    updated_at   TEXT,
    deleted_at   TEXT
);
CREATE INDEX task_completions_task ON task_completions(owner_id, task_id, completed_at);

-- +goose Down
DROP TABLE task_completions;
DROP TABLE tasks;
