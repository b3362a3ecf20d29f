package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// `person set-zone` is a journaled change like set_time_zone (new-user
// finding 2): the printed undo command puts the zone back, and undo right
// after it never reaches past it to the task added before.
func TestPersonSetZoneUndo(t *testing.T) { storetest.Engines(t, testPersonSetZoneUndo) }

func testPersonSetZoneUndo(t *testing.T) {
	h := newHome(t)
	h.must("call", "add_task", "title=Milk")
	r := h.must("person", "set-zone", "Asia/Tokyo")
	if r.stdout != "tester is now in Asia/Tokyo (was Europe/Paris). Change c2; `assistant call undo change=c2` puts Europe/Paris back.\n" {
		t.Fatalf("set-zone: %s", r)
	}
	if r = h.must("person", "set-zone", "Asia/Tokyo"); r.stdout != "tester is already in Asia/Tokyo; nothing changed.\n" {
		t.Fatalf("set-zone to the same zone: %s", r)
	}
	if r = h.must("call", "list_changes"); !strings.Contains(r.stdout, "person set-zone: time zone Europe/Paris → Asia/Tokyo") {
		t.Fatalf("list_changes: %s", r)
	}
	if r = h.must("call", "undo"); !strings.Contains(r.stdout, "Undid c2 (person set-zone)") {
		t.Fatalf("undo: %s", r)
	}
	if r = h.must("person", "list"); !regexp.MustCompile(`tester \(local\)\s+Europe/Paris`).MatchString(r.stdout) {
		t.Fatalf("zone after undo:\n%s", r.stdout)
	}
	if r = h.must("call", "list_tasks"); !strings.Contains(r.stdout, "Milk") {
		t.Fatalf("the task went with the zone's undo: %s", r)
	}

	// Another person's zone: the printed command acts as them, and the
	// local person's undo cannot reach it.
	h.must("person", "add", "alice", "--zone", "Europe/Paris")
	r = h.must("person", "set-zone", "alice", "America/New_York")
	if !strings.Contains(r.stdout, "`assistant --person alice call undo change=c4` puts Europe/Paris back") {
		t.Fatalf("set-zone alice: %s", r)
	}
	if r = h.run("call", "undo", "change=c4"); r.code != 4 {
		t.Fatalf("tester undoing alice's change: want exit 4, got %s", r)
	}
	h.must("--person", "alice", "call", "undo", "change=c4")
	if r = h.must("person", "list"); !regexp.MustCompile(`alice\s+Europe/Paris`).MatchString(r.stdout) {
		t.Fatalf("alice's zone after her undo:\n%s", r.stdout)
	}
}

// A person's name is a value like any other: a blank or overlong one is
// refused with its sentence and exit 1, and nothing is stored.
func TestPersonNameRefused(t *testing.T) { storetest.Engines(t, testPersonNameRefused) }

func testPersonNameRefused(t *testing.T) {
	h := newHome(t)
	for _, name := range []string{"", "   ", strings.Repeat("n", 65)} {
		r := h.run("person", "add", name, "--zone", "Europe/Paris")
		if r.code != 1 || !strings.Contains(r.stderr, "“name”") {
			t.Errorf("person add %q: want exit 1 naming “name”, got %s", name, r)
		}
	}
	if r := h.must("person", "list"); strings.Contains(r.stdout, "nnnn") {
		t.Errorf("a refused person was stored:\n%s", r.stdout)
	}
	if r := h.run("person", "delete", "nobody", "--yes"); r.code != 4 || strings.Contains(r.stderr, "add them") {
		t.Errorf("person delete nobody: want exit 4 without advice to add them, got %s", r)
	}
}

// `person add NAME --tz ZONE` stores the person in that zone, as --zone
// does (and says so), either flag before or after the command; --zone and
// --tz naming different zones are refused and nothing is added.
func TestPersonAddTakesTZ(t *testing.T) { storetest.Engines(t, testPersonAddTakesTZ) }

func testPersonAddTakesTZ(t *testing.T) {
	h := newHome(t) // TZ=Europe/Paris: the local default
	if r := h.must("person", "add", "bob", "--tz", "America/New_York"); !strings.Contains(r.stdout, "Added bob (person 1) in America/New_York.") {
		t.Fatalf("person add --tz: %s", r)
	}
	h.must("--tz", "Asia/Tokyo", "person", "add", "carol")
	h.must("person", "add", "dave", "--tz", "Europe/Paris", "--zone", "Europe/Paris")
	if r := h.run("person", "add", "erin", "--tz", "Asia/Tokyo", "--zone", "Europe/Paris"); r.code != 2 || !strings.Contains(r.stderr, "--zone and --tz name different zones") {
		t.Errorf("--zone and --tz apart: want exit 2 and the sentence, got %s", r)
	}
	r := h.must("person", "list")
	for _, want := range []string{`bob\s+America/New_York`, `carol\s+Asia/Tokyo`, `dave\s+Europe/Paris`} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("person list lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "erin") {
		t.Errorf("erin was added:\n%s", r.stdout)
	}
}

