package agent

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

// The tests in this file run the loop over the real tools of
// tools/catalog on a real store, a SQLite file or a PostgreSQL database
// (each test runs on both, through storetest.Engines), so what the
// model's arguments become is checked where it lands: in the tasks and
// events tables.

// realRegistry is what the fronts serve: the whole catalog (tasks, events
// and time, the journal).
func realRegistry() *tools.Registry { return catalog.New() }

// realEnv is one test's setup: a store at storetest.Location, Ada in
// Europe/Paris, a settable clock shared by the store and the tools, and an
// agent on the fake server.
type realEnv struct {
	t      testing.TB
	ctx    context.Context
	path   string
	s      *store.Store
	reg    *tools.Registry
	person tools.Person
	now    time.Time
	out    strings.Builder
	fake   *fakeServer
	cfg    Config
	agent  *Agent
}

// newRealEnv starts on Monday 2026-07-13 18:00 in Paris (16:00 UTC,
// summer time, UTC+02:00).
func newRealEnv(t testing.TB, stream bool, rs ...reply) *realEnv {
	t.Helper()
	e := &realEnv{t: t, ctx: context.Background(), now: time.Date(2026, 7, 13, 16, 0, 0, 0, time.UTC), reg: realRegistry()}
	e.path = storetest.LocationFrom(t, migrated)
	e.open()
	p, err := e.s.EnsurePerson(e.ctx, "Ada", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	e.person = tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}
	e.fake = newFake(t, rs...)
	e.cfg = Config{
		BaseURL:   e.fake.url(),
		Model:     "test-model",
		Registry:  e.reg,
		Stream:    stream,
		Out:       &e.out,
		RetryBase: time.Millisecond,
	}
	e.build()
	return e
}

// migrated is the template of the PostgreSQL databases these tests open:
// an empty one that store.Open brought up to date, as tools/tooltest has
// it: tooltest.Migrated, one template database on the server.
var migrated = tooltest.Migrated

// open opens (or reopens) the store with the env's clock.
func (e *realEnv) open() {
	e.t.Helper()
	s, err := store.Open(e.ctx, e.path, &store.Options{Now: func() time.Time { return e.now }})
	if err != nil {
		e.t.Fatal(err)
	}
	e.s = s
	e.t.Cleanup(func() { s.Close() })
}

