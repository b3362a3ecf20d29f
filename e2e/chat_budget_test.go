package e2e

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// budgetQuestion is the n-th message of the long conversation: about 200
// characters, so three turns (about 230 characters each with the answer
// and the framing) do not fit in a budget of 500.
func budgetQuestion(n int) string {
	return fmt.Sprintf("question %d: %s", n, strings.Repeat("x", 200))
}

// sentRoles lists the messages of one request as "role:first words", so a
// failure shows what was sent.
func sentRoles(req map[string]any) []string {
	var out []string
	for _, m := range req["messages"].([]any) {
		mm := m.(map[string]any)
		text, _ := mm["content"].(string)
		if mm["role"] == "system" {
			text = ""
		}
		text, _, _ = strings.Cut(text, ":")
		out = append(out, fmt.Sprint(mm["role"], ":", text))
	}
	return out
}

// A conversation of three one-message runs of the built binary: with the
// default budget the third request sends it whole; with a budget of 500
// characters, from the flag, ASSISTANT_HISTORY_BUDGET or the config file,
// it sends the system prompt and the last two turns only, the oldest
// dropped whole. The flag wins over the environment and the environment
// over the config file, each of which would fail the run if it were read.
func TestChatHistoryBudgetThroughTheBinary(t *testing.T) {
	storetest.Engines(t, testChatHistoryBudgetThroughTheBinary)
}

func testChatHistoryBudgetThroughTheBinary(t *testing.T) {
	whole := []string{"system:", "user:question 1", "assistant:answer 1", "user:question 2", "assistant:answer 2", "user:question 3"}
	cut := []string{"system:", "user:question 2", "assistant:answer 2", "user:question 3"}
	cases := []struct {
		name   string
		flag   string // --history-budget, when not ""
		env    string // ASSISTANT_HISTORY_BUDGET, when not ""
		config string // the config file's [chat] history_budget line, when not ""
		want   []string
	}{
		{name: "default", want: whole},
		{name: "flag", flag: "500", want: cut},
		{name: "environment", env: "500", want: cut},
		{name: "config file", config: "history_budget = 500", want: cut},
		{name: "flag over environment", flag: "500", env: "lots", want: cut},
		{name: "environment over config file", env: "500", config: "history_budget = 0", want: cut},
		{name: "large budget", flag: "100000", want: whole},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &scriptedModel{t: t, answers: [][]string{answerOnce("answer 1"), answerOnce("answer 2"), answerOnce("answer 3")}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			h := newHome(t)
			h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
			h.env["ASSISTANT_MODEL"] = "test-model"
			if c.env != "" {
				h.env["ASSISTANT_HISTORY_BUDGET"] = c.env
			}
			if c.config != "" {
				conf := filepath.Join(h.dir, "config", "assistant", "config.toml")
				if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(conf, []byte("[chat]\n"+c.config+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for n := 1; n <= 3; n++ {
				args := []string{"chat", "-m", budgetQuestion(n)}
				if c.flag != "" {
					args = append(args, "--history-budget", c.flag)
				}
				r := h.must(args...)
				if want := fmt.Sprintf("answer %d\n", n); r.stdout != want {
					t.Fatalf("run %d: stdout = %q, want %q\n%s", n, r.stdout, want, r)
				}
			}
			reqs := fake.requests()
			if len(reqs) != 3 {
				t.Fatalf("want 3 requests, got %d", len(reqs))
			}
			if got := sentRoles(reqs[2]); !slices.Equal(got, c.want) {
				t.Errorf("third request sent %q, want %q", got, c.want)
			}
			// What is sent is cut, not what is kept: the next run of the
			// same conversation would still list all six messages.
			listArgs := []string{"chat", "--list"}
			if c.flag != "" {
				listArgs = append(listArgs, "--history-budget", c.flag)
			}
			list := h.must(listArgs...)
			if !strings.Contains(list.stdout, "  6  ") {
				t.Errorf("chat --list does not show the 6 messages kept:\n%s", list)
			}
		})
	}
}

// A history budget that is not a whole number above 0 is a wrong setting
// (exit 10) named with where it came from; no model request is made.
func TestChatHistoryBudgetRefused(t *testing.T) { storetest.Engines(t, testChatHistoryBudgetRefused) }

func testChatHistoryBudgetRefused(t *testing.T) {
	conf := "“chat.history_budget” in the config file “%s”"
	cases := []struct {
		flag, env, config string
		from              string // where the sentence says the value came from (%s: the config file)
		value             string
	}{
		{flag: "0", from: "“--history-budget”", value: "0"},
		{flag: "-5", from: "“--history-budget”", value: "-5"},
		{flag: "lots", from: "“--history-budget”", value: "lots"},
		{flag: "8000.5", from: "“--history-budget”", value: "8000.5"},
		{env: "0", from: "ASSISTANT_HISTORY_BUDGET", value: "0"},
		{env: "8k", from: "ASSISTANT_HISTORY_BUDGET", value: "8k"},
		{config: "history_budget = -1", from: conf, value: "-1"},
		{config: `history_budget = "many"`, from: conf, value: "many"},
		{config: "history_budget = 0", from: conf, value: "0"},
	}
	for _, c := range cases {
		h := newHome(t)
		h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
		h.env["OPENAI_BASE_URL"] = "http://" + closedAddr(t) + "/v1"
		confPath := filepath.Join(h.dir, "config", "assistant", "config.toml")
		if c.config != "" {
			if err := os.MkdirAll(filepath.Dir(confPath), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(confPath, []byte("[chat]\n"+c.config+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if c.env != "" {
			h.env["ASSISTANT_HISTORY_BUDGET"] = c.env
		}
		args := []string{"chat", "-m", "hi"}
		if c.flag != "" {
			args = append(args, "--history-budget="+c.flag)
		}
		r := h.run(args...)
		from := c.from
		if c.config != "" {
			from = fmt.Sprintf(c.from, confPath)
		}
		want := fmt.Sprintf("assistant: %s must be a whole number of characters above 0, such as 8000, not “%s”\n", from, c.value)
		if r.code != 10 || r.stderr != want {
			t.Errorf("flag %q env %q config %q: want exit 10 and %q, got %s", c.flag, c.env, c.config, want, r)
		}
	}
}
