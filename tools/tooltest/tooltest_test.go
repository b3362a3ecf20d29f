package tooltest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tools"
)

// The Env's clock is one value: At moves it, and both a ToolContext made
// before the move and the store read it afresh.
func TestClockFollowsAt(t *testing.T) {
	e := Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC))
	ada := e.Person("ada", "Europe/Paris")
	if again := e.Person("ada", "America/New_York"); again.ID != ada.ID || again.Zone.Name() != "Europe/Paris" {
		t.Fatalf("a second Person(ada) = %+v, want the stored %+v", again, ada)
	}
	tc := e.Context(ada)
	e.At("America/New_York", "2026-03-08T02:30") // in the spring gap: 03:30 EDT
	want := time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC)
	if got := tools.Now(tc); !got.Equal(want) {
		t.Errorf("the clock after At = %s, want %s", got.UTC(), want)
	}
	if got := e.Store.Now(); !got.Equal(want) {
		t.Errorf("the store's clock after At = %s, want %s", got.UTC(), want)
	}
	if res, _ := e.Call(ada, "no_such_tool", `{}`); res.OK() {
		t.Errorf("a call of an unknown tool succeeded: %s", res.TextOut())
	}
}

// Only tests may import this package: it fails tests, which a running
// program has no business doing.
func TestOnlyTestsImportIt(t *testing.T) {
	const self = "github.com/assistant-dev/assistant/tools/tooltest"
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == self {
				t.Errorf("%s imports %s; only _test.go files may", path, self)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
