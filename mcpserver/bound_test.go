package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Over MCP, list_tasks of 100 tasks with 200-character titles and
// 10,000-character notes answers within 100,000 characters, text and
// structuredContent as serialized together; its tasks leave the notes
// out and get_task gives them whole.
func TestListTasksOverMCPIsBounded(t *testing.T) { storetest.Engines(t, testListTasksOverMCPIsBounded) }

func testListTasksOverMCPIsBounded(t *testing.T) {
	e := newCatalogEnv(t)
	notes := strings.Repeat("n", 10_000)
	for i := range 100 {
		e.ok("add_task", fmt.Sprintf(`{"title":%q,"notes":%q}`, fmt.Sprintf("%03d ", i)+strings.Repeat("t", 196), notes))
	}
	res := e.call("list_tasks", `{"limit":100}`)
	whole, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCount(whole); n > 100_000 {
		t.Errorf("list_tasks over MCP: %d characters, want at most 100,000", n)
	}
	tasks := object(t, res)["tasks"].([]any)
	first := tasks[0].(map[string]any)
	if n, ok := first["notes"].(string); ok {
		t.Errorf("a listed task carries %d characters of notes; they are get_task's only", len(n))
	}
	got := e.ok("get_task", fmt.Sprintf(`{"id":%q}`, first["id"]))
	if n := len(got["task"].(map[string]any)["notes"].(string)); n != 10_000 {
		t.Errorf("get_task gives %d characters of notes, want 10,000", n)
	}
}
