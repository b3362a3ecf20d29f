-- Events (package tools/events) and the changed or cancelled occurrences
-- of repeating ones.
--
-- A series keeps its DTSTART as civil text beside its IANA zone (design §3):
-- start_local is "2026-10-05T09:00" in tzid, or "2026-10-05" for an
-- all-day event; end_local is the civil DTEND, which for an all-day event is
-- the day after the last day (RFC 5545's exclusive DTEND; tools show the last
-- day). start_at and end_at are the instants of DTSTART and DTEND in Unix
-- seconds (UTC); their difference is each occurrence's length.
--
-- rrule is the canonical RRULE value (package recur); exdates and rdates are
-- JSON arrays of canonical moments in tzid. first_at and last_at are the
-- first and last instants any occurrence (overrides included) can touch,
-- kept at write time so a listing reads only the series that can reach its
-- window; last_at is NULL for a series that never ends. All-day series are
-- widened by a day on each side, since their days float with the person's
-- zone.
--
-- split_from names the series this one continues after a "following" edit,
-- and prev_starts the earlier (start_local, tzid) pairs of this series, so
-- that an occurrence id made stale by a split or a shift can be answered
-- with the new one. uid is the RFC 5545 UID, unique per person among live
-- events.
--
-- created_at is Unix seconds (UTC); updated_at and deleted_at follow the
-- journal's RFC 3339 UTC TEXT convention.

-- +goose Up
CREATE TABLE events (
    id            INTEGER PRIMARY KEY,
    owner_id      INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    uid           TEXT    NOT NULL,
    title         TEXT    NOT NULL,
    location      TEXT    NOT NULL DEFAULT '',
    notes         TEXT    NOT NULL DEFAULT '',
    all_day       INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
    start_local   TEXT    NOT NULL,
    end_local     TEXT    NOT NULL,
    tzid          TEXT    NOT NULL,
    start_at      INTEGER NOT NULL,
    end_at        INTEGER NOT NULL,
    rrule         TEXT,
    exdates       TEXT    NOT NULL DEFAULT '[]',
    rdates        TEXT    NOT NULL DEFAULT '[]',
    first_at      INTEGER NOT NULL,
    last_at       INTEGER,
    remind_before TEXT    NOT NULL DEFAULT '[]',
    remind_at     TEXT    NOT NULL DEFAULT '[]',
    split_from    INTEGER,
    prev_starts   TEXT    NOT NULL DEFAULT '[]',
    created_at    INTEGER NOT NULL,
    updated_at    TEXT,
    deleted_at    TEXT,
    CHECK (end_at >= start_at),
    CHECK (last_at IS NULL OR last_at >= first_at)
);
CREATE INDEX events_owner_range ON events(owner_id, first_at, last_at) WHERE deleted_at IS NULL;
CREATE INDEX events_owner_created ON events(owner_id, created_at);
CREATE INDEX events_owner_split ON events(owner_id, split_from) WHERE split_from IS NOT NULL;
CREATE UNIQUE INDEX events_owner_uid ON events(owner_id, uid) WHERE deleted_at IS NULL;

-- One row per changed or cancelled occurrence, keyed by its RECURRENCE-ID
-- (RFC 5545 §3.8.4.4): the original start in UTC form "20261005T070000Z",
-- or the date "20261005" for an all-day series. A NULL field keeps the
-- series' value; start/end/tzid, when set, are the occurrence's own time.
CREATE TABLE event_overrides (
    id            INTEGER PRIMARY KEY,
    owner_id      INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    event_id      INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    recurrence_id TEXT    NOT NULL,
    cancelled     INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1)),
    title         TEXT,
    location      TEXT,
    notes         TEXT,
    start_local   TEXT,
    end_local     TEXT,
    tzid          TEXT,
    start_at      INTEGER,
    end_at        INTEGER,
    remind_before TEXT,
    remind_at     TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    TEXT,
    deleted_at    TEXT,
    CHECK ((start_local IS NULL) = (start_at IS NULL) AND (start_at IS NULL) = (end_at IS NULL))
);
-- Not UNIQUE: a shift re-keys overrides one row at a time (and undo puts
-- them back one at a time), so two rows may share a key for a moment; the
-- tools keep one live override per key.
CREATE INDEX event_overrides_key ON event_overrides(owner_id, event_id, recurrence_id) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE event_overrides;
DROP TABLE events;
