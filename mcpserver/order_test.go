package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestStdioCallsSeeEarlierWrites writes add_task and list_tasks (and
// then complete_task and get_task) in one write, without waiting for an
// answer, on a fresh database each round: every read must see the change
// written before it. Unordered, the go-sdk runs them at once and the list
// sometimes misses the task; 50 rounds catch that. On PostgreSQL, where a
// fresh database costs a CREATE DATABASE and a migration, each round is a
// fresh person in one database instead (ids are the database's, so round
// r's task is t(r+1)).
func TestStdioCallsSeeEarlierWrites(t *testing.T) {
	storetest.Engines(t, testStdioCallsSeeEarlierWrites)
}

func testStdioCallsSeeEarlierWrites(t *testing.T) {
	var env *tooltest.Env
	for round := range 50 {
		name, id := "ada", "t1"
		if storetest.Engine(t) == storetest.SQLite || env == nil {
			env = tooltest.Open(t, catalogNow)
		}
		if storetest.Engine(t) == storetest.Postgres {
			name, id = fmt.Sprintf("ada%d", round), fmt.Sprintf("t%d", round+1)
		}
		person := env.Person(name, "Europe/Paris")
		serverIn, clientOut, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		clientIn, serverOut, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			done <- serve(context.Background(), catalog.New(), env.Context(person), nil, &lineTransport{r: serverIn, w: serverOut})
		}()
		title := fmt.Sprintf("Round %d task", round)
		calls := []string{
			rawInit, rawInitialized,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_task","arguments":{"title":%q}}}`, title),
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_tasks","arguments":{}}}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"complete_task","arguments":{"id":%q}}}`, id),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_task","arguments":{"id":%q}}}`, id),
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_tasks","arguments":{"status":"done"}}}`,
		}
		if _, err := io.WriteString(clientOut, strings.Join(calls, "\n")+"\n"); err != nil {
			t.Fatal(err)
		}
		clientOut.Close()
		answers := map[string]string{}
		scan := bufio.NewScanner(clientIn)
		scan.Buffer(nil, 4<<20)
		for scan.Scan() {
			var r reply
			if err := json.Unmarshal(scan.Bytes(), &r); err != nil {
				t.Fatalf("round %d: answer %q: %v", round, scan.Text(), err)
			}
			answers[string(r.ID)] = string(r.Result)
		}
		clientIn.Close()
		if err := <-done; err != nil {
			t.Fatalf("round %d: serve: %v", round, err)
		}
		if !strings.Contains(answers["3"], title) {
			t.Errorf("round %d: list_tasks written after add_task missed the task: %s", round, answers["3"])
		}
		if strings.Contains(answers["4"], `"isError":true`) {
			t.Errorf("round %d: complete_task %s written after add_task failed: %s", round, id, answers["4"])
		}
		if !strings.Contains(answers["5"], `\"status\":\"done\"`) && !strings.Contains(answers["5"], `"status":"done"`) {
			t.Errorf("round %d: get_task written after complete_task does not show it done: %s", round, answers["5"])
		}
		if !strings.Contains(answers["6"], title) {
			t.Errorf("round %d: list_tasks status=done written after complete_task missed the task: %s", round, answers["6"])
		}
	}
}
