-- A task made without a UID of its own is written as "t12@assistant"
-- (task.MadeUID); another database's task 12 is too. Before this version
-- an import or a CalDAV PUT could store such a UID as an item's own, and
-- the export, the feed and CalDAV then held two items of one UID, one of
-- them reached where the other was meant. The store now keeps a task of
-- that UID as "t12.<the first 8 hex digits of the SHA-256 of its
-- title>.imported@assistant" and an event as "t12.imported@assistant", as
-- the import does (ics.importedUID, DecodeOptions.MoveMadeEventUIDs), so
-- the same file imported again finds them. assistant_sha256_hex8 is
-- registered by package migrations. Deleted rows move too, so an undo
-- does not bring the old UID back beside the task of that number.

-- +goose Up
UPDATE tasks SET uid = substr(uid, 1, length(uid) - 10) || '.' || assistant_sha256_hex8(title) || '.imported@assistant'
WHERE uid GLOB 't[1-9]*@assistant' AND length(uid) <= 30 AND substr(uid, 2, length(uid) - 11) NOT GLOB '*[^0-9]*'
  AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.owner_id = tasks.owner_id
    AND o.uid = substr(tasks.uid, 1, length(tasks.uid) - 10) || '.' || assistant_sha256_hex8(tasks.title) || '.imported@assistant');
UPDATE events SET uid = substr(uid, 1, length(uid) - 10) || '.imported@assistant'
WHERE uid GLOB 't[1-9]*@assistant' AND length(uid) <= 30 AND substr(uid, 2, length(uid) - 11) NOT GLOB '*[^0-9]*'
  AND NOT EXISTS (SELECT 1 FROM events o WHERE o.owner_id = events.owner_id
    AND o.uid = substr(events.uid, 1, length(events.uid) - 10) || '.imported@assistant');

-- +goose Down
SELECT 1;
