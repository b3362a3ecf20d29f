-- Nothing to do on SQLite: a UID already compares byte by byte (its
-- BINARY collation). PostgreSQL's form, ../postgres/00038_uid_bytewise.sql,
-- makes it so there.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
