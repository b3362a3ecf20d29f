-- CalDAV and the calendar feed (package caldav).
--
-- dav_objects names the calendar object resources a CalDAV client made
-- (RFC 4791 §4.1): the last segment of the URL it PUT to, the UID of the
-- object, and the event or task that holds it now. An item with no row
-- here is served under a name made from its id ("e12.ics", "t7.ics").
-- extra keeps, as iCalendar text, the properties a client sent that
-- assistant does not model (ATTENDEE, CATEGORIES of an event, X-…), so
-- they are given back as they came. The table is not journaled: undo puts
-- the item back, and the name and the extra properties stay with its UID.
--
-- +goose Up
CREATE TABLE dav_objects (
    owner_id   INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    collection TEXT    NOT NULL CHECK (collection IN ('events', 'tasks')),
    name       TEXT    NOT NULL,
    uid        TEXT    NOT NULL,
    item_id    INTEGER NOT NULL,
    extra      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (owner_id, collection, name)
) WITHOUT ROWID;
CREATE INDEX dav_objects_item ON dav_objects(owner_id, collection, item_id);
CREATE INDEX dav_objects_uid ON dav_objects(owner_id, collection, uid);

-- Secrets of the read-only calendar feeds (/feed/SECRET.ics): only the
-- SHA-256 of the secret is kept, as for access_tokens, and a feed secret
-- is never a token: it reads the export and nothing else.
CREATE TABLE feed_secrets (
    id        INTEGER PRIMARY KEY,
    person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    hash      BLOB    NOT NULL UNIQUE,
    prefix    TEXT    NOT NULL,
    label     TEXT    NOT NULL DEFAULT '',
    created   INTEGER NOT NULL,
    last_used INTEGER,
    revoked   INTEGER
);
CREATE INDEX feed_secrets_person ON feed_secrets(person_id);

-- +goose Down
DROP TABLE feed_secrets;
DROP TABLE dav_objects;
