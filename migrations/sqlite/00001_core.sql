-- Core schema: people, the change journal, idempotency keys, access tokens
-- and chat history. Civil dates and times are canonical TEXT; instants are
-- INTEGER Unix seconds (UTC), except the deleted_at/updated_at convention of
-- journaled tables, which is RFC 3339 UTC TEXT so it sorts as it reads.

-- +goose Up
CREATE TABLE people (
    id      INTEGER PRIMARY KEY,
    name    TEXT    NOT NULL UNIQUE,
    zone    TEXT    NOT NULL,
    created INTEGER NOT NULL
);

-- One row per Write: what tool did it, when, and whether it was undone.
CREATE TABLE changes (
    id        INTEGER PRIMARY KEY,
    owner_id  INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    tool      TEXT    NOT NULL,
    summary   TEXT    NOT NULL DEFAULT '',
    created   INTEGER NOT NULL,
    undoes    INTEGER REFERENCES changes(id) ON DELETE SET NULL,
    undone_by INTEGER REFERENCES changes(id) ON DELETE SET NULL
);
-- Only the owner index: every index is one more page written (and synced)
-- per change. Purge scans by created, which is rare enough to go without.
CREATE INDEX changes_owner ON changes(owner_id, id);

-- The rows one change touched, with whole-row JSON images; before is NULL
-- for a row the change inserted. No index on (tbl, row_id): it is read only
-- to name the later change behind a refused undo, by a range scan from that
-- change on, and an index would cost a page per write.
CREATE TABLE change_rows (
    change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    tbl       TEXT    NOT NULL,
    row_id    INTEGER NOT NULL,
    before    TEXT,
    after     TEXT,
    PRIMARY KEY (change_id, seq)
) WITHOUT ROWID;

CREATE TABLE idempotency_keys (
    owner_id    INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    tool        TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    ref         TEXT    NOT NULL,
    created     INTEGER NOT NULL,
    PRIMARY KEY (owner_id, tool, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created);

-- Bearer tokens for MCP over HTTP: only the SHA-256 of the token is kept.
CREATE TABLE access_tokens (
    id        INTEGER PRIMARY KEY,
    person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    hash      BLOB    NOT NULL UNIQUE,
    prefix    TEXT    NOT NULL,
    label     TEXT    NOT NULL DEFAULT '',
    created   INTEGER NOT NULL,
    last_used INTEGER,
    revoked   INTEGER
);
CREATE INDEX access_tokens_person ON access_tokens(person_id);

CREATE TABLE conversations (
    id       INTEGER PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    created  INTEGER NOT NULL,
    updated  INTEGER NOT NULL
);
CREATE INDEX conversations_owner ON conversations(owner_id, updated);

-- One chat message per row, kept as the front's own JSON so a chat resumes
-- exactly as it was.
CREATE TABLE messages (
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    owner_id        INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    role            TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    created         INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE messages;
DROP TABLE conversations;
DROP TABLE access_tokens;
DROP TABLE idempotency_keys;
DROP TABLE change_rows;
DROP TABLE changes;
DROP TABLE people;
