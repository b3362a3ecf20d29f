-- A change that touched one row keeps that row in its own changes row
-- (tbl, row_id, before, after, as change_rows has them, seq 0) instead of
-- a change_rows row: most writes (add_task, update_task, a zone change)
-- touch one row, and change_rows, a WITHOUT ROWID table of whole-row JSON
-- images, holds a few rows per B-tree page, so each change split pages
-- there and wrote about two more than the journal's own (measured: 8.2
-- WAL frames per add_task, 6.3 with the row inline, 4.1 for the bare
-- INSERT of the task; store's BenchmarkScaleJournaledInsert). A change of
-- two rows or more keeps them all in change_rows as before.
--
-- journal_rows is every journaled row, either way, for reading: the
-- columns of change_rows, in its order.

-- +goose Up
ALTER TABLE changes ADD COLUMN tbl TEXT;
ALTER TABLE changes ADD COLUMN row_id INTEGER;
ALTER TABLE changes ADD COLUMN before TEXT;
ALTER TABLE changes ADD COLUMN after TEXT;
CREATE VIEW journal_rows AS
    SELECT change_id, seq, tbl, row_id, before, after FROM change_rows
    UNION ALL
    SELECT id, 0, tbl, row_id, before, after FROM changes WHERE tbl IS NOT NULL;

-- +goose Down
DROP VIEW journal_rows;
INSERT INTO change_rows (change_id, seq, tbl, row_id, before, after)
    SELECT id, 0, tbl, row_id, before, after FROM changes WHERE tbl IS NOT NULL;
ALTER TABLE changes DROP COLUMN after;
ALTER TABLE changes DROP COLUMN before;
ALTER TABLE changes DROP COLUMN row_id;
ALTER TABLE changes DROP COLUMN tbl;
