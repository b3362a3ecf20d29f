package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

func idx(i int) *int { return &i }

func tc(index *int, id, name, args string) openai.ToolCall {
	return openai.ToolCall{Index: index, ID: id, Type: "function", Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func TestCallsAccumulate(t *testing.T) {
	cases := []struct {
		name   string
		chunks [][]openai.ToolCall
		want   []string // id name args
	}{
		{"openai split arguments", [][]openai.ToolCall{
			{tc(idx(0), "call_1", "add_note", "")},
			{tc(idx(0), "", "", `{"te`)},
			{tc(idx(0), "", "", `xt":"a"}`)},
		}, []string{`call_1 add_note {"text":"a"}`}},
		{"openai two calls interleaved", [][]openai.ToolCall{
			{tc(idx(0), "call_1", "add_note", `{"text"`)},
			{tc(idx(1), "call_2", "list_notes", `{`)},
			{tc(idx(0), "", "", `:"a"}`)},
			{tc(idx(1), "", "", `}`)},
		}, []string{`call_1 add_note {"text":"a"}`, `call_2 list_notes {}`}},
		{"ollama all at index 0", [][]openai.ToolCall{
			{tc(idx(0), "call_a", "add_note", `{"text":"a"}`)},
			{tc(idx(0), "call_b", "add_note", `{"text":"b"}`)},
			{tc(idx(0), "call_c", "list_notes", `{}`)},
		}, []string{`call_a add_note {"text":"a"}`, `call_b add_note {"text":"b"}`, `call_c list_notes {}`}},
		{"two calls in one chunk at index 0", [][]openai.ToolCall{
			{tc(idx(0), "call_a", "add_note", `{"text":"a"}`), tc(idx(0), "call_b", "add_note", `{"text":"b"}`)},
		}, []string{`call_a add_note {"text":"a"}`, `call_b add_note {"text":"b"}`}},
		{"continuation repeats the id", [][]openai.ToolCall{
			{tc(idx(0), "call_1", "add_note", `{"text":`)},
			{tc(idx(0), "call_1", "", `"a"}`)},
		}, []string{`call_1 add_note {"text":"a"}`}},
		{"first call at index 1", [][]openai.ToolCall{
			{tc(idx(1), "call_1", "add_note", `{"text":"a"}`)},
		}, []string{`call_1 add_note {"text":"a"}`}},
		{"no index at all", [][]openai.ToolCall{
			{tc(nil, "call_1", "add_note", `{"text":`)},
			{tc(nil, "", "", `"a"}`)},
			{tc(nil, "call_2", "list_notes", ``)},
		}, []string{`call_1 add_note {"text":"a"}`, `call_2 list_notes `}},
		{"no id", [][]openai.ToolCall{
			{tc(idx(0), "", "list_notes", ``)},
		}, []string{` list_notes `}},
	}
	for _, c := range cases {
		var acc calls
		for _, ch := range c.chunks {
			acc.add(ch)
		}
		var got []string
		for _, x := range acc.toolCalls() {
			got = append(got, x.ID+" "+x.Function.Name+" "+x.Function.Arguments)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestNormalizeCalls(t *testing.T) {
	got := normalizeCalls([]openai.ToolCall{
		tc(idx(0), "", " list_notes ", ""),
		tc(idx(0), "dup", "add_note", " "),
		tc(nil, "dup", "add_note", `{"text":"a"}`),
	})
	ids := map[string]bool{}
	for i, c := range got {
		if c.Index != nil || c.Type != "function" || c.ID == "" || ids[c.ID] {
			t.Errorf("call %d = %+v", i, c)
		}
		ids[c.ID] = true
	}
	if got[0].Function.Name != "list_notes" || got[0].Function.Arguments != "{}" || got[1].Function.Arguments != "{}" || got[1].ID != "dup" {
		t.Errorf("calls = %+v", got)
	}
}

func msg(role, content string, calls ...string) openai.ChatCompletionMessage {
	m := openai.ChatCompletionMessage{Role: role, Content: content}
	for _, id := range calls {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: id, Type: "function", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}})
	}
	return m
}

func toolMsg(id, content string) openai.ChatCompletionMessage { return toolMessage(id, content) }

func shape(msgs []openai.ChatCompletionMessage) string {
	var parts []string
	for _, m := range msgs {
		switch {
		case m.Role == "tool":
			parts = append(parts, "tool:"+m.ToolCallID+"="+m.Content)
		case len(m.ToolCalls) > 0:
			ids := []string{}
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			parts = append(parts, m.Role+"["+strings.Join(ids, ",")+"]")
		default:
			parts = append(parts, m.Role+":"+m.Content)
		}
	}
	return strings.Join(parts, " ")
}

func TestRepair(t *testing.T) {
	cases := []struct {
		name string
		in   []openai.ChatCompletionMessage
		want string
	}{
		{"whole", []openai.ChatCompletionMessage{msg("user", "u"), msg("assistant", "", "a", "b"), toolMsg("a", "1"), toolMsg("b", "2"), msg("assistant", "ok")},
			"user:u assistant[a,b] tool:a=1 tool:b=2 assistant:ok"},
		{"answers out of order", []openai.ChatCompletionMessage{msg("user", "u"), msg("assistant", "", "a", "b"), toolMsg("b", "2"), toolMsg("a", "1")},
			"user:u assistant[a,b] tool:a=1 tool:b=2"},
		{"cut by a crash", []openai.ChatCompletionMessage{msg("user", "u"), msg("assistant", "", "a", "b"), toolMsg("a", "1")},
			"user:u assistant[a,b] tool:a=1 tool:b=" + cancelledText},
		{"orphan tool message", []openai.ChatCompletionMessage{toolMsg("x", "?"), msg("user", "u"), msg("assistant", "hi"), toolMsg("y", "?")},
			"user:u assistant:hi"},
	}
	for _, c := range cases {
		if got := shape(repair(c.in)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestFit(t *testing.T) {
	long := strings.Repeat("x", 100)
	hist := []openai.ChatCompletionMessage{
		msg("user", "old "+long), msg("assistant", "", "a"), toolMsg("a", long), msg("assistant", "done"),
		msg("user", "mid"), msg("assistant", "", "b"), toolMsg("b", long), msg("assistant", "done"),
		msg("user", "new"),
	}
	cases := []struct {
		budget      int
		wantDropped int
		wantFirst   string
	}{
		{100000, 0, "old " + long},
		{200, 4, "mid"},       // the oldest turn goes, whole
		{137, 4, "mid"},       // exactly fits after dropping one turn
		{10, 8, "new"},        // only the latest turn is left
		{1, 8, "new"},         // the latest turn stays even over the budget
		{0, 0, "old " + long}, // no budget: everything
	}
	for _, c := range cases {
		got, dropped := fit(hist, c.budget, countRunes)
		if dropped != c.wantDropped || got[0].Content != c.wantFirst || got[0].Role != "user" {
			t.Errorf("budget %d: dropped %d first %q, want %d %q", c.budget, dropped, got[0].Content, c.wantDropped, c.wantFirst)
		}
	}
	// A token measure is used as given.
	words := func(s string) int { return len(strings.Fields(s)) }
	if _, dropped := fit(hist, 60, words); dropped != 0 {
		t.Errorf("word budget dropped %d", dropped)
	}
}

// A long history is cut from what is sent, not from what is kept.
func TestHistoryBudgetInRequests(t *testing.T) {
	e := newEnv(t, false, textReply("a1"), textReply("a2"), textReply("a3"))
	e.cfg.HistoryBudget = 50
	e.build(t)
	conv := NewMemory()
	for _, q := range []string{"first question, rather long", "second question, rather long", "third"} {
		if _, err := e.agent.Turn(context.Background(), conv, q); err != nil {
			t.Fatal(err)
		}
	}
	last := e.fake.requests()[2].req.Messages
	if got := shape(last[1:]); got != "user:second question, rather long assistant:a2 user:third" {
		t.Errorf("sent %s", got)
	}
	if n := len(conv.Messages()); n != 6 {
		t.Errorf("kept %d messages, want 6", n)
	}
}

func TestToolLine(t *testing.T) {
	ok := tools.Success("Added t12 “Dentist”, due Tue 2026-12-01 15:00.")
	cases := []struct {
		name, args string
		res        tools.ExecResult
		want       string
	}{
		{"add_task", `{"title":"Dentist","due":"2026-12-01T15:00","priority":2}`, ok, `→ add_task "Dentist" due Tue 2026-12-01 15:00 ✓ t12`},
		{"update_event", `{"id":"e7@20261005T070000Z","scope":"this","start":"2026-10-05 10:30:00"}`,
			tools.Success("Moved e7@20261005T070000Z (c31)."), `→ update_event e7@20261005T070000Z start Mon 2026-10-05 10:30 scope this ✓ e7@20261005T070000Z`},
		{"list_events", `{"from":"2026-10-05","to":"2026-10-12[Europe/Paris]"}`, tools.Success(""), `→ list_events from Mon 2026-10-05 to Mon 2026-10-12 ✓`},
		{"add_task", `{"title":"Plumber","due":"2026-07-14T07:00Z"}`, ok, `→ add_task "Plumber" due Tue 2026-07-14 09:00 ✓ t12`},
		{"add_event", `{"title":"Call","start":"2026-03-08T09:00-05:00"}`, ok, `→ add_event "Call" start Sun 2026-03-08 15:00 ✓ t12`},
		{"add_task", `{"title":"Dentist","due":"next tuesday"}`, tools.Invalid(errors.New("“due” must be a day (2026-10-05) or a day and a time (2026-10-05T09:00), not “next tuesday”.")),
			`→ add_task "Dentist" due next tuesday ✗ “due” must be a day (2026-10-05) or a …`},
		{"add_task", `not json`, tools.Invalid(errors.New("The arguments must be one JSON object.")), `→ add_task not json ✗ The arguments must be one JSON object.`},
		{"add_task", `{"title":"a very long title that goes on and on and on without an end"}`, ok, `→ add_task "a very long title that goes on and on a…" ✓ t12`},
	}
	for _, c := range cases {
		if got := toolLine(c.name, c.args, c.res, tz.MustZone("Europe/Paris")); got != c.want {
			t.Errorf("\n got %s\nwant %s", got, c.want)
		}
	}
}

func TestSystemPromptZones(t *testing.T) {
	now := time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC)
	cases := []struct {
		p    tools.Person
		want string
	}{
		{tools.Person{Name: "Ada", Zone: paris}, "Sunday 2026-03-29, 01:30, in Europe/Paris (UTC+01:00)"},
		{tools.Person{Name: "Bo", Zone: tz.MustZone("America/New_York")}, "Saturday 2026-03-28, 20:30, in America/New_York (UTC-04:00)"},
		{tools.Person{}, "the person"},
	}
	for _, c := range cases {
		if got := systemPrompt(c.p, now, false); !strings.Contains(got, c.want) || strings.Contains(got, "{{") || strings.Contains(got, "undo") {
			t.Errorf("prompt lacks %q:\n%s", c.want, got)
		}
	}
	if got := systemPrompt(cases[0].p, now, true); !strings.Contains(got, "undone with the undo tool") {
		t.Errorf("prompt with undo does not mention it:\n%s", got)
	}
}

// The store-backed conversation keeps whole steps, reads back what the
// model was sent, and is one person's only.
func TestStoreConversation(t *testing.T) { storetest.Engines(t, testStoreConversation) }

func testStoreConversation(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.LocationFrom(t, migrated), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ada, err := s.AddPerson(ctx, "Ada", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	bo, err := s.AddPerson(ctx, "Bo", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := ResumeStoreConversation(ctx, s, ada.ID) // none yet: a new one
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, false,
		callsReply(call{"call_s", "add_note", `{"text":"bread","at":"2026-07-14T07:00Z"}`}),
		textReply("Added n1."),
		textReply("Bread."),
	)
	if _, err := e.agent.Turn(ctx, conv, "note bread"); err != nil {
		t.Fatal(err)
	}
	again, err := ResumeStoreConversation(ctx, s, ada.ID)
	if err != nil || again.ID != conv.ID {
		t.Fatalf("resumed %v, %v; want conversation %d", again, err, conv.ID)
	}
	if _, err := e.agent.Turn(ctx, again, "what did I note?"); err != nil {
		t.Fatal(err)
	}
	sent := e.fake.requests()[2].req.Messages
	if got := shape(sent[1:]); !strings.HasPrefix(got, "user:note bread assistant[call_s] tool:call_s=Added n1") || !strings.HasSuffix(got, "assistant:Added n1. user:what did I note?") {
		t.Errorf("resumed history sent as %s", got)
	}
	if sent[2].ToolCalls[0].Function.Arguments != `{"text":"bread","at":"2026-07-14T07:00Z"}` {
		t.Errorf("stored call arguments changed: %s", sent[2].ToolCalls[0].Function.Arguments)
	}
	stored, _ := again.Load(ctx)
	checkWellFormed(t, asRaw(t, stored))
	if len(stored) != 6 {
		t.Errorf("stored %d messages, want 6", len(stored))
	}
	if _, err := OpenStoreConversation(ctx, s, bo.ID, conv.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another person opened the conversation: %v", err)
	}
	if fresh, err := NewStoreConversation(ctx, s, ada.ID); err != nil || fresh.ID == conv.ID {
		t.Errorf("new conversation %v, %v", fresh, err)
	}
	raw, _ := json.Marshal(stored[1])
	if strings.Contains(string(raw), `"index"`) {
		t.Errorf("stored call keeps a stream index: %s", raw)
	}
}

// A name that is only a placeholder ("me", empty) is not used to address
// the person: the prompt speaks of them instead.
func TestSystemPromptPlaceholderName(t *testing.T) {
	now := time.Date(2026, 3, 29, 9, 0, 0, 0, time.UTC)
	for _, name := range []string{"me", "", " Me ", "user"} {
		got := systemPrompt(tools.Person{Name: name, Zone: paris}, now, true)
		for _, want := range []string{"assistant of the person you are talking with:", "their zone."} {
			if !strings.Contains(got, want) {
				t.Errorf("name %q: prompt lacks %q:\n%s", name, want, got)
			}
		}
		if strings.Contains(strings.ToLower(got), "of me") || strings.Contains(got, "me asks") || strings.Contains(got, "zone me") {
			t.Errorf("name %q: prompt addresses a placeholder:\n%s", name, got)
		}
	}
	got := systemPrompt(tools.Person{Name: "Ada", Zone: paris}, now, false)
	for _, want := range []string{"assistant of Ada:", "their zone."} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
}

// An undo's line names the change it undid, not the change recording the
// undo, whatever order the answer's words give them in.
func TestToolLineUndo(t *testing.T) {
	undid := tools.SuccessWithData("This undo is c8 (undoing c7, add_task): deleted t3.",
		map[string]any{"change": "c8", "undid": "c7", "tool": "add_task"})
	if got, want := toolLine("undo", `{}`, undid, paris), "→ undo ✓ undid c7"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := toolLine("undo", `{"change":"c7"}`, undid, paris), "→ undo c7 ✓ undid c7"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Data without "undid" leaves the first id of the text.
	added := tools.SuccessWithData("Added t12 “Dentist” (c9).", map[string]any{"id": "t12", "change": "c9"})
	if got, want := toolLine("add_task", `{"title":"Dentist"}`, added, paris), `→ add_task "Dentist" ✓ t12`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// A list answer's line counts what it found, from its data's total, not
// the first id its text quotes.
func TestToolLineCountsAList(t *testing.T) {
	for _, c := range []struct {
		data map[string]any
		want string
	}{
		{map[string]any{"tasks": []any{map[string]any{"id": "t48"}, map[string]any{"id": "t3"}}, "total": 12}, "→ list_tasks ✓ 12 tasks"},
		{map[string]any{"tasks": []any{map[string]any{"id": "t48"}}, "total": 1}, "→ list_tasks ✓ 1 task"},
		{map[string]any{"tasks": []any{}, "total": 0}, "→ list_tasks ✓ 0 tasks"},
		{map[string]any{"events": []any{map[string]any{"id": "e1"}, map[string]any{"id": "e2"}}}, "→ list_tasks ✓ 2 events"},
		{map[string]any{"id": "t48"}, "→ list_tasks ✓ t48"},
	} {
		res := tools.SuccessWithData("t48 · no due · x", c.data)
		if got := toolLine("list_tasks", `{}`, res, paris); got != c.want {
			t.Errorf("%v: got %s, want %s", c.data, got, c.want)
		}
	}
}