// build makes a new Agent on the current store, as a run of the binary
// does: the person, the clock and the store in its ToolContext.
func (e *realEnv) build() {
	e.t.Helper()
	tc := &tools.ToolContext{}
	tools.Insert(tc, e.person)
	tools.Insert(tc, tools.Clock(func() time.Time { return e.now }))
	tools.Insert(tc, e.s)
	e.cfg.Context = tc
	a, err := New(e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.agent = a
}

// storedTask is a row of the tasks table as the tests look at it.
type storedTask struct {
	ID                     int64
	Title                  string
	DueDate, DueTime, Zone sql.NullString
	DueAt                  sql.NullInt64
}

// tasks returns Ada's live tasks, oldest first, straight from the table.
func (e *realEnv) tasks() []storedTask {
	e.t.Helper()
	rows, err := e.s.DB().QueryContext(e.ctx, `SELECT id, title, due_date, due_time, due_zone, due_at
		FROM tasks WHERE owner_id = ? AND deleted_at IS NULL ORDER BY id`, e.person.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []storedTask
	for rows.Next() {
		var r storedTask
		if err := rows.Scan(&r.ID, &r.Title, &r.DueDate, &r.DueTime, &r.Zone, &r.DueAt); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// checkOffered fails t unless the request offered every tool of the
// registry, in order, with the registry's own description and schema.
func checkOffered(t testing.TB, reg *tools.Registry, s seen) {
	t.Helper()
	want := reg.Tools()
	raw, _ := s.raw["tools"].([]any)
	if len(raw) != len(want) {
		t.Fatalf("%d tools offered, want the registry's %d", len(raw), len(want))
	}
	for i, w := range want {
		tm := raw[i].(map[string]any)
		fn := tm["function"].(map[string]any)
		if tm["type"] != "function" || fn["name"] != w.Name || fn["description"] != w.Description {
			t.Errorf("tool %d offered as %v %v, want function %s", i, tm["type"], fn["name"], w.Name)
			continue
		}
		got, _ := json.Marshal(fn["parameters"])
		var m any
		if err := json.Unmarshal(w.Schema.JSON(), &m); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", w.Name, err)
		}
		wantJSON, _ := json.Marshal(m)
		if !bytes.Equal(got, wantJSON) {
			t.Errorf("%s offered with parameters %s, want %s", w.Name, got, wantJSON)
		}
	}
}

// checkOfferedAll is checkOffered on every request of a turn: a step
// after a tool call, a retry and a resumed chat offer the same tools as
// the first request.
func checkOfferedAll(t testing.TB, reg *tools.Registry, reqs []seen) {
	t.Helper()
	for _, r := range reqs {
		checkOffered(t, reg, r)
	}
}

// plumberStream is the first answer of the plumber case as OpenAI streams
// it: the call's id and name first, the arguments in three pieces.
func plumberStream(id string) reply {
	return reply{sse: []string{
		chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"` + id + `","type":"function","function":{"name":"add_task","arguments":""}}],"refusal":null}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"title\":\"Call the"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":" plumber\",\"due\":\"2026-07-"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"14T07:00Z\"}"}}]}`),
		finish("tool_calls"),
	}}
}

func textStream(parts ...string) reply {
	var sse []string
	for i, p := range parts {
		c, _ := json.Marshal(p)
		if i == 0 {
			sse = append(sse, chunk(`{"role":"assistant","content":`+string(c)+`}`))
		} else {
			sse = append(sse, chunk(`{"content":`+string(c)+`}`))
		}
	}
	return reply{sse: append(sse, finish("stop"))}
}

// "remind me to call the plumber tomorrow at 9" on a July evening in
// Paris: the model writes 09:00 Paris as 07:00Z; the task is pinned to
// 09:00 Europe/Paris, and the model is told 09:00, the person's time.
func TestRealToolsPlumberTomorrowAtNine(t *testing.T) {
	storetest.Engines(t, testRealToolsPlumberTomorrowAtNine)
}

func testRealToolsPlumberTomorrowAtNine(t *testing.T) {
	const answer = "Done: t1, call the plumber tomorrow, Tuesday, at 09:00."
	cases := []struct {
		name   string
		stream bool
		rs     []reply
	}{
		{"whole", false, []reply{
			callsReply(call{"call_p1", "add_task", `{"title":"Call the plumber","due":"2026-07-14T07:00Z"}`}),
			textReply(answer),
		}},
		{"stream", true, []reply{
			plumberStream("call_p1"),
			textStream("Done: t1, ", "call the plumber tomorrow, ", "Tuesday, at 09:00."),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newRealEnv(t, c.stream, c.rs...)
			got, err := e.agent.Turn(e.ctx, NewMemory(), "remind me to call the plumber tomorrow at 9")
			if err != nil {
				t.Fatal(err)
			}
			if got != answer {
				t.Errorf("answer = %q, want %q", got, answer)
			}
			reqs := e.fake.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for i, r := range reqs {
				checkOffered(t, e.reg, r)
				if r.req.Stream != c.stream {
					t.Errorf("request %d: stream = %v", i, r.req.Stream)
				}
			}
			if a := reqs[1].req.Messages[2]; len(a.ToolCalls) != 1 ||
				a.ToolCalls[0].Function.Arguments != `{"title":"Call the plumber","due":"2026-07-14T07:00Z"}` {
				t.Errorf("the call sent back = %+v, want the arguments whole, as written", a)
			}
			tm := toolMessages(reqs[1])
			if len(tm) != 1 || tm[0].ToolCallID != "call_p1" {
				t.Fatalf("tool messages = %+v", tm)
			}
			// The person's local time, not the UTC the model wrote.
			for _, want := range []string{"t1", "“Call the plumber”", "Tue 2026-07-14 09:00 (+02:00)"} {
				if !strings.Contains(tm[0].Content, want) {
					t.Errorf("tool message %q lacks %q", tm[0].Content, want)
				}
			}
			if strings.Contains(tm[0].Content, "07:00") {
				t.Errorf("tool message %q shows the UTC time", tm[0].Content)
			}
			rows := e.tasks()
			if len(rows) != 1 {
				t.Fatalf("stored %d tasks, want 1: %+v", len(rows), rows)
			}
			r := rows[0]
			wantAt := time.Date(2026, 7, 14, 7, 0, 0, 0, time.UTC).Unix()
			if r.Title != "Call the plumber" || r.DueDate.String != "2026-07-14" || r.DueTime.String != "2026-07-14T09:00" ||
				r.Zone.String != "Europe/Paris" || r.DueAt.Int64 != wantAt {
				t.Errorf("stored %+v, want due 2026-07-14 09:00 Europe/Paris at %d", r, wantAt)
			}
			wantOut := "→ add_task \"Call the plumber\" due Tue 2026-07-14 09:00 ✓ t1\n" + answer + "\n"
			if e.out.String() != wantOut {
				t.Errorf("Out = %q, want %q", e.out.String(), wantOut)
			}
		})
	}
}

// storedEvent is a row of the events table as the tests look at it.
type storedEvent struct {
	ID                    int64
	Title, Start, End, TZ string
	StartAt               int64
}

// events returns Ada's live events, oldest first, straight from the table.
func (e *realEnv) events() []storedEvent {
	e.t.Helper()
	rows, err := e.s.DB().QueryContext(e.ctx, `SELECT id, title, start_local, end_local, tzid, start_at
		FROM events WHERE owner_id = ? AND deleted_at IS NULL ORDER BY id`, e.person.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []storedEvent
	for rows.Next() {
		var r storedEvent
		if err := rows.Scan(&r.ID, &r.Title, &r.Start, &r.End, &r.TZ, &r.StartAt); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// add_event and list_events in one answer: both run, in the order
// written, so the listing already shows the new event, and both are
// answered in that order on their ids.
func TestRealToolsParallelAddAndListEvents(t *testing.T) {
	storetest.Engines(t, testRealToolsParallelAddAndListEvents)
}

func testRealToolsParallelAddAndListEvents(t *testing.T) {
	e := newRealEnv(t, true,
		reply{sse: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_e1","type":"function","function":{"name":"add_event","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"title\":\"Dentist\",\"start\":"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"2026-07-15T15:00\",\"duration\":45}"}}]}`),
			chunk(`{"tool_calls":[{"index":1,"id":"call_e2","type":"function","function":{"name":"list_events","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"from\":\"2026-07-13\",\"to\":\"2026-07-19\"}"}}]}`),
			finish("tool_calls"),
		}},
		textStream("Booked the dentist on Wednesday at 15:00."),
	)
	if _, err := e.agent.Turn(e.ctx, NewMemory(), "dentist on Wednesday at 3pm for 45 minutes, and show my week"); err != nil {
		t.Fatal(err)
	}
	reqs := e.fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkOfferedAll(t, e.reg, reqs)
	if calls := reqs[1].req.Messages[2].ToolCalls; len(calls) != 2 || calls[0].Function.Name != "add_event" || calls[1].Function.Name != "list_events" ||
		calls[0].Function.Arguments != `{"title":"Dentist","start":"2026-07-15T15:00","duration":45}` ||
		calls[1].Function.Arguments != `{"from":"2026-07-13","to":"2026-07-19"}` {
		t.Errorf("calls sent back = %+v", calls)
	}
	tm := toolMessages(reqs[1])
	if len(tm) != 2 || tm[0].ToolCallID != "call_e1" || tm[1].ToolCallID != "call_e2" {
		t.Fatalf("tool messages = %+v", tm)
	}
	for _, want := range []string{"e1", "“Dentist”", "Wed 2026-07-15 15:00–15:45 (+02:00)"} {
		if !strings.Contains(tm[0].Content, want) {
			t.Errorf("add_event answered %q, which lacks %q", tm[0].Content, want)
		}
	}
	for _, want := range []string{"e1@20260715T130000Z", "Wed 2026-07-15 15:00–15:45 (+02:00)", "Dentist"} {
		if !strings.Contains(tm[1].Content, want) {
			t.Errorf("list_events answered %q, which lacks %q (it ran before add_event?)", tm[1].Content, want)
		}
	}
	wantOut := "→ add_event \"Dentist\" start Wed 2026-07-15 15:00 duration 45 ✓ e1\n" +
		"→ list_events from Mon 2026-07-13 to Sun 2026-07-19 ✓ 1 event\n" +
		"Booked the dentist on Wednesday at 15:00.\n"
	if e.out.String() != wantOut {
		t.Errorf("Out = %q, want %q", e.out.String(), wantOut)
	}
	rows := e.events()
	wantAt := time.Date(2026, 7, 15, 13, 0, 0, 0, time.UTC).Unix()
	if len(rows) != 1 || rows[0].Title != "Dentist" || rows[0].Start != "2026-07-15T15:00" || rows[0].End != "2026-07-15T15:45" ||
		rows[0].TZ != "Europe/Paris" || rows[0].StartAt != wantAt {
		t.Errorf("stored events %+v, want one Dentist 2026-07-15T15:00–15:45 Europe/Paris at %d", rows, wantAt)
	}
	if n := len(e.tasks()); n != 0 {
		t.Errorf("stored %d tasks, want none", n)
	}
}

