-- A change that touched one row keeps that row in its own changes row.
-- The PostgreSQL form of ../sqlite/00016_journal_inline.sql, whose
-- comments say why.

-- +goose Up
ALTER TABLE changes ADD COLUMN tbl TEXT;
ALTER TABLE changes ADD COLUMN row_id BIGINT;
ALTER TABLE changes ADD COLUMN before TEXT;
ALTER TABLE changes ADD COLUMN after TEXT;
CREATE VIEW journal_rows AS
    SELECT change_id, seq, tbl, row_id, before, after FROM change_rows
    UNION ALL
    SELECT id, 0::bigint, tbl, row_id, before, after FROM changes WHERE tbl IS NOT NULL;

-- +goose Down
DROP VIEW journal_rows;
INSERT INTO change_rows (change_id, seq, tbl, row_id, before, after)
    SELECT id, 0, tbl, row_id, before, after FROM changes WHERE tbl IS NOT NULL;
ALTER TABLE changes DROP COLUMN after;
ALTER TABLE changes DROP COLUMN before;
ALTER TABLE changes DROP COLUMN row_id;
ALTER TABLE changes DROP COLUMN tbl;
