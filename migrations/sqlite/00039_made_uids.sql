-- A task made without a UID of its own is written as "t12@assistant"
-- (task.MadeUID), and served over CalDAV as "t12.ics"; another
-- database's task 12 is written so too. Before this version an import or
-- a CalDAV PUT could store such a UID as another item's own, or a client
-- could name its object "t12.ics", and the export, the feed and CalDAV
-- then held two items of one UID or one name, one of them reached where
-- the other was meant. Only the items that meet such a task of their
-- owner move (a task stored as t12@assistant that is task 12 itself does
-- not): a task to "t12.<the first 8 hex digits of the SHA-256 of its
-- title>.imported@assistant" and an event to "t12.imported@assistant", as
-- the import now keeps them (ics.importedUID,
-- DecodeOptions.MoveMadeEventUIDs); a client's name "t12.ics" (or
-- "e12.ics" among the events) that is not item 12's own becomes
-- "t12-<its item's id>.ics". assistant_sha256_hex8 is registered by
-- package migrations; ../postgres/00039_made_uids.sql is the same.

-- +goose Up
UPDATE tasks SET uid = substr(uid, 1, length(uid) - 10) || '.' || assistant_sha256_hex8(title) || '.imported@assistant'
WHERE uid GLOB 't[1-9]*@assistant' AND length(uid) <= 30 AND substr(uid, 2, length(uid) - 11) NOT GLOB '*[^0-9]*'
  AND EXISTS (SELECT 1 FROM tasks m WHERE m.owner_id = tasks.owner_id AND m.uid IS NULL
    AND m.id = CAST(substr(tasks.uid, 2, length(tasks.uid) - 11) AS INTEGER))
  AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.owner_id = tasks.owner_id
    AND o.uid = substr(tasks.uid, 1, length(tasks.uid) - 10) || '.' || assistant_sha256_hex8(tasks.title) || '.imported@assistant');
UPDATE events SET uid = substr(uid, 1, length(uid) - 10) || '.imported@assistant'
WHERE uid GLOB 't[1-9]*@assistant' AND length(uid) <= 30 AND substr(uid, 2, length(uid) - 11) NOT GLOB '*[^0-9]*'
  AND EXISTS (SELECT 1 FROM tasks m WHERE m.owner_id = events.owner_id AND m.uid IS NULL
    AND m.id = CAST(substr(events.uid, 2, length(events.uid) - 11) AS INTEGER))
  AND NOT EXISTS (SELECT 1 FROM events o WHERE o.owner_id = events.owner_id
    AND o.uid = substr(events.uid, 1, length(events.uid) - 10) || '.imported@assistant');
-- The UIDs CalDAV keeps with the names follow their items.
UPDATE dav_objects SET uid = (SELECT t.uid FROM tasks t WHERE t.id = dav_objects.item_id)
WHERE collection = 'tasks' AND uid GLOB 't[1-9]*@assistant'
  AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = dav_objects.item_id AND t.uid GLOB 't[1-9]*.imported@assistant');
UPDATE dav_objects SET uid = (SELECT e.uid FROM events e WHERE e.id = dav_objects.item_id)
WHERE collection = 'events' AND uid GLOB 't[1-9]*@assistant'
  AND EXISTS (SELECT 1 FROM events e WHERE e.id = dav_objects.item_id AND e.uid GLOB 't[1-9]*.imported@assistant');
UPDATE dav_objects SET name = substr(name, 1, length(name) - 4) || '-' || item_id || '.ics'
WHERE ((collection = 'tasks' AND name GLOB 't[1-9]*.ics') OR (collection = 'events' AND name GLOB 'e[1-9]*.ics'))
  AND length(name) <= 24 AND substr(name, 2, length(name) - 5) NOT GLOB '*[^0-9]*'
  AND CAST(substr(name, 2, length(name) - 5) AS INTEGER) <> item_id;

-- +goose Down
SELECT 1;
