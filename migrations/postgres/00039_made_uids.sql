-- A task made without a UID of its own is written as "t12@assistant"
-- (task.MadeUID); another database's task 12 is too. Before this version
-- an import or a CalDAV PUT could store such a UID as an item's own, and
-- the export, the feed and CalDAV then held two items of one UID, one of
-- them reached where the other was meant. The store now keeps a task of
-- that UID as "t12.<the first 8 hex digits of the SHA-256 of its
-- title>.imported@assistant" and an event as "t12.imported@assistant", as
-- the import does (ics.importedUID, DecodeOptions.MoveMadeEventUIDs), so
-- the same file imported again finds them; ../sqlite/00039_made_uids.sql
-- is the same. Deleted rows move too, so an undo does not bring the old
-- UID back beside the task of that number.

-- +goose Up
UPDATE tasks SET uid = left(uid, -10) || '.' || left(encode(sha256(convert_to(title, 'UTF8')), 'hex'), 8) || '.imported@assistant'
WHERE uid ~ '^t[1-9][0-9]{0,18}@assistant$'
  AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.owner_id = tasks.owner_id
    AND o.uid = left(tasks.uid, -10) || '.' || left(encode(sha256(convert_to(tasks.title, 'UTF8')), 'hex'), 8) || '.imported@assistant');
UPDATE events SET uid = left(uid, -10) || '.imported@assistant'
WHERE uid ~ '^t[1-9][0-9]{0,18}@assistant$'
  AND NOT EXISTS (SELECT 1 FROM events o WHERE o.owner_id = events.owner_id
    AND o.uid = left(events.uid, -10) || '.imported@assistant');

-- +goose Down
SELECT 1;
