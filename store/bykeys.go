package store

import "encoding/json"

// keyRead is a read by keys of tx's owner's rows: those of table where
// where (its one argument the owner) and col is one of the keys.
type keyRead struct{ table, where, col string }

// The reads by keys an import makes ([Tx.ofKeys]).
var (
	eventsByUID = keyRead{EventsTable, `owner_id = ? AND deleted_at IS NULL`, `uid`}
	// The owner and the deletion are checked on each row found, in forms
	// no index answers (see ofKeys).
	overridesByEvent = keyRead{OverridesTable, `owner_id + 0 = ? AND coalesce(deleted_at, '') = ''`, `event_id`}
	tasksByUID       = keyRead{tasksTable, `owner_id = ? AND deleted_at IS NULL`, `uid`}
	madeTasksByID    = keyRead{tasksTable, `owner_id + 0 = ? AND uid IS NULL AND coalesce(deleted_at, '') = ''`, `id`}
)

// ofKeys is the query SELECT cols FROM r.table WHERE r.where AND r.col =
// k for each k of keys ([]string or []int64), with its arguments (the
// owner and the keys): what an import reads of the items its file names,
// by UID or by id.
//
// On PostgreSQL each key is its own probe of an index on col: a LATERAL
// join of the unnested keys, fenced by OFFSET 0 so the planner cannot
// pull the subquery up and turn the join around. Written as
// `col = ANY($n)`, the generic plan PostgreSQL keeps after five runs,
// made while an import's first rows were few, read the owner's whole
// index range and filtered it, so each batch of a 50,000-event import
// read every event added before it (2,700 events/s). Which index the
// probe uses is still the planner's, and without statistics reading the
// owner's range of any index led by owner_id looks as cheap: where the
// key has a unique index led by owner_id (the UIDs) the probe by both
// wins; elsewhere the owner and the deletion are written in forms no
// index answers (owner_id + 0, and coalesce on deleted_at, which does
// not prove a partial index's WHERE deleted_at IS NULL either), so only
// an index led by the key can serve (the id, an override's event_id).
// Planned for the values each time instead (plan_cache_mode), the read
// by UID went to the owner's range once the table had grown (126
// events/s). On SQLite an IN over json_each probes the index as it is.
func (tx *Tx) ofKeys(cols string, r keyRead, keys any) (string, []any) {
	if tx.s.engine == Postgres {
		typ := "text[]"
		if _, ok := keys.([]int64); ok {
			typ = "bigint[]"
		}
		q := `SELECT x.* FROM unnest(CAST(? AS ` + typ + `)) AS k(v) CROSS JOIN LATERAL (SELECT ` + cols + ` FROM ` + r.table +
			` WHERE ` + r.where + ` AND ` + r.col + ` = k.v OFFSET 0) AS x`
		return q, []any{keys, tx.owner}
	}
	b, _ := json.Marshal(keys)
	q := `SELECT ` + cols + ` FROM ` + r.table + ` WHERE ` + r.where + ` AND ` + r.col + ` IN (SELECT value FROM json_each(?))`
	return q, []any{tx.owner, string(b)}
}
