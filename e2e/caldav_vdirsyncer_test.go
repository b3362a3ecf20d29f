package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// vdirsyncer syncing a local folder with `assistant serve` both ways,
// and khal reading that folder, all of them clients none of us wrote: an
// event the model adds (add_event) shows in `khal list` after a sync; an
// event written as a .ics file into the folder shows in list_events after
// a sync, and a task written into the tasks folder in list_tasks; a sync
// with nothing changed copies nothing but the stored form of what the
// client wrote; a delete on either side reaches
// the other; the same event changed on both sides (update_event and the
// local file) is a conflict vdirsyncer reports, since the server's ETag
// changed too, and neither write is lost: the server keeps the tool's
// version, the folder the local one.
func TestCalDAVVdirsyncerKhal(t *testing.T) { storetest.Engines(t, testCalDAVVdirsyncerKhal) }

func testCalDAVVdirsyncerKhal(t *testing.T) {
	for _, c := range []string{"vdirsyncer", "khal"} {
		_, err := exec.LookPath(c)
		needClient(t, err == nil, c+" is not installed")
	}
	d := newDAVSite(t, "alice")
	dir := t.TempDir()
	folder := filepath.Join(dir, "calendars")
	events := filepath.Join(folder, "events") // the server's events collection, named by its URL
	vconf := filepath.Join(dir, "vdirsyncer.conf")
	kconf := filepath.Join(dir, "khal.conf")
	// The account is the server's root URL, as a person gives it;
	// collections are discovered from it. No conflict_resolution: a
	// conflict is reported, not settled.
	writeFile(t, vconf, fmt.Sprintf(`[general]
status_path = %q

[pair alice]
a = "alice_local"
b = "alice_remote"
collections = ["from b"]

[storage alice_local]
type = "filesystem"
path = %q
fileext = ".ics"

[storage alice_remote]
type = "caldav"
url = %q
username = "alice"
password = %q
`, filepath.Join(dir, "status")+"/", folder+"/", d.base+"/", d.tokens["alice"]))
	writeFile(t, kconf, fmt.Sprintf(`[calendars]
[[alice]]
path = %s

[locale]
local_timezone = Europe/Paris
default_timezone = Europe/Paris
timeformat = %%H:%%M
dateformat = %%Y-%%m-%%d
longdateformat = %%Y-%%m-%%d
datetimeformat = %%Y-%%m-%%d %%H:%%M
longdatetimeformat = %%Y-%%m-%%d %%H:%%M

[sqlite]
path = %s
`, events, filepath.Join(dir, "khal.db")))
	// Their own HOME and XDG folders, so no config of this machine's
	// user counts.
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "TZ=Europe/Paris"}
	vdirsyncer := func(t *testing.T, stdin string, args ...string) (int, string) {
		t.Helper()
		code, stdout, stderr := runClient(t, dir, env, stdin, "vdirsyncer", append([]string{"--config", vconf}, args...)...)
		return code, stdout + stderr
	}
	sync := func(t *testing.T) string {
		t.Helper()
		code, out := vdirsyncer(t, "", "sync")
		if code != 0 {
			t.Fatalf("vdirsyncer sync: exit %d\n%s", code, out)
		}
		return out
	}
	khal := func(t *testing.T) string {
		t.Helper()
		code, stdout, stderr := runClient(t, dir, env, "", "khal", "--config", kconf, "list",
			"--format", "{start-date} {start-time} {title}", "2026-10-05", "2026-10-12")
		if code != 0 {
			t.Fatalf("khal list: exit %d\n%s\n%s", code, stdout, stderr)
		}
		return stdout
	}

	// The model adds an event before the first sync.
	added := d.call(t, "alice", "add_event", "title=Dinner with Sam", "start=2026-10-08T19:30", "duration=90")
	bank := d.call(t, "alice", "add_event", "title=Call the bank", "start=2026-10-06T11:00", "duration=15")
	// Another client's object whose name holds an escaped "%"
	// (python3-caldav names an object so for a UID with a "/"): vdirsyncer
	// fetches it by the href the server lists.
	if r := d.as(t, "alice", "PUT", "/dav/alice/calendars/events/gym%252Fmonday%40e2e.ics",
		"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//another client//EN\r\nBEGIN:VEVENT\r\nUID:gym/monday@e2e.example\r\n"+
			"DTSTAMP:20261004T100000Z\r\nDTSTART;TZID=Europe/Paris:20261005T070000\r\nDTEND;TZID=Europe/Paris:20261005T080000\r\n"+
			"SUMMARY:Gym\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", "Content-Type", "text/calendar"); r.status != 201 {
		t.Fatalf("PUT of an object named with an escaped %%: %d %s", r.status, r.body)
	}
	if code, out := vdirsyncer(t, strings.Repeat("y\n", 8), "discover"); code != 0 {
		t.Fatalf("vdirsyncer discover from %s/: exit %d\n%s", d.base, code, out)
	}
	if st, err := os.Stat(events); err != nil || !st.IsDir() {
		t.Fatalf("vdirsyncer discover made no folder %s for the events collection: %v", events, err)
	}
	sync(t)

	t.Run("the model's event in khal", func(t *testing.T) {
		got := khal(t)
		for _, want := range []string{"2026-10-08 19:30 Dinner with Sam", "2026-10-06 11:00 Call the bank", "2026-10-05 07:00 Gym"} {
			if !strings.Contains(got, want) {
				t.Errorf("khal list after vdirsyncer sync lacks “%s” (added with add_event):\n%s\nadd_event said: %s", want, got, added.Out)
			}
		}
	})

	t.Run("the folder's event in list_events", func(t *testing.T) {
		writeFile(t, filepath.Join(events, "phone-7c2e.ics"), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//a phone//EN\r\n"+
			"BEGIN:VEVENT\r\nUID:phone-7c2e@e2e.example\r\nDTSTAMP:20261004T100000Z\r\n"+
			"DTSTART;TZID=Europe/Paris:20261009T100000\r\nDTEND;TZID=Europe/Paris:20261009T104500\r\n"+
			"SUMMARY:Haircut\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
		// And a task into the folder of the tasks collection.
		writeFile(t, filepath.Join(folder, "tasks", "phone-todo-19f0.ics"), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//a phone//EN\r\n"+
			"BEGIN:VTODO\r\nUID:phone-todo-19f0@e2e.example\r\nDTSTAMP:20261004T100000Z\r\n"+
			"DUE;TZID=Europe/Paris:20261010T120000\r\nSUMMARY:Buy a present\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")
		sync(t)
		if got := d.tasks(t, "alice", "open"); len(got) != 1 || got[0].Title != "Buy a present" || utcOf(t, got[0].DueAt) != "2026-10-10T10:00:00Z" {
			t.Errorf("list_tasks after syncing the folder's task: %+v, want “Buy a present” due 10:00Z on 10 October", got)
		}
		var found []string
		for _, o := range d.events(t, "alice", "2026-10-05", "2026-10-11") {
			if o.Title == "Haircut" {
				found = append(found, utcOf(t, o.Start)+"–"+utcOf(t, o.End))
			}
		}
		if want := "2026-10-09T08:00:00Z–2026-10-09T08:45:00Z"; len(found) != 1 || found[0] != want {
			t.Errorf("list_events after syncing the folder's Haircut shows it at %v, want once at %s", found, want)
		}
		// The change list names the client, so the model can say what the
		// phone changed.
		if ch := d.changes(t, "alice"); !strings.Contains(ch, "Haircut") || !strings.Contains(ch, "vdirsyncer") {
			t.Errorf("list_changes after the sync does not name vdirsyncer's add of the haircut:\n%s", ch)
		}
		if got := khal(t); !strings.Contains(got, "2026-10-09 10:00 Haircut") || !strings.Contains(got, "Dinner with Sam") {
			t.Errorf("khal list after the second sync lacks the haircut or the dinner:\n%s", got)
		}
		// The server stored the haircut in its own words, so it sent no
		// ETag for the PUT (RFC 4791 §5.3.4) and the next sync fetches
		// what it keeps, of the task too; that sync copies nothing else: the ETags of the
		// tool's events hold still between requests.
		out := sync(t)
		for _, l := range strings.Split(out, "\n") {
			if (strings.Contains(l, "Copying") || strings.Contains(l, "Deleting")) &&
				!strings.Contains(l, "Copying (updating) item phone-7c2e@e2e.example to alice_local") &&
				!strings.Contains(l, "Copying (updating) item phone-todo-19f0@e2e.example to alice_local") {
				t.Errorf("a sync with nothing changed but the stored form of the haircut and the task moved more, so some ETag changes by itself:\n%s", out)
				break
			}
		}
	})

	t.Run("deletes both ways", func(t *testing.T) {
		if err := os.Remove(filepath.Join(events, "phone-7c2e.ics")); err != nil {
			t.Fatal(err)
		}
		var b struct{ Event struct{ ID string } }
		if err := json.Unmarshal(bank.Data, &b); err != nil || b.Event.ID == "" {
			t.Fatalf("add_event data %s: %v", bank.Data, err)
		}
		d.call(t, "alice", "delete_event", "id="+b.Event.ID)
		sync(t)
		for _, o := range d.events(t, "alice", "2026-10-05", "2026-10-11") {
			if o.Title == "Haircut" {
				t.Errorf("list_events still shows the haircut deleted from the folder and synced: %+v", o)
			}
		}
		if got := khal(t); strings.Contains(got, "Call the bank") || strings.Contains(got, "Haircut") || !strings.Contains(got, "Dinner with Sam") {
			t.Errorf("khal list after syncing the deletes, want the dinner alone:\n%s", got)
		}
	})

	t.Run("two edits of the folder with a sync between are no conflict", func(t *testing.T) {
		// A task and an event with reminders: the server writes their
		// VALARMs itself, and a folder edit of the title sends them back
		// as read. Stored in the server's words, the object must still be
		// what vdirsyncer sent but for what it ignores, or the next local
		// edit meets a server that seems changed too.
		d.call(t, "alice", "add_task", "title=Water plants", "due=2026-10-09T09:00", "remind_before=30")
		d.call(t, "alice", "add_event", "title=Piano", "start=2026-10-07T17:00", "duration=45", "remind_before=10")
		sync(t)
		edit := func(dir, from, to string) {
			t.Helper()
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				name := filepath.Join(dir, e.Name())
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), "SUMMARY:"+from+"\r\n") {
					writeFile(t, name, strings.Replace(string(b), "SUMMARY:"+from+"\r\n", "SUMMARY:"+to+"\r\n", 1))
					return
				}
			}
			t.Fatalf("no file of %s holds %q", dir, from)
		}
		edit(filepath.Join(folder, "tasks"), "Water plants", "Water the plants")
		edit(events, "Piano", "Piano lesson")
		sync(t)
		edit(filepath.Join(folder, "tasks"), "Water the plants", "Water all plants")
		edit(events, "Piano lesson", "Piano lesson, room 2")
		if code, out := vdirsyncer(t, "", "sync"); code != 0 || strings.Contains(strings.ToLower(out), "conflict") || strings.Contains(out, "both sides") {
			t.Fatalf("the second edit's sync: exit %d\n%s", code, out)
		}
		if got := d.tasks(t, "alice", "open"); !slices.ContainsFunc(got, func(x task) bool { return x.Title == "Water all plants" }) {
			t.Errorf("list_tasks after two synced edits: %+v, want “Water all plants”", got)
		}
		var titles []string
		for _, o := range d.events(t, "alice", "2026-10-07", "2026-10-07") {
			titles = append(titles, o.Title)
		}
		if !slices.Contains(titles, "Piano lesson, room 2") {
			t.Errorf("list_events of 7 October after two synced edits: %q", titles)
		}
	})

	t.Run("a conflict is reported and both writes are kept", func(t *testing.T) {
		var local string
		entries, err := os.ReadDir(events)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(events, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "SUMMARY:Dinner with Sam") {
				local = filepath.Join(events, e.Name())
			}
		}
		if local == "" {
			t.Fatalf("no file of %s holds the dinner", events)
		}
		b, err := os.ReadFile(local)
		if err != nil {
			t.Fatal(err)
		}
		// The phone side: a new file put in place of the old, as editors
		// write.
		edited := strings.Replace(string(b), "SUMMARY:Dinner with Sam", "SUMMARY:Dinner at home", 1)
		writeFile(t, local+".tmp", edited)
		if err := os.Rename(local+".tmp", local); err != nil {
			t.Fatal(err)
		}
		// The model's side.
		var id string
		for _, o := range d.events(t, "alice", "2026-10-08", "2026-10-08") {
			if o.Title == "Dinner with Sam" {
				id = o.Series
			}
		}
		if id == "" {
			t.Fatal("list_events of 8 October shows no dinner with Sam")
		}
		d.call(t, "alice", "update_event", "id="+id, "title=Dinner with Sam and Alex")

		code, out := vdirsyncer(t, "", "sync")
		if code == 0 {
			t.Errorf("vdirsyncer sync of an event changed on both sides exited 0, want the conflict reported:\n%s", out)
		}
		if !strings.Contains(strings.ToLower(out), "conflict") && !strings.Contains(out, "changed on both sides") {
			t.Errorf("vdirsyncer sync did not name the conflict:\n%s", out)
		}
		var titles []string
		for _, o := range d.events(t, "alice", "2026-10-08", "2026-10-08") {
			titles = append(titles, o.Title)
		}
		if len(titles) != 1 || titles[0] != "Dinner with Sam and Alex" {
			t.Errorf("after the conflict list_events of 8 October shows %q, want the tool's “Dinner with Sam and Alex” alone", titles)
		}
		b, err = os.ReadFile(local)
		if err != nil {
			t.Fatalf("the local file of the dinner is gone after the conflict: %v", err)
		}
		if !strings.Contains(string(b), "SUMMARY:Dinner at home") {
			t.Errorf("after the conflict the local file no longer holds the local edit “Dinner at home”:\n%s", b)
		}
	})
}

// writeFile writes text to path or fails the test.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
