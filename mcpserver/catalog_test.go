package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// The in-memory tests above use a test registry to reach every shape a
// result can take; this file serves the real catalog, as `assistant mcp`
// does, over the same in-memory transports with a real store, so each tool
// is seen end to end through the go-sdk client: what it lists, one call
// that works, one a client gets wrong, and the argument forms models write.

// catalogNow is the fixed clock of these tests: Monday 5 October 2026,
// 09:00 in Paris.
var catalogNow = time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)

// catalogEnv is one person (Europe/Paris) in a fresh store file, served
// the whole catalog over in-memory transports.
type catalogEnv struct {
	t      *testing.T
	ctx    context.Context
	st     *store.Store
	person tools.Person
	cs     *mcp.ClientSession
	n      int // makes titles unique, so the duplicate window never joins two setups

	outputs map[string]*jsonschema.Schema // each tool's outputSchema as tools/list gives it
}

func newCatalogEnv(t *testing.T) *catalogEnv {
	t.Helper()
	return newCatalogEnvOn(t, tooltest.Open(t, catalogNow), "ada")
}

// newCatalogEnvOn is newCatalogEnv on the store of env, as the person
// called name (added in Europe/Paris if env has no one of that name).
func newCatalogEnvOn(t *testing.T, env *tooltest.Env, name string) *catalogEnv {
	t.Helper()
	person := env.Person(name, "Europe/Paris")
	srv, err := New(catalog.New(), Fixed(env.Context(person), nil))
	if err != nil {
		t.Fatal(err)
	}
	return &catalogEnv{t: t, ctx: env.Ctx, st: env.Store, person: person, cs: connect(t, srv)}
}

// call calls tool with raw JSON arguments; a protocol error fails the
// test, since every answer of a tool must be a result.
func (e *catalogEnv) call(tool, arguments string) *mcp.CallToolResult {
	e.t.Helper()
	res, err := e.cs.CallTool(e.ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(arguments)})
	if err != nil {
		e.t.Fatalf("%s %s: protocol error %v; a tool's answer must be a result", tool, arguments, err)
	}
	e.conforms(tool, arguments, res)
	return res
}

