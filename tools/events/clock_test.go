package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tz"
)

func (e *env) storedZone(who tools.Person) string {
	e.t.Helper()
	p, err := e.Store.PersonByID(e.Ctx, who.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Zone
}

// set_time_zone is one journaled change: undo right after it puts the zone
// back and leaves the change before it (a task) alone; the next undo takes
// the task away; list_changes shows the zone change.
func TestSetTimeZoneUndo(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		tasks.Register(e.Reg)
		e.ok(e.alice, "add_task", `{"title":"NY today","due":"2026-10-05"}`)

		res, tc := e.call(e.alice, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
		want := "Your time zone is now Asia/Tokyo (it was Europe/Paris): it is Mon 2026-10-05 16:00 (+09:00) there. " +
			"Events keep their own zones; they are shown in the new one from now on. Change c2; undo puts Europe/Paris back."
		if !res.OK() || res.Out != want {
			t.Fatalf("set_time_zone:\n got %s\nwant %s", res.TextOut(), want)
		}
		if d := data(t, res); d["change"] != "c2" || d["was"] != "Europe/Paris" || d["time_zone"] != "Asia/Tokyo" {
			t.Fatalf("data %s", res.Data)
		}
		if ch, ok := tools.Result[tools.Changed](tc); !ok || ch.Change != "c2" {
			t.Fatalf("Changed = %+v, %v; want c2", ch, ok)
		}
		if z := e.storedZone(e.alice); z != "Asia/Tokyo" {
			t.Fatalf("stored zone %q", z)
		}

		list := e.ok(e.alice, "list_changes", `{}`)
		if !strings.Contains(list.Out, "set_time_zone: time zone Europe/Paris → Asia/Tokyo") ||
			!strings.Contains(list.Out, "add_task") {
			t.Fatalf("list_changes:\n%s", list.Out)
		}
		first := data(t, list)["changes"].([]any)[0].(map[string]any)
		if first["id"] != "c2" || first["tool"] != "set_time_zone" {
			t.Fatalf("newest change %v", first)
		}

		steps := []struct {
			raw      string
			code     int
			says     string
			zone     string
			taskLive bool
		}{
			{`{}`, tools.CodeOK, "Undid c2 (set_time_zone)", "Europe/Paris", true},
			{`{}`, tools.CodeOK, "Undid c1 (add_task)", "Europe/Paris", false},
			{`{"change":"c2"}`, tools.CodeConflict, "c2 was already undone by c3", "Europe/Paris", false},
			{`{"change":"c3"}`, tools.CodeOK, "Undid c3 (undo)", "Asia/Tokyo", false}, // redo
		}
		for i, s := range steps {
			res, _ := e.call(e.alice, "undo", s.raw)
			if res.Code != s.code || !strings.Contains(res.TextOut(), s.says) {
				t.Fatalf("step %d undo %s: code %d %s; want code %d with %q", i, s.raw, res.Code, res.TextOut(), s.code, s.says)
			}
			if z := e.storedZone(e.alice); z != s.zone {
				t.Fatalf("step %d: zone %q, want %q", i, z, s.zone)
			}
			got, _ := e.call(e.alice, "get_task", `{"id":"t1"}`)
			if got.OK() != s.taskLive {
				t.Fatalf("step %d: get_task t1 ok = %v, want %v: %s", i, got.OK(), s.taskLive, got.TextOut())
			}
		}
	})
}

// Naming the zone already stored makes no change, so undo still reaches
// the change before it.
func TestSetTimeZoneSameZone(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		tasks.Register(e.Reg)
		e.ok(e.alice, "add_task", `{"title":"Milk"}`)
		res, tc := e.call(e.alice, "set_time_zone", `{"time_zone":"Europe/Paris"}`)
		if !res.OK() || res.Out != "Your time zone is already Europe/Paris; nothing changed. It is Mon 2026-10-05 09:00 (+02:00) there." {
			t.Fatalf("same zone: %s", res.TextOut())
		}
		if _, ok := tools.Result[tools.Changed](tc); ok {
			t.Fatal("a call that changed nothing reports a change")
		}
		if res := e.ok(e.alice, "undo", `{}`); !strings.Contains(res.Out, "Undid c1 (add_task)") {
			t.Fatalf("undo: %s", res.Out)
		}
	})
}

// "it was" names the stored zone even when the run reads times in another
// one (--tz), since that is what undo puts back.
func TestSetTimeZoneWasIsStored(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		visiting := e.alice
		visiting.Zone = tz.MustZone("America/Los_Angeles")
		res := e.ok(visiting, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
		if !strings.Contains(res.Out, "(it was Europe/Paris)") || !strings.Contains(res.Out, "undo puts Europe/Paris back") {
			t.Fatalf("set_time_zone under --tz: %s", res.Out)
		}
	})
}

// One person can neither see, undo nor redo another's zone change, and
// their own undo never reaches it.
func TestSetTimeZoneOwnership(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
		before := e.snapshot()
		e.fail(e.bob, "undo", `{"change":"c1"}`, tools.CodeNotFound, "c1 is not one of your changes")
		e.fail(e.bob, "undo", `{}`, tools.CodeNotFound, "no change left to undo")
		if list := e.ok(e.bob, "list_changes", `{}`); list.Out != "No changes yet." {
			t.Fatalf("bob's list_changes: %s", list.Out)
		}
		if after := e.snapshot(); after != before {
			t.Fatalf("bob's calls changed the store:\nbefore %s\nafter  %s", before, after)
		}
		e.ok(e.bob, "set_time_zone", `{"time_zone":"Europe/London"}`)
		if a, b := e.storedZone(e.alice), e.storedZone(e.bob); a != "Asia/Tokyo" || b != "Europe/London" {
			t.Fatalf("zones alice %q, bob %q", a, b)
		}
		if res := e.ok(e.bob, "undo", `{}`); !strings.Contains(res.Out, "Undid c2 (set_time_zone)") {
			t.Fatalf("bob's undo: %s", res.Out)
		}
		if a, b := e.storedZone(e.alice), e.storedZone(e.bob); a != "Asia/Tokyo" || b != "America/New_York" {
			t.Fatalf("after bob's undo: zones alice %q, bob %q", a, b)
		}
	})
}