// The model writes a due Args cannot read: the tool's sentence is the
// tool message, the corrected call succeeds, and exactly one task is
// stored (the refused call wrote nothing).
func TestRealToolsMalformedDueCorrected(t *testing.T) {
	storetest.Engines(t, testRealToolsMalformedDueCorrected)
}

func testRealToolsMalformedDueCorrected(t *testing.T) {
	e := newRealEnv(t, true,
		reply{sse: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_m1","type":"function","function":{"name":"add_task","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"title\":\"Pay"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":" rent\",\"due\":\"the friday"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":" after\"}"}}]}`),
			finish("tool_calls"),
		}},
		reply{sse: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_m2","type":"function","function":{"name":"add_task","arguments":"{\"title\":\"Pay rent\","}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"due\":\"2026-07-17\"}"}}]}`),
			finish("tool_calls"),
		}},
		textStream("Added t1: pay rent, due Friday."),
	)
	if _, err := e.agent.Turn(e.ctx, NewMemory(), "pay rent next friday"); err != nil {
		t.Fatal(err)
	}
	reqs := e.fake.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	checkOfferedAll(t, e.reg, reqs)
	const sentence = "“due” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “the friday after”."
	if tm := toolMessages(reqs[1]); len(tm) != 1 || tm[0].ToolCallID != "call_m1" || tm[0].Content != sentence {
		t.Errorf("tool messages after the bad call = %+v, want the sentence %q", tm, sentence)
	}
	tm := toolMessages(reqs[2])
	if len(tm) != 2 || tm[1].ToolCallID != "call_m2" || !strings.HasPrefix(tm[1].Content, "Added t1 “Pay rent”") ||
		!strings.Contains(tm[1].Content, "Fri 2026-07-17") {
		t.Errorf("tool messages after the corrected call = %+v", tm)
	}
	rows := e.tasks()
	if len(rows) != 1 || rows[0].Title != "Pay rent" || rows[0].DueDate.String != "2026-07-17" || rows[0].DueTime.Valid || rows[0].Zone.Valid || rows[0].DueAt.Valid {
		t.Errorf("stored %+v, want exactly one task due on 2026-07-17 (floating: no time, zone or instant)", rows)
	}
	if !strings.HasPrefix(e.out.String(), "→ add_task \"Pay rent\" due the friday after ✗ “due”") {
		t.Errorf("Out = %q", e.out.String())
	}
}

