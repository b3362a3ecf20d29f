package store

import (
	"database/sql"
	"errors"
	"strings"
	"time"
)

// The CalDAV collections (migrations/*/00010_dav.sql): one of VEVENTs, one
// of VTODOs (RFC 4791 §5.2.3, supported-calendar-component-set).
const (
	DAVEvents = "events"
	DAVTasks  = "tasks"
)

// DAVObject is the name a CalDAV client gave one calendar object resource
// (RFC 4791 §4.1) when it PUT it: Name is the last segment of its URL
// ("6F1C….ics"), UID the object's UID, ItemID the event (collection
// [DAVEvents]) or task ([DAVTasks]) that holds it now, and Extra the
// properties assistant does not model, as iCalendar text, given back on
// every read.
type DAVObject struct {
	Collection string
	Name       string
	UID        string
	ItemID     int64
	Extra      string
}

// DAVObjectByName is the owner's resource named name in collection; ok is
// false when no client made one of that name.
func (tx *Tx) DAVObjectByName(collection, name string) (o DAVObject, ok bool, err error) {
	o = DAVObject{Collection: collection, Name: name}
	err = tx.queryRow(`SELECT uid, item_id, extra FROM dav_objects
		WHERE owner_id = ? AND collection = ? AND name = ?`, tx.owner, collection, name).Scan(&o.UID, &o.ItemID, &o.Extra)
	if errors.Is(err, sql.ErrNoRows) {
		return DAVObject{}, false, nil
	}
	return o, err == nil, err
}

