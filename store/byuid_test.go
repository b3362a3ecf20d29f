package store

import (
	"errors"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

// EventByUID finds the owner's live event by UID, and nobody else's, and
// none once it is deleted.
func TestEventByUID(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		e := weekly(t)
		f.events(t, f.alice.ID, func(tx *Tx) error { _, err := tx.InsertEvent(e); return err })
		read := func(owner int64, uid string) (int64, error) {
			var id int64
			err := f.s.Read(f.ctx, owner, func(tx *Tx) error {
				got, err := tx.EventByUID(uid)
				if err == nil {
					id = got.ID
					if got.Title != "Standup" || got.Rule == nil || len(got.PrevStarts) != 1 {
						t.Errorf("read back %+v", got)
					}
				}
				return err
			})
			return id, err
		}
		if id, err := read(f.alice.ID, "u1@test"); err != nil || id != e.ID {
			t.Fatalf("alice's event by UID: %d %v, want %d", id, err, e.ID)
		}
		if _, err := read(f.bob.ID, "u1@test"); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob reads alice's event by UID: %v", err)
		}
		if _, err := read(f.alice.ID, "u2@test"); !errors.Is(err, ErrNotFound) {
			t.Errorf("an unknown UID: %v", err)
		}
		f.events(t, f.alice.ID, func(tx *Tx) error { return tx.DeleteEvent(e.ID) })
		if _, err := read(f.alice.ID, "u1@test"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a deleted event by UID: %v", err)
		}
	})
}

// TaskByUID finds a task by its UID, and a task the tools made (no UID)
// by the UID it is exported with, "t<ID>@assistant".
func TestTaskByUID(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		withUID := sampleTask(t)
		made := task.New("Call the bank", t0)
		var idUID, idMade int64
		f.events(t, f.alice.ID, func(tx *Tx) error {
			var err error
			if idUID, err = tx.InsertTask(withUID); err != nil {
				return err
			}
			idMade, err = tx.InsertTask(made)
			return err
		})
		read := func(owner int64, uid string) (task.Task, error) {
			var got task.Task
			err := f.s.Read(f.ctx, owner, func(tx *Tx) error {
				var err error
				got, err = tx.TaskByUID(uid)
				return err
			})
			return got, err
		}
		if got, err := read(f.alice.ID, "abc@example.com"); err != nil || got.ID != idUID || got.Title != "Water the plants" {
			t.Errorf("by UID: %+v %v", got, err)
		}
		if got, err := read(f.alice.ID, task.Label(idMade)+"@assistant"); err != nil || got.ID != idMade || got.UID != "" {
			t.Errorf("by the exported UID of a made task: %+v %v", got, err)
		}
		// A task with a UID of its own is not found by its id's form.
		for _, uid := range []string{task.Label(idUID) + "@assistant", "t@assistant", "tx1@assistant", "t1@elsewhere", "t99999999999999999@assistant", "nope"} {
			if got, err := read(f.alice.ID, uid); !errors.Is(err, ErrNotFound) {
				t.Errorf("%q found %+v, %v", uid, got, err)
			}
		}
		if _, err := read(f.bob.ID, task.Label(idMade)+"@assistant"); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob reads alice's task: %v", err)
		}
		f.events(t, f.alice.ID, func(tx *Tx) error { return tx.DeleteTask(idMade) })
		if _, err := read(f.alice.ID, task.Label(idMade)+"@assistant"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a deleted task: %v", err)
		}
	})
}

// Touched counts the rows a transaction wrote, each once.
func TestTouched(t *testing.T) {
	f := newFixture(t)
	f.events(t, f.alice.ID, func(tx *Tx) error {
		if tx.Touched() != 0 {
			t.Errorf("a new transaction touched %d rows", tx.Touched())
		}
		id, err := tx.InsertTask(task.New("a", t0))
		if err != nil {
			return err
		}
		tk, _ := tx.Task(id)
		after := tk
		after.Title = "b"
		if _, err := tx.SaveTask(tk, after); err != nil {
			return err
		}
		if tx.Touched() != 1 {
			t.Errorf("one row written twice counts %d", tx.Touched())
		}
		return nil
	})
}