// sameMessages fails t unless two requests carry the same messages: a
// retry resends the request as it was.
func sameMessages(t testing.TB, a, b seen) {
	t.Helper()
	ja, _ := json.Marshal(a.raw["messages"])
	jb, _ := json.Marshal(b.raw["messages"])
	if !bytes.Equal(ja, jb) {
		t.Errorf("the retry sent other messages:\n%s\nthen\n%s", ja, jb)
	}
}

// Server failures around a real tool call: a 500 before the call and a
// 503 after it are retried with the same request, and the call runs once;
// a 429 with Retry-After is waited out for the time asked.
func TestRealToolsRetries(t *testing.T) { storetest.Engines(t, testRealToolsRetries) }

func testRealToolsRetries(t *testing.T) {
	addMilk := callsReply(call{"call_r1", "add_task", `{"title":"Buy milk","due":"2026-07-14"}`})
	rate := errorReply(429, "requests", "Rate limit reached for requests")
	rate.header = map[string]string{"Retry-After": "1"}
	cases := []struct {
		name      string
		rs        []reply
		retried   [][2]int // pairs of requests that must carry the same messages
		wantWaits []string // waits the log must show
	}{
		{"500 then success", []reply{errorReply(500, "server_error", "The server had an error while processing your request."), addMilk,
			errorReply(503, "server_error", "overloaded"), textReply("Added t1.")}, [][2]int{{0, 1}, {2, 3}}, nil},
		{"429 with Retry-After", []reply{rate, addMilk, textReply("Added t1.")}, [][2]int{{0, 1}}, []string{"wait=1s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newRealEnv(t, false, c.rs...)
			var log bytes.Buffer
			e.cfg.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
			e.build()
			answer, err := e.agent.Turn(e.ctx, NewMemory(), "buy milk tomorrow")
			if err != nil || answer != "Added t1." {
				t.Fatalf("answer %q, err %v", answer, err)
			}
			reqs := e.fake.requests()
			if len(reqs) != len(c.rs) {
				t.Fatalf("%d requests, want %d", len(reqs), len(c.rs))
			}
			for _, p := range c.retried {
				sameMessages(t, reqs[p[0]], reqs[p[1]])
			}
			checkOfferedAll(t, e.reg, reqs)
			last := reqs[len(reqs)-1]
			if tm := toolMessages(last); len(tm) != 1 || !strings.HasPrefix(tm[0].Content, "Added t1 “Buy milk”") {
				t.Errorf("tool messages = %+v", tm)
			}
			if rows := e.tasks(); len(rows) != 1 || rows[0].Title != "Buy milk" {
				t.Errorf("stored %+v, want one task: the call ran once", rows)
			}
			if n := strings.Count(log.String(), "retrying"); n != len(c.retried) {
				t.Errorf("log shows %d retries, want %d:\n%s", n, len(c.retried), log.String())
			}
			for _, w := range c.wantWaits {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log does not show %s:\n%s", w, log.String())
				}
			}
		})
	}
}