// DAVObjectsOfItems maps each of ids (events or tasks, as collection says)
// that a client named to its resource. Items with no name are absent. A
// call reads at most len(ids) rows.
func (tx *Tx) DAVObjectsOfItems(collection string, ids []int64) (map[int64]DAVObject, error) {
	out := make(map[int64]DAVObject, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	for len(ids) > 0 {
		n := min(len(ids), 500) // under SQLite's variable limit
		q := make([]any, 0, n+2)
		q = append(q, tx.owner, collection)
		for _, id := range ids[:n] {
			q = append(q, id)
		}
		ids = ids[n:]
		rows, err := tx.query(`SELECT name, uid, item_id, extra FROM dav_objects
			WHERE owner_id = ? AND collection = ? AND item_id IN (?`+strings.Repeat(",?", n-1)+`)`, q...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			o := DAVObject{Collection: collection}
			if err := rows.Scan(&o.Name, &o.UID, &o.ItemID, &o.Extra); err != nil {
				rows.Close()
				return nil, err
			}
			out[o.ItemID] = o
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SaveDAVObject records o: the resource o.Name of o.Collection now holds
// item o.ItemID with UID o.UID and the extra properties o.Extra. Any
// other name of the same item is dropped, so one item has one URL; the
// names of deleted items that held the same UID stay, so a sync can still
// report them gone.
func (tx *Tx) SaveDAVObject(o DAVObject) error {
	if err := tx.writable("SaveDAVObject"); err != nil {
		return err
	}
	if _, err := tx.exec(`DELETE FROM dav_objects WHERE owner_id = ? AND collection = ? AND item_id = ? AND name <> ?`,
		tx.owner, o.Collection, o.ItemID, o.Name); err != nil {
		return err
	}
	_, err := tx.exec(`INSERT INTO dav_objects (owner_id, collection, name, uid, item_id, extra) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (owner_id, collection, name) DO UPDATE SET uid = excluded.uid, item_id = excluded.item_id, extra = excluded.extra`,
		tx.owner, o.Collection, o.Name, o.UID, o.ItemID, o.Extra)
	return err
}

// DeleteDAVObject forgets the resource name of collection (the item it
// held is deleted by its own method).
func (tx *Tx) DeleteDAVObject(collection, name string) error {
	if err := tx.writable("DeleteDAVObject"); err != nil {
		return err
	}
	_, err := tx.exec(`DELETE FROM dav_objects WHERE owner_id = ? AND collection = ? AND name = ?`, tx.owner, collection, name)
	return err
}

// LastChange is the owner's newest change in the journal: its number
// (31 for "c31") and when it was written; 0 and the zero time when the
// owner has none. Every write of an event, an occurrence or a task is a
// change, so the number serves as a collection's CTag and sync token and
// the time as a feed's Last-Modified.
func (tx *Tx) LastChange() (id int64, at time.Time, err error) {
	var created int64
	err = tx.queryRow(`SELECT id, created FROM changes WHERE owner_id = ? ORDER BY id DESC LIMIT 1`, tx.owner).Scan(&id, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, err
	}
	return id, time.Unix(created, 0).UTC(), nil
}

// ChangedRow is one row a change touched: the change's number and time, the row's
// place in it, its table ([EventsTable], [OverridesTable], "tasks")
// and id, and for an occurrence the event it belongs to.
type ChangedRow struct {
	Change  int64
	At      time.Time // when the change was written
	Seq     int64
	Table   string
	ID      int64
	EventID int64 // for OverridesTable rows; 0 otherwise
}

// ChangedRows lists the event, occurrence and task rows of the owner's
// changes after the point (change, seq): after the whole change when seq
// is negative (0, -1 is the start), else after its row seq (rows of a
// change are numbered from 0),
// in journal order, at most limit of them (1…10,000). It reads the
// journal from that point on only, so its cost follows what changed, not
// what the calendar holds (RFC 6578's sync-collection rests on it).
func (tx *Tx) ChangedRows(change, seq int64, limit int) ([]ChangedRow, error) {
	limit = max(1, min(limit, 10000))
	// The rows of changes of several rows (change_rows) and those of
	// changes of one row (inline in changes, seq 0; migration 00016), each
	// read in journal order up to limit, then merged. "many" is ordered by
	// c.id, not by its equal r.change_id, so SQLite walks changes_owner and
	// change_rows' primary key in that order and stops at limit, where it
	// used to sort every row after the point first; r.change_id is bounded
	// too, or PostgreSQL hash-joins every row of change_rows.
	rows, err := tx.query(`SELECT * FROM (SELECT r.change_id, c.created, r.seq, r.tbl, r.row_id, COALESCE(r.after, r.before) AS img
		FROM changes c JOIN change_rows r ON r.change_id = c.id
		WHERE c.owner_id = ? AND c.id >= ? AND r.change_id >= ? AND (c.id > ? OR (? >= 0 AND r.seq > ?))
		  AND r.tbl IN (?, ?, ?)
		ORDER BY c.id, r.seq LIMIT ?) many
		UNION ALL
		SELECT * FROM (SELECT c.id, c.created, 0, c.tbl, c.row_id, COALESCE(c.after, c.before)
		FROM changes c WHERE c.owner_id = ? AND c.id > ? AND c.tbl IN (?, ?, ?)
		ORDER BY c.id LIMIT ?) one
		ORDER BY 1, 3 LIMIT ?`,
		tx.owner, change, change, change, seq, seq, EventsTable, OverridesTable, tasksTable, limit,
		tx.owner, change, EventsTable, OverridesTable, tasksTable, limit, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChangedRow
	for rows.Next() {
		var c ChangedRow
		var img sql.NullString
		var created int64
		if err := rows.Scan(&c.Change, &created, &c.Seq, &c.Table, &c.ID, &img); err != nil {
			return nil, err
		}
		c.At = time.Unix(created, 0).UTC()
		if c.Table == OverridesTable && img.Valid {
			if r, err := decodeRow([]byte(img.String)); err == nil {
				c.EventID, _ = r["event_id"].(int64)
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// TouchDAVItem journals item id of collection ([DAVEvents] or
// [DAVTasks]) as changed, stamping its updated_at: a PUT that changed
// only the properties assistant does not model (kept in
// [DAVObject.Extra]) is still a change, so sync-collection reports it to
// the owner's other clients. ErrNotFound when the item is not live.
func (tx *Tx) TouchDAVItem(collection string, id int64) error {
	table := EventsTable
	if collection == DAVTasks {
		table = tasksTable
	}
	return tx.Update(table, id, Row{"updated_at": stamp(tx.now)})
}

// ChangeTime is when the owner's change number n was written; ok is false
// when the journal no longer holds it (purged), or it is not the owner's.
// A sync token names its change by both, so a number the journal reuses
// after a purge emptied it is told from the one the token meant.
func (tx *Tx) ChangeTime(n int64) (at time.Time, ok bool, err error) {
	var created int64
	err = tx.queryRow(`SELECT created FROM changes WHERE owner_id = ? AND id = ?`, tx.owner, n).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return time.Unix(created, 0).UTC(), true, nil
}