// A person missing from a database named with --db (as an MCP client's
// config does) gets a hint that names that database, and the hint run as
// written makes the next start work.
func TestMissingPersonHintNamesTheDB(t *testing.T) {
	h := newHome(t)
	db := filepath.Join(h.dir, "alice dir", "assistant.db")
	// A folder of its own, made first: a --db whose folder is missing is
	// refused (TestDatabaseLocationWords).
	if err := os.Mkdir(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	r := h.run("mcp", "--person", "alice", "--db", db)
	want := "add them with `assistant --db '" + db + "' person add alice --zone Area/City`"
	if r.code != 4 || !strings.Contains(r.stderr, want) {
		t.Fatalf("want exit 4 and %q, got %s", want, r)
	}
	h.must("--db", db, "person", "add", "alice", "--zone", "Europe/Paris")
	if r := h.run("mcp", "--person", "alice", "--db", db); r.code != 0 {
		t.Fatalf("after the hint: %s", r)
	}
	// Without --db the hint needs none.
	if r := h.run("call", "list_tasks", "--person", "bob"); r.code != 4 || !strings.Contains(r.stderr, "`assistant person add bob --zone Area/City`") {
		t.Errorf("without --db: %s", r)
	}
}

// A person's name and a token's label are one-line texts like a title:
// invisible format characters are dropped (so "bo\u200bb" is bob, found
// by --person bob), and text that is not valid UTF-8 is refused naming
// the argument, never stored as U+FFFD or as the raw byte.
func TestNamesAndLabelsAreCleanText(t *testing.T) {
	storetest.Engines(t, testNamesAndLabelsAreCleanText)
}

func testNamesAndLabelsAreCleanText(t *testing.T) {
	h := newHome(t)
	if r := h.must("person", "add", "bo\u200bb\ufeff", "--zone", "Europe/Paris"); !strings.Contains(r.stdout, "Added bob ") {
		t.Fatalf("person add bo\\u200bb: %s", r)
	}
	if r := h.run("person", "add", "bob", "--zone", "Europe/Paris"); r.code != 5 {
		t.Errorf("person add bob after bo\\u200bb: want exit 5 (taken), got %s", r)
	}
	h.must("--person", "b\u2060ob", "call", "add_task", "title=Milk")
	if r := h.must("--person", "bob", "call", "list_tasks"); !strings.Contains(r.stdout, "Milk") {
		t.Errorf("--person b\\u2060ob did not act as bob: %s", r)
	}
	r := h.run("person", "add", "bo\xffb", "--zone", "Europe/Paris")
	if r.code != 1 || !strings.Contains(r.stderr, "“name” is not valid UTF-8") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Errorf("person add bo\\xffb: want exit 1 and one line naming “name”, got %s", r)
	}
	r = h.run("token", "create", "--person", "bob", "--label", "x\xff")
	if r.code != 1 || !strings.Contains(r.stderr, "“label” is not valid UTF-8") || strings.Contains(r.stdout, "ast_") {
		t.Errorf("token create --label x\\xff: want exit 1 naming “label” and no token, got %s", r)
	}
	if r = h.run("token", "create", "--person", "bob", "--label", strings.Repeat("l", 101)); r.code != 1 || !strings.Contains(r.stderr, "at most 100") {
		t.Errorf("token create with a 101-character label: want exit 1, got %s", r)
	}
	h.must("token", "create", "--person", "bob", "--label", "lap\u200btop")
	r = h.must("person", "list")
	if strings.Contains(r.stdout, "\ufffd") || strings.Contains(r.stdout, "\xff") || strings.Contains(r.stdout, "\u200b") {
		t.Errorf("person list holds a refused or invisible character:\n%q", r.stdout)
	}
	r = h.must("token", "list")
	if !strings.Contains(r.stdout, "laptop") || strings.Count(r.stdout, "ast_") != 1 {
		t.Errorf("token list: want one token labelled laptop, got:\n%q", r.stdout)
	}
}