// A model that keeps calling: the turn stops at the step limit and says
// so; the same add_task three times stores one task (the duplicate
// window), and the stored conversation answers every call.
func TestRealToolsStepLimit(t *testing.T) { storetest.Engines(t, testRealToolsStepLimit) }

func testRealToolsStepLimit(t *testing.T) {
	again := callsReply(call{"call_s", "add_task", `{"title":"Water the plants","due":"2026-07-14T08:00"}`})
	e := newRealEnv(t, false, again, again, again)
	e.cfg.MaxSteps = 3
	e.build()
	conv, err := NewStoreConversation(e.ctx, e.s, e.person.ID)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := e.agent.Turn(e.ctx, conv, "water the plants tomorrow at 8")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer, "stopped after 3 steps") || !strings.HasSuffix(e.out.String(), answer+"\n") {
		t.Errorf("answer %q, Out %q", answer, e.out.String())
	}
	if n := len(e.fake.requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	checkOfferedAll(t, e.reg, e.fake.requests())
	if tm := toolMessages(e.fake.requests()[2]); len(tm) != 2 || !strings.HasPrefix(tm[0].Content, "Added t1") || !strings.HasPrefix(tm[1].Content, "Already there: t1") {
		t.Errorf("tool messages = %+v", tm)
	}
	if rows := e.tasks(); len(rows) != 1 {
		t.Errorf("stored %d tasks, want 1: %+v", len(rows), rows)
	}
	msgs, err := conv.Load(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := rolesOf(msgs); r != "user assistant+1 tool assistant+1 tool assistant+1 tool assistant" {
		t.Errorf("stored %s", r)
	}
	checkWellFormed(t, asRaw(t, msgs))
}

// A chat resumed the next day from the store file: the history goes out
// again under a system prompt rebuilt for Tuesday, and the tools see
// Tuesday too ("today" in the listing).
func TestRealToolsResumeNextDay(t *testing.T) { storetest.Engines(t, testRealToolsResumeNextDay) }

func testRealToolsResumeNextDay(t *testing.T) {
	e := newRealEnv(t, false,
		callsReply(call{"call_b", "add_task", `{"title":"Buy bread","due":"2026-07-14"}`}),
		textReply("Added t1, due tomorrow."),
		callsReply(call{"call_l", "list_tasks", `{}`}),
		textReply("Today: buy bread (t1)."),
	)
	conv, err := NewStoreConversation(e.ctx, e.s, e.person.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.agent.Turn(e.ctx, conv, "buy bread tomorrow"); err != nil {
		t.Fatal(err)
	}
	// A new run of the binary, a day later: the store reopened from its
	// file, a new agent, the last conversation resumed.
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(24 * time.Hour)
	e.open()
	e.build()
	resumed, err := ResumeStoreConversation(e.ctx, e.s, e.person.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.ID != conv.ID {
		t.Fatalf("resumed conversation %d, want %d", resumed.ID, conv.ID)
	}
	if _, err := e.agent.Turn(e.ctx, resumed, "what is due today?"); err != nil {
		t.Fatal(err)
	}
	reqs := e.fake.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	// The new run's agent offers the tools afresh.
	checkOfferedAll(t, e.reg, reqs)
	r := reqs[2]
	if got := rolesOf(r.req.Messages); got != "system user assistant+1 tool assistant user" {
		t.Errorf("resumed request has %s", got)
	}
	if sys := r.req.Messages[0].Content; !strings.Contains(sys, "Tuesday 2026-07-14, 18:00, in Europe/Paris (UTC+02:00)") {
		t.Errorf("system prompt not rebuilt for Tuesday:\n%s", sys)
	}
	if sys := reqs[0].req.Messages[0].Content; !strings.Contains(sys, "Monday 2026-07-13") {
		t.Errorf("first system prompt not for Monday:\n%s", sys)
	}
	if m := r.req.Messages; m[1].Content != "buy bread tomorrow" || !strings.HasPrefix(m[3].Content, "Added t1 “Buy bread”") ||
		m[4].Content != "Added t1, due tomorrow." || m[5].Content != "what is due today?" {
		t.Errorf("history sent = %+v", m)
	}
	if tm := toolMessages(reqs[3]); len(tm) != 2 || tm[1].ToolCallID != "call_l" || !strings.Contains(tm[1].Content, "t1 · today · Buy bread") {
		t.Errorf("list_tasks answered %+v, want t1 due today", tm)
	}
	msgs, err := resumed.Load(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := rolesOf(msgs); got != "user assistant+1 tool assistant user assistant+1 tool assistant" {
		t.Errorf("stored %s", got)
	}
	if rows := e.tasks(); len(rows) != 1 || rows[0].DueDate.String != "2026-07-14" {
		t.Errorf("stored %+v", rows)
	}
}

// Ollama streams a parallel batch as whole calls, all at index 0, and
// finishes with "stop": each new id is its own call, so two tasks are
// stored, and both calls are answered on their ids.
func TestRealToolsOllamaIndexZeroParallel(t *testing.T) {
	storetest.Engines(t, testRealToolsOllamaIndexZeroParallel)
}

func testRealToolsOllamaIndexZeroParallel(t *testing.T) {
	ollama := func(delta, reason string) string {
		r := "null"
		if reason != "" {
			r = `"` + reason + `"`
		}
		return `{"id":"chatcmpl-274","object":"chat.completion.chunk","created":1783958400,"model":"qwen2.5","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + r + `}]}`
	}
	e := newRealEnv(t, true,
		reply{sse: []string{
			ollama(`{"role":"assistant","content":"","tool_calls":[{"id":"call_o1","index":0,"type":"function","function":{"name":"add_task","arguments":"{\"title\":\"Buy milk\",\"due\":\"2026-07-14\"}"}}]}`, ""),
			ollama(`{"role":"assistant","content":"","tool_calls":[{"id":"call_o2","index":0,"type":"function","function":{"name":"add_task","arguments":"{\"title\":\"Buy eggs\",\"due\":\"2026-07-14T10:00\"}"}}]}`, ""),
			ollama(`{"role":"assistant","content":""}`, "stop"),
		}},
		reply{sse: []string{ollama(`{"role":"assistant","content":"Both added."}`, ""), ollama(`{"role":"assistant","content":""}`, "stop")}},
	)
	if _, err := e.agent.Turn(e.ctx, NewMemory(), "buy milk and eggs tomorrow, eggs by 10"); err != nil {
		t.Fatal(err)
	}
	reqs := e.fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkOfferedAll(t, e.reg, reqs)
	r := reqs[1]
	if calls := r.req.Messages[2].ToolCalls; len(calls) != 2 || calls[0].ID != "call_o1" || calls[1].ID != "call_o2" {
		t.Errorf("calls sent back = %+v", calls)
	}
	tm := toolMessages(r)
	if len(tm) != 2 || tm[0].ToolCallID != "call_o1" || !strings.HasPrefix(tm[0].Content, "Added t1 “Buy milk”") ||
		tm[1].ToolCallID != "call_o2" || !strings.HasPrefix(tm[1].Content, "Added t2 “Buy eggs”") || !strings.Contains(tm[1].Content, "10:00 (+02:00)") {
		t.Errorf("tool messages = %+v", tm)
	}
	rows := e.tasks()
	if len(rows) != 2 || rows[0].Title != "Buy milk" || rows[0].DueTime.Valid ||
		rows[1].Title != "Buy eggs" || rows[1].DueTime.String != "2026-07-14T10:00" || rows[1].Zone.String != "Europe/Paris" {
		t.Errorf("stored %+v, want milk (floating) and eggs at 10:00 Paris", rows)
	}
}
