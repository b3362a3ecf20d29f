-- iCalendar import (package ics): tasks keep the RFC 5545 UID of the VTODO
-- they came from, so importing the same file again updates the same task.
-- The PostgreSQL form of ../sqlite/00005_ics.sql.

-- +goose Up
ALTER TABLE tasks ADD COLUMN uid TEXT;
CREATE UNIQUE INDEX tasks_owner_uid ON tasks(owner_id, uid) WHERE deleted_at IS NULL AND uid IS NOT NULL;

-- +goose Down
DROP INDEX tasks_owner_uid;
ALTER TABLE tasks DROP COLUMN uid;
