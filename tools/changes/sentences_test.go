package changes

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestBadArguments gives every argument of undo and list_changes a wrong
// value and keeps each refusal's sentence in testdata/sentences.golden, so
// a change of wording is a reviewed diff; nothing is undone by a refused
// call.
func TestBadArguments(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		cases := []struct{ tool, raw, want string }{
			{"undo", `{"change":"t12"}`, "“change” must be a change id such as “c31”"},
			{"undo", `{"change":"c"}`, "“change” must be a change id such as “c31”"},
			{"undo", `{"change":31}`, "“change” must be one line of text"},
			{"undo", `{"change_id":"c31"}`, "“change_id” is not one of this tool's arguments, which are: change."},
			{"list_changes", `{"limit":0}`, "“limit” must be a whole number from 1 to 200"},
			{"list_changes", `{"limit":201}`, "“limit” must be a whole number from 1 to 200"},
			{"list_changes", `{"limit":"many"}`, "“limit” must be a whole number from 1 to 200"},
			{"list_changes", `{"before":"c0"}`, "“before” must be a change id such as “c31”"},
			{"list_changes", `{"before":"yesterday"}`, "“before” must be a change id such as “c31”"},
			{"list_changes", `{"since":"2026-10-01"}`, "“since” is not one of this tool's arguments, which are: limit, before."},
		}
		var sentences strings.Builder
		for _, c := range cases {
			res, _ := e.call(t, e.alice, c.tool, c.raw)
			if res.Code != tools.CodeInvalid || !strings.Contains(res.Err, c.want) {
				t.Errorf("%s %s: code %v %q, want invalid with %q", c.tool, c.raw, res.Code, res.Err, c.want)
			}
			fmt.Fprintf(&sentences, "%s %s\n  %s\n", c.tool, c.raw, res.Err)
		}
		if t.Failed() {
			return
		}
		tooltest.Golden(t, "sentences.golden", sentences.String(), *update)
	})
}