// conforms fails the test unless res fits the outputSchema tools/list
// gives for tool, as MCP (2025-06-18, "Output Schema") asks and clients
// check: a success carries structuredContent that validates against it;
// a failure (isError) carries none, or one that validates too. The go-sdk
// client (v1.8.0) does not check this itself, so the test does, with the
// schema exactly as the client received it.
func (e *catalogEnv) conforms(tool, arguments string, res *mcp.CallToolResult) {
	e.t.Helper()
	if e.outputs == nil {
		e.outputs = map[string]*jsonschema.Schema{}
		listed, err := e.cs.ListTools(e.ctx, nil)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, lt := range listed.Tools {
			if lt.OutputSchema == nil {
				e.t.Errorf("%s has no outputSchema", lt.Name)
				continue
			}
			raw, err := json.Marshal(lt.OutputSchema)
			if err != nil {
				e.t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
			if err != nil {
				e.t.Fatalf("%s: outputSchema %s: %v", lt.Name, raw, err)
			}
			c := jsonschema.NewCompiler()
			url := "mem://" + lt.Name + ".output.json"
			if err := c.AddResource(url, doc); err != nil {
				e.t.Fatal(err)
			}
			if e.outputs[lt.Name], err = c.Compile(url); err != nil {
				e.t.Fatalf("%s: outputSchema does not compile: %v", lt.Name, err)
			}
		}
	}
	schema := e.outputs[tool]
	if schema == nil {
		return
	}
	if res.StructuredContent == nil {
		if !res.IsError {
			e.t.Errorf("%s %s: a success without structuredContent, though the tool declares an outputSchema", tool, arguments)
		}
		return
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		e.t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		e.t.Fatal(err)
	}
	if err := schema.Validate(v); err != nil {
		e.t.Errorf("%s %s: structuredContent does not fit the outputSchema: %v\n%s", tool, arguments, err, raw)
	}
}

// ok calls tool and fails the test unless it succeeded; it returns the
// structuredContent as an object.
func (e *catalogEnv) ok(tool, arguments string) map[string]any {
	e.t.Helper()
	res := e.call(tool, arguments)
	if res.IsError {
		e.t.Fatalf("%s %s: isError with %q", tool, arguments, text(e.t, res))
	}
	return object(e.t, res)
}

// object returns res's structuredContent, which must be a JSON object.
func object(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("structuredContent does not marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		t.Fatalf("structuredContent %s is not a JSON object", raw)
	}
	return m
}

// idIn returns the "id" of the object under key in data ({"task": {"id": "t1"}}).
func idIn(t testing.TB, data map[string]any, key string) string {
	t.Helper()
	item, _ := data[key].(map[string]any)
	id, _ := item["id"].(string)
	if id == "" {
		raw, _ := json.Marshal(data)
		t.Fatalf("no %s.id in %s", key, raw)
	}
	return id
}

func (e *catalogEnv) title(kind string) string {
	e.n++
	return fmt.Sprintf("%s number %d", kind, e.n)
}

// addTask adds an open task due tomorrow and returns its id.
func (e *catalogEnv) addTask() string {
	e.t.Helper()
	return idIn(e.t, e.ok("add_task", fmt.Sprintf(`{"title":%q,"due":"2026-10-06"}`, e.title("Task"))), "task")
}

// sentReminder adds a task whose reminder went out a minute ago (its
// delivery recorded sent, as a pass of the reminders job leaves it) and
// returns the task's id, for snooze.
func (e *catalogEnv) sentReminder() string {
	e.t.Helper()
	id := e.addTask()
	fire := catalogNow.Add(-time.Minute)
	if _, err := e.st.Write(e.ctx, e.person.ID, "remind", func(tx *store.Tx) error {
		if _, err := tx.RecordDelivery(store.NewDelivery{Item: id, Trigger: "before:15", FireAt: fire,
			Status: store.DeliveryPending}, fire); err != nil {
			return err
		}
		d, _, err := tx.NextToSend(catalogNow, catalogNow)
		if err != nil {
			return err
		}
		return tx.MarkSent(d.RowID, fire, []string{"stdout"})
	}); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// addEvent adds a one-hour event tomorrow at 10:00 and returns its id.
func (e *catalogEnv) addEvent() string {
	e.t.Helper()
	return idIn(e.t, e.ok("add_event", fmt.Sprintf(`{"title":%q,"start":"2026-10-06T10:00","location":"Room 1"}`, e.title("Event"))), "event")
}

// row reads one value of the row of table with the id written as t12 or
// e7, whoever owns it and whether or not it is deleted.
func (e *catalogEnv) row(table, id, column string) any {
	e.t.Helper()
	var v any
	q := fmt.Sprintf(`SELECT %s FROM %s WHERE id = ? AND owner_id = ?`, column, table)
	if err := e.st.DB().QueryRowContext(e.ctx, q, strings.TrimLeft(id, "te"), e.person.ID).Scan(&v); err != nil {
		e.t.Fatalf("%s of %s %s: %v", column, table, id, err)
	}
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

// count runs a SELECT COUNT(*) and returns the number.
func (e *catalogEnv) count(query string, params ...any) int {
	e.t.Helper()
	var n int
	if err := e.st.DB().QueryRowContext(e.ctx, query, params...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (e *catalogEnv) changes() int {
	e.t.Helper()
	return e.count(`SELECT COUNT(*) FROM changes WHERE owner_id = ?`, e.person.ID)
}

// want fails the test unless got equals want, naming what was read.
func wantEq[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// catalogCase is what one tool is called with. In every argument text
// "{id}" stands for the id prepare returned.
type catalogCase struct {
	tool string
	// prepare makes what the calls act on (a task before complete_task, a
	// change before undo) and returns its id; nil when nothing is needed.
	// It runs afresh before each of the three calls.
	prepare func(e *catalogEnv) string
	// ok are valid arguments; check (optional) then reads the database
	// and the answer.
	ok    string
	check func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult)
	// bad has one wrong argument, the one named in badArg.
	bad, badArg string
	// quirky writes a number as text ("15"), a flag as text ("true") and a
	// list as one string, where the tool takes any of them ("" when it
	// takes none); quirkyCheck (optional) shows they were read.
	quirky      string
	quirkyCheck func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult)
}

func (e *catalogEnv) doneTask() string {
	e.t.Helper()
	id := e.addTask()
	e.ok("complete_task", fmt.Sprintf(`{"id":%q}`, id))
	return id
}

var catalogCases = []catalogCase{
	{
		tool:   "add_task",
		ok:     `{"title":"Buy milk","due":"2026-10-06T17:00","notes":"semi-skimmed"}`,
		bad:    `{"title":"Buy milk","due":"the day after"}`,
		badArg: "due",
		check: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			id := idIn(t, object(t, res), "task")
			wantEq(t, "live tasks titled Buy milk", e.count(`SELECT COUNT(*) FROM tasks WHERE owner_id = ? AND title = 'Buy milk' AND deleted_at IS NULL`, e.person.ID), 1)
			wantEq(t, "due_date", e.row("tasks", id, "due_date"), any("2026-10-06"))
			wantEq(t, "due_time", e.row("tasks", id, "due_time"), any("2026-10-06T17:00"))
			if got := text(t, e.call("list_tasks", `{}`)); !strings.Contains(got, id) || !strings.Contains(got, "Buy milk") {
				t.Errorf("list_tasks does not show %s Buy milk:\n%s", id, got)
			}
		},
		quirky: `{"title":"Call mum","due":"2026-10-07","priority":"2","tags":"family","remind_before":"15","allow_duplicate":"true"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			id := idIn(t, object(t, res), "task")
			wantEq(t, "priority", e.row("tasks", id, "priority"), any(int64(2)))
			wantEq(t, "tags", e.row("tasks", id, "tags"), any(`["family"]`))
			wantEq(t, "remind_before", e.row("tasks", id, "remind_before"), any(`[15]`))
		},
	},
	{
		tool:    "list_tasks",
		prepare: (*catalogEnv).addTask,
		ok:      `{"status":"open"}`,
		check: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			if got := text(t, res); !strings.Contains(got, id) {
				t.Errorf("list_tasks does not show %s:\n%s", id, got)
			}
			wantEq(t, "total", object(t, res)["total"], any(float64(1)))
		},
		bad:    `{"status":"closed"}`,
		badArg: "status",
		quirky: `{"limit":"15"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			if got := text(t, res); !strings.Contains(got, id) {
				t.Errorf("list_tasks does not show %s:\n%s", id, got)
			}
		},
	},
	{
		tool:    "get_task",
		prepare: (*catalogEnv).addTask,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			wantEq(t, "task id", idIn(t, object(t, res), "task"), id)
		},
		bad:    `{"id":"milk"}`,
		badArg: "id",
	},
	{
		tool:    "update_task",
		prepare: (*catalogEnv).addTask,
		ok:      `{"id":"{id}","title":"Buy oat milk","notes":"two cartons"}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			wantEq(t, "title", e.row("tasks", id, "title"), any("Buy oat milk"))
			wantEq(t, "notes", e.row("tasks", id, "notes"), any("two cartons"))
		},
		bad:    `{"id":"{id}","priority":7}`,
		badArg: "priority",
		quirky: `{"id":"{id}","priority":"1","add_tags":"urgent","remind_before":"30"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			wantEq(t, "priority", e.row("tasks", id, "priority"), any(int64(1)))
			wantEq(t, "tags", e.row("tasks", id, "tags"), any(`["urgent"]`))
			wantEq(t, "remind_before", e.row("tasks", id, "remind_before"), any(`[30]`))
		},
	},
	{
		tool:    "complete_task",
		prepare: (*catalogEnv).addTask,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			wantEq(t, "status", e.row("tasks", id, "status"), any("done"))
			wantEq(t, "completed_at", e.row("tasks", id, "completed_at"), any(catalogNow.Unix()))
		},
		bad:    `{"id":"e1"}`,
		badArg: "id",
	},
	{
		tool:    "reopen_task",
		prepare: (*catalogEnv).doneTask,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			wantEq(t, "status", e.row("tasks", id, "status"), any("open"))
		},
		bad:    `{"id":"t1.5"}`,
		badArg: "id",
	},
	{
		tool:    "delete_task",
		prepare: (*catalogEnv).addTask,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			if e.row("tasks", id, "deleted_at") == nil {
				t.Errorf("%s is not marked deleted", id)
			}
			if got := text(t, e.call("list_tasks", `{"status":"all"}`)); strings.Contains(got, id+" ") {
				t.Errorf("list_tasks still shows %s:\n%s", id, got)
			}
		},
		bad:    `{"id":"task 12"}`,
		badArg: "id",
	},
	{
		tool: "add_event",
		ok:   `{"title":"Dentist","start":"2026-10-07T14:30","duration":45,"location":"Rue de Rivoli"}`,
		check: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			id := idIn(t, object(t, res), "event")
			wantEq(t, "start_local", e.row("events", id, "start_local"), any("2026-10-07T14:30"))
			wantEq(t, "tzid", e.row("events", id, "tzid"), any("Europe/Paris"))
			wantEq(t, "end_at - start_at", e.row("events", id, "end_at - start_at"), any(int64(45*60)))
			if got := text(t, e.call("list_events", `{}`)); !strings.Contains(got, id+"@") || !strings.Contains(got, "Dentist") {
				t.Errorf("list_events does not show %s Dentist:\n%s", id, got)
			}
		},
		bad:    `{"title":"Dentist","start":"2026-10-07T14:30","duration":0}`,
		badArg: "duration",
		quirky: `{"title":"Standup","start":"2026-10-06T09:30","duration":"15","rrule":"FREQ=DAILY;COUNT=5","exdates":"2026-10-08T09:30","remind_before":"10","allow_duplicate":"true"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			id := idIn(t, object(t, res), "event")
			wantEq(t, "end_at - start_at", e.row("events", id, "end_at - start_at"), any(int64(15*60)))
			wantEq(t, "exdates", e.row("events", id, "exdates"), any(`["2026-10-08T09:30"]`))
			wantEq(t, "remind_before", e.row("events", id, "remind_before"), any(`[10]`))
		},
	},
	{
		tool:    "list_events",
		prepare: (*catalogEnv).addEvent,
		ok:      `{"from":"2026-10-05","to":"2026-10-11"}`,
		check: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			if got := text(t, res); !strings.Contains(got, id+"@") {
				t.Errorf("list_events does not show %s:\n%s", id, got)
			}
		},
		bad:    `{"from":"2026-10-11","to":"2026-10-05"}`,
		badArg: "to",
		quirky: `{"limit":"15"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			if got := text(t, res); !strings.Contains(got, id+"@") {
				t.Errorf("list_events does not show %s:\n%s", id, got)
			}
		},
	},
	{
		tool:    "get_event",
		prepare: (*catalogEnv).addEvent,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			wantEq(t, "event id", idIn(t, object(t, res), "event"), id)
		},
		bad:    `{"id":"t1"}`,
		badArg: "id",
	},
	{
		tool:    "update_event",
		prepare: (*catalogEnv).addEvent,
		ok:      `{"id":"{id}","title":"Team lunch","start":"2026-10-06T12:00"}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			wantEq(t, "title", e.row("events", id, "title"), any("Team lunch"))
			wantEq(t, "start_local", e.row("events", id, "start_local"), any("2026-10-06T12:00"))
		},
		bad:    `{"id":"{id}","scope":"sometimes"}`,
		badArg: "scope",
		quirky: `{"id":"{id}","duration":"90","clear":"location"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			wantEq(t, "end_at - start_at", e.row("events", id, "end_at - start_at"), any(int64(90*60)))
			wantEq(t, "location", e.row("events", id, "location"), any(""))
		},
	},
	{
		tool:    "delete_event",
		prepare: (*catalogEnv).addEvent,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			if e.row("events", id, "deleted_at") == nil {
				t.Errorf("%s is not marked deleted", id)
			}
			if got := text(t, e.call("list_events", `{}`)); strings.Contains(got, id+"@") {
				t.Errorf("list_events still shows %s:\n%s", id, got)
			}
		},
		bad:    `{"id":"{id}","scope":"most"}`,
		badArg: "scope",
	},
	{
		tool:    "find_free_time",
		prepare: (*catalogEnv).addEvent,
		ok:      `{"from":"2026-10-06","to":"2026-10-06","duration":60}`,
		check: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			// The event takes 10:00 to 11:00 of a 09:00–18:00 day.
			free, _ := object(t, res)["free"].([]any)
			wantEq(t, "free slots", len(free), 2)
		},
		bad:    `{"day_start":"25:00"}`,
		badArg: "day_start",
		quirky: `{"from":"2026-10-10","to":"2026-10-10","duration":"15","weekends":"true","tasks":"true"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			// Saturday: free only because weekends was read as true.
			free, _ := object(t, res)["free"].([]any)
			wantEq(t, "free slots on Saturday", len(free), 1)
		},
	},
	{
		tool: "current_time",
		ok:   `{}`,
		check: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			got := text(t, res)
			for _, w := range []string{"2026-10-05", "09:00", "Europe/Paris"} {
				if !strings.Contains(got, w) {
					t.Errorf("current_time lacks %q:\n%s", w, got)
				}
			}
		},
		bad:    `{"zone":"Europe/Paris"}`,
		badArg: "zone",
	},
	{
		tool: "set_time_zone",
		ok:   `{"time_zone":"Asia/Tokyo"}`,
		check: func(t *testing.T, e *catalogEnv, _ string, _ *mcp.CallToolResult) {
			p, err := e.st.PersonByID(e.ctx, e.person.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantEq(t, "stored zone", p.Zone, "Asia/Tokyo")
		},
		bad:    `{"time_zone":"Mars/Olympus_Mons"}`,
		badArg: "time_zone",
	},
	{
		tool:    "snooze",
		prepare: (*catalogEnv).sentReminder,
		ok:      `{"id":"{id}"}`,
		check: func(t *testing.T, e *catalogEnv, id string, res *mcp.CallToolResult) {
			wantEq(t, "fire_at", object(t, res)["fire_at"], any("2026-10-05T09:10:00+02:00"))
			wantEq(t, "live snoozes of "+id, e.count(`SELECT COUNT(*) FROM reminder_snoozes WHERE owner_id = ? AND deleted_at IS NULL`, e.person.ID), 1)
		},
		bad:    `{"id":"{id}","minutes":0}`,
		badArg: "minutes",
		quirky: `{"id":"{id}","minutes":"1h"}`,
		quirkyCheck: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			wantEq(t, "fire_at", object(t, res)["fire_at"], any("2026-10-05T10:00:00+02:00"))
		},
	},
	{
		tool:    "list_changes",
		prepare: (*catalogEnv).addTask,
		ok:      `{}`,
		check: func(t *testing.T, e *catalogEnv, _ string, res *mcp.CallToolResult) {
			list, _ := object(t, res)["changes"].([]any)
			wantEq(t, "changes listed", len(list), 1)
			if got := text(t, res); !strings.Contains(got, "add_task") {
				t.Errorf("list_changes does not name add_task:\n%s", got)
			}
		},
		bad:    `{"limit":0}`,
		badArg: "limit",
		quirky: `{"limit":"15"}`,
	},
	{
		tool:    "undo",
		prepare: (*catalogEnv).addTask,
		ok:      `{}`,
		check: func(t *testing.T, e *catalogEnv, id string, _ *mcp.CallToolResult) {
			if e.row("tasks", id, "deleted_at") == nil {
				t.Errorf("undoing add_task left %s live", id)
			}
		},
		bad:    `{"change":"t31"}`,
		badArg: "change",
	},
}

// TestCatalogTools calls every tool of the catalog through the go-sdk
// client: one call that works, one with a wrong argument, and one with
// the quirky argument forms, each in a fresh store; on PostgreSQL, where
// a fresh database costs a CREATE DATABASE, each tool's case is a fresh
// person in one database instead (what a case reads is its person's own).
func TestCatalogTools(t *testing.T) { storetest.Engines(t, testCatalogTools) }

func testCatalogTools(t *testing.T) {
	var covered []string
	for _, c := range catalogCases {
		covered = append(covered, c.tool)
	}
	slices.Sort(covered)
	catalogNames := slices.Sorted(slices.Values(catalog.New().Names()))
	for _, name := range catalogNames {
		if !slices.Contains(covered, name) {
			t.Errorf("the catalog has %s but catalogCases has no case for it; add one", name)
		}
	}
	for _, name := range covered {
		if !slices.Contains(catalogNames, name) {
			t.Errorf("catalogCases has a case for %s, which the catalog lacks", name)
		}
	}
	if len(covered) != len(slices.Compact(slices.Clone(covered))) {
		t.Errorf("catalogCases names a tool twice: %s", strings.Join(covered, ", "))
	}
	listed, err := newCatalogEnv(t).cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, tool := range listed.Tools {
		served = append(served, tool.Name)
	}
	if !slices.Equal(served, catalogNames) {
		t.Errorf("tools/list gives\n  %s\nwant the catalog's\n  %s", strings.Join(served, ", "), strings.Join(catalogNames, ", "))
	}

	var shared *tooltest.Env
	if storetest.Engine(t) == storetest.Postgres {
		shared = tooltest.Open(t, catalogNow)
	}
	for _, c := range catalogCases {
		t.Run(c.tool, func(t *testing.T) {
			var e *catalogEnv
			if shared != nil {
				e = newCatalogEnvOn(t, shared, "ada "+c.tool)
			} else {
				e = newCatalogEnv(t)
			}
			prepare := func() string {
				if c.prepare == nil {
					return ""
				}
				return c.prepare(e)
			}
			fill := func(s, id string) string { return strings.ReplaceAll(s, "{id}", id) }

			t.Run("ok", func(t *testing.T) {
				e.t = t
				id := prepare()
				res := e.call(c.tool, fill(c.ok, id))
				if res.IsError {
					t.Fatalf("isError with %q", text(t, res))
				}
				if strings.TrimSpace(text(t, res)) == "" {
					t.Error("the text content is empty")
				}
				object(t, res)
				if c.check != nil {
					c.check(t, e, id, res)
				}
			})

			t.Run("failed", func(t *testing.T) {
				e.t = t
				id := prepare()
				before := e.changes()
				res := e.call(c.tool, fill(c.bad, id))
				got := text(t, res)
				if !res.IsError {
					t.Fatalf("isError false for %s; text %q", fill(c.bad, id), got)
				}
				if q := "“" + c.badArg + "”"; !strings.Contains(got, q) {
					t.Errorf("sentence %q does not name %s", got, q)
				}
				if strings.Contains(got, "\n") || !strings.HasSuffix(got, ".") {
					t.Errorf("%q is not one sentence", got)
				}
				if res.StructuredContent != nil {
					t.Errorf("a failure has structuredContent %v", res.StructuredContent)
				}
				if after := e.changes(); after != before {
					t.Errorf("a refused call wrote %d changes", after-before)
				}
			})

			if c.quirky == "" {
				return
			}
			t.Run("quirky", func(t *testing.T) {
				e.t = t
				id := prepare()
				res := e.call(c.tool, fill(c.quirky, id))
				if res.IsError {
					t.Fatalf("isError with %q", text(t, res))
				}
				object(t, res)
				if c.quirkyCheck != nil {
					c.quirkyCheck(t, e, id, res)
				}
			})
		})
	}
}

// TestCatalogAnswersFitOutputSchema drives each tool into the other shapes
// its answer can take (a repeated add, nothing to change, an occurrence,
// a repeating task done, undo): every answer fits its outputSchema (see
// conforms, which every call checks).
func TestCatalogAnswersFitOutputSchema(t *testing.T) {
	storetest.Engines(t, testCatalogAnswersFitOutputSchema)
}

func testCatalogAnswersFitOutputSchema(t *testing.T) {
	e := newCatalogEnv(t)
	add := `{"title":"Water plants","due":"2026-10-06","rrule":"FREQ=WEEKLY"}`
	e.ok("add_task", add)
	e.ok("add_task", add) // the first task again: existing
	e.ok("complete_task", `{"id":"t1"}`)
	e.ok("complete_task", `{"id":"t1"}`)
	e.ok("get_task", `{"id":"t1"}`)
	e.ok("update_task", `{"id":"t1","title":"Water plants"}`) // nothing changed
	e.ok("add_task", `{"title":"Post a letter"}`)
	e.ok("reopen_task", `{"id":"t2"}`) // already open
	e.ok("list_tasks", `{"status":"all","limit":1}`)
	e.ok("list_tasks", `{"status":"done"}`)
	e.call("get_task", `{"id":"t99"}`)

	ev := `{"title":"Standup","start":"2026-10-06T09:30","duration":15,"rrule":"FREQ=DAILY;COUNT=5"}`
	e.ok("add_event", ev)
	e.ok("add_event", ev) // the first event again: added false
	listed := e.ok("list_events", `{"from":"2026-10-05","to":"2026-10-11","limit":2}`)
	occ := ""
	if evs, _ := listed["events"].([]any); len(evs) > 1 {
		occ, _ = evs[1].(map[string]any)["id"].(string)
	}
	if occ == "" {
		t.Fatalf("list_events gave no second occurrence: %v", listed)
	}
	e.ok("get_event", `{"id":"e1"}`)
	e.ok("get_event", fmt.Sprintf(`{"id":%q}`, occ))
	e.ok("update_event", fmt.Sprintf(`{"id":%q,"start":"2026-10-07T16:00","scope":"this"}`, occ))
	e.ok("get_event", fmt.Sprintf(`{"id":%q}`, occ))
	e.ok("update_event", `{"id":"e1","title":"Standup"}`) // nothing changed
	e.ok("delete_event", fmt.Sprintf(`{"id":%q,"scope":"following"}`, occ))
	e.ok("list_events", `{"from":"2027-01-01","to":"2027-01-02"}`) // none
	e.ok("find_free_time", `{"from":"2026-10-06T08:00","to":"2026-10-06T12:00","duration":30}`)
	e.ok("current_time", `{}`)
	e.ok("set_time_zone", `{"time_zone":"Europe/Paris"}`) // the same zone
	e.ok("set_time_zone", `{"time_zone":"America/New_York"}`)
	e.ok("undo", `{}`)
	e.ok("list_changes", `{"limit":50}`)
	e.call("undo", `{"change":"c999"}`)
}
