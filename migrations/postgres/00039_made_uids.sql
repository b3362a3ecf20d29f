-- A task made without a UID of its own is written as "t12@assistant"
-- (task.MadeUID), and served over CalDAV as "t12.ics"; another
-- database's task 12 is written so too. Before this version an import or
-- a CalDAV PUT could store such a UID as another item's own, or a client
-- could name its object "t12.ics", and the export, the feed and CalDAV
-- then held two items of one UID or one name, one of them reached where
-- the other was meant. Only the items that meet such a task of their
-- owner move (a task stored as t12@assistant that is task 12 itself does
-- not): see ../sqlite/00039_made_uids.sql, which this is in PostgreSQL's
-- words (sha256() for assistant_sha256_hex8).

-- +goose Up
UPDATE tasks SET uid = left(uid, -10) || '.' || left(encode(sha256(convert_to(title, 'UTF8')), 'hex'), 8) || '.imported@assistant'
WHERE uid ~ '^t[1-9][0-9]{0,18}@assistant$'
  AND EXISTS (SELECT 1 FROM tasks m WHERE m.owner_id = tasks.owner_id AND m.uid IS NULL
    AND m.id::text = substr(tasks.uid, 2, length(tasks.uid) - 11))
  AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.owner_id = tasks.owner_id
    AND o.uid = left(tasks.uid, -10) || '.' || left(encode(sha256(convert_to(tasks.title, 'UTF8')), 'hex'), 8) || '.imported@assistant');
UPDATE events SET uid = left(uid, -10) || '.imported@assistant'
WHERE uid ~ '^t[1-9][0-9]{0,18}@assistant$'
  AND EXISTS (SELECT 1 FROM tasks m WHERE m.owner_id = events.owner_id AND m.uid IS NULL
    AND m.id::text = substr(events.uid, 2, length(events.uid) - 11))
  AND NOT EXISTS (SELECT 1 FROM events o WHERE o.owner_id = events.owner_id
    AND o.uid = left(events.uid, -10) || '.imported@assistant');
UPDATE dav_objects d SET uid = t.uid FROM tasks t
WHERE d.collection = 'tasks' AND t.id = d.item_id AND d.uid ~ '^t[1-9][0-9]{0,18}@assistant$'
  AND t.uid ~ '^t[1-9][0-9]{0,18}\.[0-9a-f]{8}\.imported@assistant$';
UPDATE dav_objects d SET uid = e.uid FROM events e
WHERE d.collection = 'events' AND e.id = d.item_id AND d.uid ~ '^t[1-9][0-9]{0,18}@assistant$'
  AND e.uid ~ '^t[1-9][0-9]{0,18}\.imported@assistant$';
UPDATE dav_objects SET name = left(name, -4) || '-' || item_id || '.ics'
WHERE ((collection = 'tasks' AND name ~ '^t[1-9][0-9]{0,18}\.ics$') OR (collection = 'events' AND name ~ '^e[1-9][0-9]{0,18}\.ics$'))
  AND substr(name, 2, length(name) - 5) <> item_id::text;

-- +goose Down
SELECT 1;
