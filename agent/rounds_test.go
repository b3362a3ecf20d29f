package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A small local model often writes what a person says ("tomorrow 9am",
// "1h30m") where a tool wants ISO 8601, or an id without its letter, and
// needs a refusal to learn the form. The tests here count the rounds
// (requests to the model) such mistakes cost: a scripted model makes its
// first attempt as a small model does, and only after a refusal sends
// the corrected call a model writes from the sentence. Each round is
// a whole request with every tool, so a round saved is a prompt saved.

// mistake is one request of a person and what the scripted model tries.
type mistake struct {
	name     string
	user     string
	attempts []call         // the small model's first try, then its fixes
	ok       *regexp.Regexp // the tool answer that ends the trying
	rounds   int            // the most model requests the turn may take
}

// roundsModel answers as a chat model that tries each attempt in turn
// until a tool answer matches ok, then says it is done. It is
// stateless between requests, as a server is: it reads what happened
// from the messages it is sent.
type roundsModel struct {
	t        testing.TB
	mu       sync.Mutex
	m        mistake
	requests int
	answers  []string // the tool answers the model read, for the log
}

func (s *roundsModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The tool answers since the person's message, in order.
	var answers []string
	for _, msg := range req.Messages {
		switch msg.Role {
		case openai.ChatMessageRoleUser:
			answers = nil
		case openai.ChatMessageRoleTool:
			answers = append(answers, msg.Content)
		}
	}
	s.mu.Lock()
	s.requests++
	m := s.m
	if len(answers) > 0 {
		s.answers = append(s.answers, answers[len(answers)-1])
	}
	s.mu.Unlock()
	var body string
	switch {
	case len(answers) > 0 && m.ok.MatchString(answers[len(answers)-1]):
		body = textBody("Done.")
	case len(answers) >= len(m.attempts):
		body = textBody("I could not do it.")
	default:
		a := m.attempts[len(answers)]
		args, _ := json.Marshal(a.args)
		body = fmt.Sprintf(`{"id":"chatcmpl-r","object":"chat.completion","created":1783958400,"model":"small",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[`+
			`{"id":"call_%d","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":"tool_calls"}]}`,
			len(answers), a.name, args)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

func textBody(text string) string {
	c, _ := json.Marshal(text)
	return `{"id":"chatcmpl-r","object":"chat.completion","created":1783958400,"model":"small",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":` + c2s(c) + `},"finish_reason":"stop"}]}`
}

func c2s(b []byte) string { return string(b) }

// smallModelMistakes are what small models were seen to write, on Monday
// 2026-07-13 18:00 in Paris (the realEnv clock), each with the call a
// model writes once a refusal has shown it the form.
func smallModelMistakes() []mistake {
	added := regexp.MustCompile(`^Added [te]\d+`)
	return []mistake{
		{name: "due tomorrow 9am", user: "remind me to call the plumber tomorrow at 9",
			attempts: []call{
				{name: "add_task", args: `{"title":"Call the plumber","due":"tomorrow 9am"}`},
				{name: "add_task", args: `{"title":"Call the plumber","due":"2026-07-14T09:00"}`},
			}, ok: added, rounds: 2},
		{name: "start friday 14:00, duration 1h30m", user: "dentist on friday at 2pm, an hour and a half",
			attempts: []call{
				{name: "add_event", args: `{"title":"Dentist","start":"friday 14:00","duration":"1h30m"}`},
				{name: "add_event", args: `{"title":"Dentist","start":"2026-07-17T14:00","duration":"1h30m"}`},
				{name: "add_event", args: `{"title":"Dentist","start":"2026-07-17T14:00","duration":90}`},
			}, ok: added, rounds: 2},
		{name: "start in 2 hours, duration 45 min", user: "team sync in two hours, 45 minutes",
			attempts: []call{
				{name: "add_event", args: `{"title":"Team sync","start":"in 2 hours","duration":"45 min"}`},
				{name: "add_event", args: `{"title":"Team sync","start":"2026-07-13T20:00","duration":"45 min"}`},
				{name: "add_event", args: `{"title":"Team sync","start":"2026-07-13T20:00","duration":45}`},
			}, ok: added, rounds: 2},
		{name: "due in 3 days", user: "file the report in 3 days",
			attempts: []call{
				{name: "add_task", args: `{"title":"File the report","due":"in 3 days"}`},
				{name: "add_task", args: `{"title":"File the report","due":"2026-07-16"}`},
			}, ok: added, rounds: 2},
		{name: "list next week", user: "what is on next week?",
			attempts: []call{
				{name: "list_events", args: `{"from":"next week"}`},
				{name: "list_events", args: `{"from":"2026-07-20"}`},
			}, ok: regexp.MustCompile(`^[^“]`), rounds: 2},
		{name: "id without its letter", user: "the plumber one is done",
			attempts: []call{
				{name: "complete_task", args: `{"id":"1"}`},
				{name: "complete_task", args: `{"id":"t1"}`},
			}, ok: regexp.MustCompile(`^Done: t1`), rounds: 2},
		{name: "remind_before 30 min", user: "pay rent on the 1st, remind me half an hour before",
			attempts: []call{
				{name: "add_task", args: `{"title":"Pay rent","due":"2026-08-01T10:00","remind_before":"30 min"}`},
				{name: "add_task", args: `{"title":"Pay rent","due":"2026-08-01T10:00","remind_before":30}`},
			}, ok: added, rounds: 2},
		{name: "end before start", user: "block 3 to 1 on friday for focus",
			attempts: []call{
				{name: "add_event", args: `{"title":"Focus","start":"2026-07-17T15:00","end":"2026-07-17T13:00"}`},
				{name: "add_event", args: `{"title":"Focus","start":"2026-07-17T13:00","end":"2026-07-17T15:00"}`},
			}, ok: added, rounds: 3},
	}
}

// TestSmallModelRounds runs each mistake as one turn on the real tools
// and a real store, and fails when it takes more rounds than it may or
// does not end with the change made; the rounds are logged (go test -v)
// for the comparison kept in docs/chat.md.
func TestSmallModelRounds(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newRealEnv(t, false)
		model := &roundsModel{t: t}
		srv := httptest.NewServer(model)
		t.Cleanup(srv.Close)
		e.cfg.BaseURL = srv.URL + "/v1"
		e.build()
		total := 0
		for _, m := range smallModelMistakes() {
			model.mu.Lock()
			model.m, model.requests, model.answers = m, 0, nil
			model.mu.Unlock()
			answer, err := e.agent.Turn(e.ctx, NewMemory(), m.user)
			if err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			model.mu.Lock()
			n := model.requests
			for _, a := range model.answers {
				t.Logf("  the tool answered: %.200s", a)
			}
			model.mu.Unlock()
			total += n
			t.Logf("%-36s %d rounds", m.name, n)
			if answer != "Done." {
				t.Errorf("%s: the model never got an answer matching %s; it said %q", m.name, m.ok, answer)
			}
			if n > m.rounds {
				t.Errorf("%s: %d rounds, want at most %d", m.name, n, m.rounds)
			}
		}
		t.Logf("%-36s %d rounds", "all", total)
	})
}
