package e2e

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files: docs/tools.md from `assistant tools --markdown`, testdata/wire/*.txtar from what crossed the wire")

// commandPaths lists every command of the tree, as argument lists, read
// from the binary's own help: the "Available Commands:" section of
// `assistant … --help`, walked down from the root (cobra's help and
// completion commands included).
func commandPaths(h *home) [][]string {
	h.t.Helper()
	var out [][]string
	var walk func(path []string)
	walk = func(path []string) {
		out = append(out, path)
		r := h.run(append(append([]string(nil), path...), "--help")...)
		if r.code != 0 {
			h.t.Fatalf("assistant %s --help: %s", strings.Join(path, " "), r)
		}
		for _, name := range subcommands(r.stdout) {
			walk(append(append([]string(nil), path...), name))
		}
	}
	walk(nil)
	return out
}

// subcommands reads the names listed under "Available Commands:" in a
// cobra help text.
func subcommands(help string) []string {
	var names []string
	inside := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.TrimSpace(line) == "Available Commands:":
			inside = true
		case inside && strings.TrimSpace(line) == "":
			inside = false
		case inside:
			if f := strings.Fields(line); len(f) > 0 {
				names = append(names, f[0])
			}
		}
	}
	return names
}

func TestEveryHelpExitsZero(t *testing.T) {
	h := newHome(t)
	paths := commandPaths(h)
	if len(paths) < 20 {
		t.Fatalf("only %d commands found; the tree is not built", len(paths))
	}
	for _, p := range paths {
		t.Run(strings.Join(append([]string{"assistant"}, p...), " "), func(t *testing.T) {
			r := h.run(append(p, "--help")...)
			if r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
				t.Fatalf("want exit 0 with a usage text, got %s", r)
			}
		})
	}
	if _, err := os.Stat(h.dbPath()); err == nil {
		t.Errorf("--help created the database %s", h.dbPath())
	}
}

func TestUsageErrorsExitTwoWithOneLine(t *testing.T) {
	h := newHome(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag: --nope"},
		{[]string{"call", "list_changes", "--nope"}, "unknown flag: --nope"},
		{[]string{"person", "list", "--zone"}, "unknown flag: --zone"},
		{[]string{"token", "create", "--label"}, "“--label” needs a value after it"},
		{[]string{"mcp", "--read-only=maybe"}, "“--read-only” must be true or false, not “maybe”"},
		{[]string{"bogus"}, "unknown command “bogus”"},
		{[]string{"chta"}, "did you mean “chat”"},
		{[]string{"person", "bogus"}, "unknown command “bogus” for “assistant person”"},
		{[]string{"call"}, "needs a tool name"},
		{[]string{"person", "add"}, "takes one name"},
		{[]string{"person", "delete", "someone"}, "add --yes to confirm"},
		{[]string{"purge"}, "“--older-than” is required"},
		{[]string{"tools", "a", "b"}, "at most one tool name"},
		{[]string{"call", "list_changes", "limit"}, "is not name=value"},
		{[]string{"call", "undo", "change=c1", "change=c2"}, "“change” is given twice"},
		{[]string{"call", "list_changes", "--args", "[1]"}, "must be one JSON object"},
		{[]string{"mcp", "--tools", "no_such_tool"}, "no tool or group “no_such_tool”"},
		{[]string{"version", "extra"}, "“assistant version” takes no arguments, so “extra” is one too many"},
		{[]string{"migrate", "up", "now"}, "“assistant migrate up” takes no arguments"},
		{[]string{"chat", "hello"}, "“assistant chat” takes no arguments"},
		{[]string{"completion", "tcsh"}, "unknown command “tcsh” for “assistant completion”; use one of bash, fish, powershell, zsh"},
		{[]string{"purge", "--older-than", "0d"}, "also removes the undo history of the last 7 days"},
		{[]string{"purge", "--older-than", "36h"}, "add --yes to confirm"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := h.run(c.args...)
			if r.code != 2 {
				t.Fatalf("want exit 2, got %s", r)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "assistant: ") || !strings.Contains(lines[0], c.want) ||
				strings.Contains(lines[0], `unknown command "`) || strings.Contains(lines[0], "arg(s)") ||
				strings.Contains(lines[0], "strconv.") {
				t.Fatalf("want one line “assistant: …%s…” on stderr, got %q", c.want, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("a usage error printed on stdout: %q", r.stdout)
			}
		})
	}
}

func TestCallUnknownToolListsTools(t *testing.T) {
	h := newHome(t)
	names := catalog.New().Names()
	r := h.run("call", "list_chnages")
	if r.code != 1 {
		t.Fatalf("want exit 1, got %s", r)
	}
	if !strings.Contains(r.stderr, "There is no tool “list_chnages”") {
		t.Errorf("stderr does not say the tool is unknown: %q", r.stderr)
	}
	for _, n := range names {
		if !strings.Contains(r.stderr, n) {
			t.Errorf("stderr does not list the tool %s: %q", n, r.stderr)
		}
	}
	if _, err := os.Stat(h.dbPath()); err == nil {
		t.Errorf("an unknown tool opened (and created) the database")
	}
	// --json gives the same answer as a result object.
	r = h.run("call", "nope", "--json")
	var res struct {
		Code int    `json:"code"`
		Err  string `json:"err"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 1 || res.Code != 1 || res.Err == "" {
		t.Fatalf("want a JSON result with code 1 and a sentence, got %v: %s", err, r)
	}
}

func TestCallRunsToolsAndExitsWithTheirCode(t *testing.T) {
	storetest.Engines(t, testCallRunsToolsAndExitsWithTheirCode)
}

func testCallRunsToolsAndExitsWithTheirCode(t *testing.T) {
	if _, ok := catalog.New().Get("list_changes"); !ok {
		t.Skip("list_changes is not registered in this build")
	}
	h := newHome(t)
	r := h.must("call", "list_changes", "limit=5")
	if strings.TrimSpace(r.stdout) == "" {
		t.Errorf("list_changes printed nothing")
	}

	// A number that does not read as one reaches Args as text, which
	// answers with its own sentence naming the argument; exit 1.
	r = h.run("call", "list_changes", "limit=abc")
	if r.code != 1 || !strings.Contains(r.stderr, "“limit”") || r.stdout != "" {
		t.Fatalf("want exit 1 with a sentence naming “limit” on stderr, got %s", r)
	}
	// "5" from standard input and from --args, and a JSON number alike.
	for _, args := range [][]string{
		{"call", "list_changes", "-"},
		{"call", "list_changes", "--args", "-"},
	} {
		r = h.runIn(`{"limit": 5}`, args...)
		if r.code != 0 {
			t.Errorf("%v: %s", args, r)
		}
	}
	r = h.must("call", "list_changes", "--args", `{"limit":"5"}`)

	r = h.must("call", "list_changes", "limit=5", "--json")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("--json printed no JSON: %v\n%s", err, r.stdout)
	}
	if res["code"] != float64(0) || res["data"] == nil {
		t.Errorf("--json: want code 0 and data, got %v", res)
	}

	// Undo with nothing to undo is the tool's failure, with its code.
	r = h.run("call", "undo", "change=c999")
	if r.code == 0 || r.code == 2 || r.stderr == "" {
		t.Errorf("undo of a change that does not exist: want the tool's failure code, got %s", r)
	}
}

func TestPersonFlow(t *testing.T) { storetest.Engines(t, testPersonFlow) }

func testPersonFlow(t *testing.T) {
	h := newHome(t)
	r := h.must("person", "list")
	if strings.Contains(r.stdout, "tester") {
		t.Fatalf("person list made the local person: %s", r.stdout)
	}
	// The first command that acts as someone makes the local person in the
	// first-run zone (TZ=Europe/Paris here).
	h.must("token", "create")
	r = h.must("person", "list")
	if !regexp.MustCompile(`tester \(local\)\s+Europe/Paris`).MatchString(r.stdout) {
		t.Fatalf("want the local person tester in Europe/Paris, got:\n%s", r.stdout)
	}

	h.must("person", "add", "alice", "--zone", "america/new_york")
	r = h.run("person", "add", "alice")
	if r.code != 5 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("adding a taken name: want exit 5, got %s", r)
	}
	r = h.run("person", "add", "bob", "--zone", "Europe/Pari")
	if r.code != 1 || !strings.Contains(r.stderr, "Europe/Paris") {
		t.Fatalf("a misspelt zone: want exit 1 with a suggestion, got %s", r)
	}
	h.must("person", "set-zone", "alice", "Asia/Tokyo")
	h.must("--person", "tester", "person", "set-zone", "UTC")
	r = h.must("person", "list")
	for _, want := range []string{`alice\s+Asia/Tokyo`, `tester \(local\)\s+UTC`} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("person list: want %s, got:\n%s", want, r.stdout)
		}
	}
	r = h.run("person", "set-zone", "nobody", "UTC")
	if r.code != 4 {
		t.Errorf("set-zone of an unknown person: want exit 4, got %s", r)
	}
	r = h.run("person", "delete", "alice")
	if r.code != 2 {
		t.Fatalf("delete without --yes: want exit 2, got %s", r)
	}
	h.must("person", "delete", "alice", "--yes")
	if r = h.must("person", "list"); strings.Contains(r.stdout, "alice") {
		t.Errorf("alice is still listed:\n%s", r.stdout)
	}
	if r = h.run("person", "delete", "alice", "--yes"); r.code != 4 {
		t.Errorf("deleting a deleted person: want exit 4, got %s", r)
	}
	// A --person that does not exist is not made on the fly.
	if _, ok := catalog.New().Get("list_changes"); ok {
		r = h.run("--person", "carol", "call", "list_changes")
		if r.code != 4 || !strings.Contains(r.stderr, "person add carol") {
			t.Errorf("acting as an unknown person: want exit 4 saying how to add them, got %s", r)
		}
	}
}

func TestTokenFlow(t *testing.T) { storetest.Engines(t, testTokenFlow) }

func testTokenFlow(t *testing.T) {
	h := newHome(t)
	h.must("person", "add", "alice", "--zone", "Europe/Paris")
	r := h.must("token", "create", "--person", "alice", "--label", "laptop")
	tok := strings.TrimSpace(r.stdout)
	if !regexp.MustCompile(`^ast_[a-z2-7]{40,}$`).MatchString(tok) {
		t.Fatalf("token create: want the token alone on stdout, got %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "only this once") {
		t.Errorf("token create does not say the token is shown once: %q", r.stderr)
	}
	r = h.must("token", "list")
	if strings.Contains(r.stdout, tok) {
		t.Fatalf("token list shows the whole token")
	}
	if !strings.Contains(r.stdout, tok[:12]) || !strings.Contains(r.stdout, "laptop") || !strings.Contains(r.stdout, "alice") {
		t.Fatalf("token list: want the prefix, label and person, got:\n%s", r.stdout)
	}
	if r = h.run("token", "create", "--person", "nobody"); r.code != 4 {
		t.Errorf("a token for an unknown person: want exit 4, got %s", r)
	}
	h.must("token", "revoke", "1")
	if r = h.must("token", "list"); !strings.Contains(r.stdout, "revoked") {
		t.Errorf("the revoked token is not shown as revoked:\n%s", r.stdout)
	}
	if r = h.run("token", "revoke", "99"); r.code != 4 {
		t.Errorf("revoking an unknown token: want exit 4, got %s", r)
	}
}

func TestMigrateAndVersion(t *testing.T) {
	h := newHome(t)
	r := h.must("version")
	for _, want := range []string{"assistant ", "not created yet", h.dbPath(), "config.toml (none)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("version: want %q in:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(h.dbPath()); err == nil {
		t.Fatalf("version created the database")
	}
	r = h.must("migrate", "status")
	if !strings.Contains(r.stdout, "schema version: 0") || !strings.Contains(r.stdout, "pending") {
		t.Fatalf("migrate status on a new file: want version 0 and pending migrations, got:\n%s", r.stdout)
	}
	r = h.must("migrate", "up")
	if !strings.Contains(r.stdout, "Migrated from schema version 0") {
		t.Fatalf("migrate up: got:\n%s", r.stdout)
	}
	r = h.must("migrate", "up")
	if !strings.Contains(r.stdout, "Up to date") {
		t.Errorf("a second migrate up: got:\n%s", r.stdout)
	}
	r = h.must("migrate", "status")
	if strings.Contains(r.stdout, "pending") || strings.Contains(r.stdout, "schema version: 0") {
		t.Errorf("migrate status after up:\n%s", r.stdout)
	}
	r = h.must("version")
	if strings.Contains(r.stdout, "not created yet") || !regexp.MustCompile(`schema:\s+[1-9]`).MatchString(r.stdout) {
		t.Errorf("version after migrating:\n%s", r.stdout)
	}

	// A database that cannot be opened: exit 8.
	blocker := filepath.Join(h.dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r = h.run("--db", filepath.Join(blocker, "db.sqlite"), "person", "list"); r.code != 8 {
		t.Errorf("an unusable database path: want exit 8, got %s", r)
	}
	if r = h.run("purge", "--older-than", "3 months"); r.code != 1 {
		t.Errorf("purge with a bad age: want exit 1, got %s", r)
	}
	if r = h.must("purge", "--older-than", "90d"); !strings.Contains(r.stdout, "Purged") {
		t.Errorf("purge: got %s", r)
	}
}

func TestSettingsPrecedence(t *testing.T) {
	h := newHome(t)
	conf := filepath.Join(h.dir, "config", "assistant", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		t.Fatal(err)
	}
	fromFile := filepath.Join(h.dir, "file.db")
	fromEnv := filepath.Join(h.dir, "env.db")
	fromFlag := filepath.Join(h.dir, "flag.db")
	err := os.WriteFile(conf, []byte("db = \""+fromFile+"\"\nperson = \"zed\"\nzone = \"America/New_York\"\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	dbLine := func(r result) string {
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "database:") {
				return strings.TrimSpace(strings.TrimPrefix(l, "database:"))
			}
		}
		return ""
	}
	if got := dbLine(h.must("version")); got != fromFile {
		t.Errorf("config file: database %q, want %q", got, fromFile)
	}
	h.env["ASSISTANT_DB"] = fromEnv
	if got := dbLine(h.must("version")); got != fromEnv {
		t.Errorf("environment over config: database %q, want %q", got, fromEnv)
	}
	if got := dbLine(h.must("--db", fromFlag, "version")); got != fromFlag {
		t.Errorf("flag over environment: database %q, want %q", got, fromFlag)
	}

	// The config names the local person and their first-run zone, over
	// $USER and TZ.
	h.must("token", "create")
	r := h.must("person", "list")
	if !regexp.MustCompile(`zed \(local\)\s+America/New_York`).MatchString(r.stdout) {
		t.Errorf("want the local person zed in America/New_York from the config, got:\n%s", r.stdout)
	}

	// An unknown key warns; a broken file is exit 10 with its path.
	if err := os.WriteFile(conf, []byte("colour = \"blue\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r = h.must("version"); !strings.Contains(r.stderr, "colour") {
		t.Errorf("an unknown config key gave no warning: %q", r.stderr)
	}
	if err := os.WriteFile(conf, []byte("db = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r = h.run("version"); r.code != 10 || !strings.Contains(r.stderr, conf) {
		t.Errorf("a broken config file: want exit 10 naming it, got %s", r)
	}
	if r = h.run("--config", filepath.Join(h.dir, "missing.toml"), "version"); r.code != 10 {
		t.Errorf("a named config file that is missing: want exit 10, got %s", r)
	}
	os.Remove(conf)

	// A TOML slip names the file and line; a bad value names the key and
	// the file, not the flag.
	for _, c := range []struct{ body, want string }{
		{"db = \"x.db\"\nperson = alice\n", "“" + conf + "” is not valid TOML at line 2: text needs double quotes, so write person = \"alice\""},
		{"[chat\n", "“" + conf + "” is not valid TOML at line 1, column"},
		{"log_level = \"loud\"\n", "“log_level” in the config file “" + conf + "” must be debug, info, warn or error, not “loud”"},
	} {
		if err := os.WriteFile(conf, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if r = h.run("version"); r.code != 10 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "--log-level") {
			t.Errorf("config %q: want exit 10 saying %q, got %s", c.body, c.want, r)
		}
	}
	os.Remove(conf)

	// Bad settings from the environment are exit 10 too, and name the
	// variable.
	for k, v := range map[string]string{"ASSISTANT_NOW": "tomorrow", "ASSISTANT_TZ": "Mars/Olympus", "ASSISTANT_LOG": "loud"} {
		old := h.env[k]
		h.env[k] = v
		if r = h.run("version"); r.code != 10 || !strings.Contains(r.stderr, v) || !strings.Contains(r.stderr, k) || strings.Contains(r.stderr, "“--") {
			t.Errorf("%s=%s: want exit 10 naming the variable and the value, got %s", k, v, r)
		}
		h.env[k] = old
		if old == "" {
			delete(h.env, k)
		}
	}
}

func TestTZOverridesWithoutStoring(t *testing.T) { storetest.Engines(t, testTZOverridesWithoutStoring) }

func testTZOverridesWithoutStoring(t *testing.T) {
	if _, ok := catalog.New().Get("list_changes"); !ok {
		t.Skip("no tool that acts as the person is registered in this build")
	}
	h := newHome(t)
	r := h.must("--tz", "Asia/Tokyo", "--log-level", "debug", "call", "list_changes")
	if !strings.Contains(r.stderr, "zone=Asia/Tokyo") {
		t.Errorf("--tz did not set the zone of the run; stderr:\n%s", r.stderr)
	}
	h.env["ASSISTANT_TZ"] = "America/Sao_Paulo"
	r = h.must("--log-level", "debug", "call", "list_changes")
	if !strings.Contains(r.stderr, "zone=America/Sao_Paulo") {
		t.Errorf("ASSISTANT_TZ did not set the zone of the run; stderr:\n%s", r.stderr)
	}
	delete(h.env, "ASSISTANT_TZ")
	r = h.must("person", "list")
	if !regexp.MustCompile(`tester \(local\)\s+Europe/Paris`).MatchString(r.stdout) {
		t.Errorf("the override was stored; want Europe/Paris, got:\n%s", r.stdout)
	}
}

func TestToolsCommand(t *testing.T) {
	h := newHome(t)
	reg := catalog.New()
	r := h.must("tools")
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(reg.Names()) > 0 && len(lines) != len(reg.Names()) {
		t.Errorf("tools: want one line per tool (%d), got %d:\n%s", len(reg.Names()), len(lines), r.stdout)
	}
	for i, n := range reg.Names() {
		if i < len(lines) && !strings.HasPrefix(lines[i], n+" ") {
			t.Errorf("line %d: want it to start with %s, got %q", i+1, n, lines[i])
		}
	}
	for _, n := range reg.Names() {
		r = h.must("tools", n)
		var v struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Name != n || v.InputSchema["type"] != "object" {
			t.Errorf("tools %s: want its JSON with an object inputSchema, got %v:\n%s", n, err, r.stdout)
		}
	}
	if r = h.run("tools", "no_such_tool"); r.code != 1 {
		t.Errorf("tools with an unknown name: want exit 1, got %s", r)
	}
}

func TestToolsMarkdownMatchesReadme(t *testing.T) {
	h := newHome(t)
	got := h.must("tools", "--markdown").stdout
	path := filepath.Join("..", "docs", "tools.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; write it with: go test ./e2e -run TestToolsMarkdownMatchesReadme -update", err)
	}
	if string(want) != got {
		t.Fatalf("%s is not what `assistant tools --markdown` writes; regenerate it with:\n"+
			"  go test ./e2e -run TestToolsMarkdownMatchesReadme -update", path)
	}
}

func TestCLIReadmeQuickstart(t *testing.T) {
	runQuickstart(t, filepath.Join("..", "docs", "cli.md"))
}

func TestQuickstartBlocks(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "x.md")
	text := "intro\n```sh\nnot this\n```\n<!-- quickstart -->\ntext\n```sh\na 1\nb 2\n```\n```go\nnot go\n```\n```bash\nc\n```\n<!-- /quickstart -->\n```sh\nnor this\n```\n"
	if err := os.WriteFile(md, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := quickstartBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a 1\nb 2\n", "c\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := os.WriteFile(md, []byte("<!-- quickstart -->\n```sh\nx\n```\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := quickstartBlocks(md); err == nil {
		t.Errorf("an unclosed quickstart marker was accepted")
	}
}

func TestCallTypingEndToEnd(t *testing.T) { storetest.Engines(t, testCallTypingEndToEnd) }

func testCallTypingEndToEnd(t *testing.T) {
	if _, ok := catalog.New().Get("add_task"); !ok {
		t.Skip("add_task is not registered in this build")
	}
	h := newHome(t)
	type task struct {
		Title    string   `json:"title"`
		Priority int      `json:"priority"`
		Tags     []string `json:"tags"`
	}
	added := func(args ...string) task {
		t.Helper()
		r := h.must(append(append([]string{"call", "add_task"}, args...), "--json")...)
		var res struct {
			Code int `json:"code"`
			Data struct {
				Task task `json:"task"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("add_task --json: %v\n%s", err, r.stdout)
		}
		return res.Data.Task
	}
	if got := added("title=42", "priority=2", "tags=a", "tags=b"); got.Title != "42" || got.Priority != 2 || strings.Join(got.Tags, ",") != "a,b" {
		t.Errorf("title=42 priority=2 tags=a tags=b: got %+v", got)
	}
	if got := added("title=true", `tags=["x","y"]`); got.Title != "true" || strings.Join(got.Tags, ",") != "x,y" {
		t.Errorf(`title=true tags='["x","y"]': got %+v`, got)
	}
	if got := added("title=One tag", "tags=home"); strings.Join(got.Tags, ",") != "home" {
		t.Errorf("tags=home: got %+v", got)
	}
	r := h.run("call", "add_task", "title=x", "priority=high")
	if r.code != 1 || !strings.Contains(r.stderr, "“priority”") {
		t.Errorf("priority=high: want exit 1 with a sentence naming “priority”, got %s", r)
	}
	// Plain text output, then undo through the journal.
	r = h.must("call", "list_tasks")
	if !strings.Contains(r.stdout, "42") || !strings.Contains(r.stdout, "One tag") {
		t.Errorf("list_tasks does not show the tasks added:\n%s", r.stdout)
	}
	h.must("call", "undo")
	if r = h.must("call", "list_tasks"); strings.Contains(r.stdout, "One tag") {
		t.Errorf("undo did not take back the last task:\n%s", r.stdout)
	}
}

// TestImportRefusesWhatIsNoCalendar: a file that is no iCalendar stream, an
// empty input, a folder and a missing file are each one sentence and exit
// 1, and nothing is imported.
func TestImportRefusesWhatIsNoCalendar(t *testing.T) {
	storetest.Engines(t, testImportRefusesWhatIsNoCalendar)
}

func testImportRefusesWhatIsNoCalendar(t *testing.T) {
	h := newHome(t)
	notes := filepath.Join(h.dir, "SOURCES.md")
	empty := filepath.Join(h.dir, "empty.ics")
	for name, body := range map[string]string{notes: "# Sources\n\n- rfc5545: the spec\n", empty: ""} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"import", notes}, "", "“" + notes + "” is not an iCalendar file: it has no BEGIN:VCALENDAR line;"},
		{[]string{"import", empty}, "", "“" + empty + "” is not an iCalendar file: it is empty;"},
		{[]string{"import", "--dry-run", notes}, "", "is not an iCalendar file"},
		{[]string{"import", "-"}, "", "standard input is not an iCalendar file: it is empty;"},
		{[]string{"import", h.dir}, "", "“" + h.dir + "” is a folder, not an iCalendar file;"},
		{[]string{"import", filepath.Join(h.dir, "missing.ics")}, "", "cannot read “" + filepath.Join(h.dir, "missing.ics") + "”: no such file"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := h.runIn(c.stdin, c.args...)
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			last := lines[len(lines)-1]
			if r.code != 1 || !strings.HasPrefix(last, "assistant: ") || !strings.Contains(last, c.want) || r.stdout != "" {
				t.Fatalf("want exit 1 and one line with %q, got %s", c.want, r)
			}
		})
	}
	if _, ok := catalog.New().Get("list_changes"); ok {
		if r := h.must("call", "list_changes"); !strings.Contains(r.stdout, "No changes yet") {
			t.Errorf("a refused import left a change:\n%s", r.stdout)
		}
	}
}

// TestValueErrorsEchoWhatWasWritten: a wrong duration is exit 1 and the
// sentence shows the text as written, not Go's form of it.
func TestValueErrorsEchoWhatWasWritten(t *testing.T) {
	storetest.Engines(t, testValueErrorsEchoWhatWasWritten)
}

func testValueErrorsEchoWhatWasWritten(t *testing.T) {
	h := newHome(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"remind", "--once", "--every", "banana"}, "assistant: “--every” must be a duration such as 30s, 5m or 1h, not “banana”\n"},
		{[]string{"remind", "--once", "--max-late", "-1h"}, "assistant: “--max-late” must be a duration above zero such as 30s, 5m or 1h, not “-1h”\n"},
		{[]string{"remind", "--once", "--every", "0"}, "assistant: “--every” must be a duration above zero such as 30s, 5m or 1h, not “0”\n"},
	}
	for _, c := range cases {
		if r := h.run(c.args...); r.code != 1 || r.stderr != c.want {
			t.Errorf("%v: want exit 1 and %q, got %s", c.args, c.want, r)
		}
	}
}

// TestPurgeSaysWhatInWords: purge counts what it removed in the tools'
// words, and an age under 7 days runs only with --yes.
func TestPurgeSaysWhatInWords(t *testing.T) { storetest.Engines(t, testPurgeSaysWhatInWords) }

func testPurgeSaysWhatInWords(t *testing.T) {
	reg := catalog.New()
	if _, ok := reg.Get("delete_task"); !ok {
		t.Skip("the task tools are not registered in this build")
	}
	h := newHome(t)
	h.must("call", "add_task", "title=Old one")
	h.must("call", "add_task", "title=Keep me")
	h.must("call", "delete_task", "id=t1")
	// A month later, the deletion and the three changes are 30 days old.
	h.env["ASSISTANT_NOW"] = "2026-11-04T09:00:00+01:00"
	r := h.must("purge", "--older-than", "90d")
	if got := strings.TrimSpace(r.stdout); got != "Purged what was older than 90d: nothing." {
		t.Errorf("purge 90d: got %q", got)
	}
	r = h.must("purge", "--older-than", "2w")
	// The newest change stays (it is what sync tokens name).
	want := "Purged what was older than 2w: 1 deleted task, 2 journal entries."
	if got := strings.TrimSpace(r.stdout); got != want {
		t.Errorf("purge 2w:\n got %q\nwant %q", got, want)
	}
	h.must("call", "add_task", "title=Fresh")
	h.env["ASSISTANT_NOW"] = "2026-11-04T09:01:00+01:00"
	if r = h.run("purge", "--older-than", "0d"); r.code != 2 {
		t.Fatalf("purge 0d without --yes: want exit 2, got %s", r)
	}
	if r = h.must("call", "list_changes"); !strings.Contains(r.stdout, "Fresh") {
		t.Fatalf("a refused purge removed the journal:\n%s", r.stdout)
	}
	r = h.must("purge", "--older-than", "0h", "--yes")
	if got := strings.TrimSpace(r.stdout); got != "Purged what was older than 0h: 1 journal entry." {
		t.Errorf("purge 0h --yes: got %q", got)
	}
}
