package tools_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// notes is a journaled table only these tests create.
func init() { store.RegisterTable("notes") }

// noteTool is a tool with the properties name and loud, whose read step is
// read.
func noteTool(read func(a *args.Args, e *tools.Env) string) tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "note",
		Description: "Says a name back.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("name", "The name."), tools.Bool("loud", "Shout it."),
		}},
	}, read, func(e *tools.Env, name string) tools.ExecResult { return tools.Success("hello " + name) })
}

// addPanic returns what Registry.Add panicked with, "" when it did not.
func addPanic(t tools.Tool) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint(p)
		}
	}()
	tools.NewRegistry().Add(t)
	return ""
}

func TestDefineUndeclaredPanicsAtAdd(t *testing.T) {
	cases := []struct {
		name string
		read func(a *args.Args, e *tools.Env) string
		want string // in the panic; "" for none
	}{
		{"declared names only", func(a *args.Args, e *tools.Env) string {
			a.Flag("loud")
			return a.Line("name")
		}, ""},
		{"a misspelt name", func(a *args.Args, e *tools.Env) string { return a.Line("nmae") }, `reads the argument "nmae", which its schema does not declare`},
		{"after a failure is kept", func(a *args.Args, e *tools.Env) string {
			a.Fail("name", "“name” is wrong.")
			return a.Text("title")
		}, `"title"`},
		{"only when an argument is given", func(a *args.Args, e *tools.Env) string {
			if a.Flag("loud") {
				return a.Line("volume")
			}
			return a.Line("name")
		}, `"volume"`},
		{"through Has", func(a *args.Args, e *tools.Env) string {
			if a.Has("colour") {
				return "x"
			}
			return ""
		}, `"colour"`},
		{"a moment getter", func(a *args.Args, e *tools.Env) string {
			m, _ := a.Moment("due", e.Zone)
			return m.String()
		}, `"due"`},
		{"a read that touches the store", func(a *args.Args, e *tools.Env) string {
			return fmt.Sprint(e.Store.DB() != nil)
		}, "its read step panicked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := addPanic(noteTool(c.read))
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Fatalf("Add panicked with %q, want %q", got, c.want)
			}
		})
	}
}

// TestDefineCall runs a Define'd tool through the Registry: the Env the
// run step gets, an argument failure answered before run, and an
// undeclared name on a branch no probe reached answered as an internal
// error, not a crash.
func TestDefineCall(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC), func(r *tools.Registry) {
			r.Add(tools.Define(tools.Tool{
				Name:        "greet",
				Description: "Greets.",
				Schema: tools.Schema{Properties: []tools.Property{
					tools.Str("name", "The name."), tools.Int("times", "1 to 3.").Range(1, 3),
				}},
			}, func(a *args.Args, _ *tools.Env) string {
				name := a.Line("name")
				a.Number("times", 1, 1, 3)
				if name == "drift" {
					a.Line("undeclared")
				}
				return name
			}, func(env *tools.Env, name string) tools.ExecResult {
				env.Changed("c9", "n1")
				return tools.Success(fmt.Sprintf("%s %s %s %s %v %s", name, env.Tool, env.Person.Name, env.Zone, env.Store != nil,
					env.Now.Format(time.RFC3339Nano)))
			}))
		})
		alice := e.Person("alice", "Europe/Paris")
		e.Now = time.Date(2026, 10, 5, 9, 30, 15, 987654321, time.FixedZone("x", 3600))
		res, call := e.Call(alice, "greet", `{"name":"Ann"}`)
		if want := "Ann greet alice Europe/Paris true 2026-10-05T08:30:15Z"; res.Code != tools.CodeOK || res.Out != want {
			t.Fatalf("greet = %d %q, want %q", res.Code, res.TextOut(), want)
		}
		if ch, ok := tools.Result[tools.Changed](call); !ok || ch.Change != "c9" || len(ch.Items) != 1 || ch.Items[0] != "n1" {
			t.Fatalf("Changed = %+v %v", ch, ok)
		}
		res, _ = e.Call(alice, "greet", `{"name":"Ann","times":9}`)
		if res.Code != tools.CodeInvalid || !strings.Contains(res.Err, "“times”") {
			t.Fatalf("bad times = %d %q", res.Code, res.TextOut())
		}
		res, _ = e.Call(alice, "greet", `{"name":"drift"}`)
		if res.Code != tools.CodeInternal || res.Err != tools.InternalSentence {
			t.Fatalf("drift = %d %q", res.Code, res.TextOut())
		}
		res, _ = e.Reg.Call(e.Ctx, &tools.ToolContext{}, "greet", []byte(`{"name":"Ann"}`))
		if res.Code != tools.CodeInternal {
			t.Fatalf("no person = %d %q", res.Code, res.TextOut())
		}
	})
}

func TestDefineRefusesAHandler(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Define kept a Handler")
		}
	}()
	tools.Define(tools.Tool{Name: "x", Handler: func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult { return tools.Success("") }},
		func(*args.Args, *tools.Env) int { return 0 }, func(*tools.Env, int) tools.ExecResult { return tools.Success("") })
}

// coded is an error with SQLite's result code, as the driver's errors
// have.
type coded int

func (c coded) Error() string { return fmt.Sprintf("sqlite error (%d)", int(c)) }
func (c coded) Code() int     { return int(c) }

func TestFail(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		code  int
		text  string // the whole Err
		cause bool   // the error is kept for the log
	}{
		{"refusal", tools.Refuse(tools.CodeConflict, "e7 moved meanwhile."), tools.CodeConflict, "e7 moved meanwhile.", false},
		{"refusal, wrapped", fmt.Errorf("in tx: %w", tools.Refuse(tools.CodeNotFound, "There is no event e7.")), tools.CodeNotFound, "There is no event e7.", false},
		{"refusal of an argument", tools.RefuseArg("start", "“start” must be later."), tools.CodeInvalid, "“start” must be later.", false},
		{"args error", &args.Error{Name: "due", Sentence: "“due” must be a day."}, tools.CodeInvalid, "“due” must be a day.", false},
		{"args error, wrapped", fmt.Errorf("read: %w", &args.Error{Name: "due", Sentence: "“due” must be a day."}), tools.CodeInvalid, "“due” must be a day.", false},
		{"recurrence error", &recur.Error{Name: "rrule", Sentence: "“rrule” has no FREQ."}, tools.CodeInvalid, "“rrule” has no FREQ.", false},
		{"not found, from a row", fmt.Errorf("%s does not exist or was deleted: %w", "t12", store.ErrNotFound), tools.CodeNotFound, "t12 does not exist or was deleted.", false},
		{"not found, a sentence", fmt.Errorf("there is no change left to undo: %w", store.ErrNotFound), tools.CodeNotFound, "There is no change left to undo.", false},
		{"conflict", fmt.Errorf("t12 was changed since by c4 (update_task); undo c4 first.: %w", store.ErrConflict), tools.CodeConflict, "t12 was changed since by c4 (update_task); undo c4 first.", false},
		{"reused key", &tools.KeyConflict{Key: "k1", Ref: "t3"}, tools.CodeConflict, "The “key” “k1” was already used for t3 with other arguments; repeat that call exactly, or use a new key for a new item.", false},
		{"store refuses a value", fmt.Errorf("“zone” must be an IANA time zone such as “Europe/Paris”: %w", store.ErrInvalid), tools.CodeInvalid, "“zone” must be an IANA time zone such as “Europe/Paris”.", false},
		{"disk full", fmt.Errorf("write: %w", syscall.ENOSPC), tools.CodeInternal, "The disk holding the database is full (or failing), so nothing was changed; free some space on that disk and try again.", true},
		{"disk full, SQLite", coded(13), tools.CodeInternal, "The disk holding the database is full (or failing), so nothing was changed; free some space on that disk and try again.", true},
		{"read-only", fmt.Errorf("open: %w", syscall.EROFS), tools.CodeInternal, "The database cannot be written, since the file or its folder is read-only, so nothing was changed; give yourself write permission on both, or open it with --db-read-only to read it.", true},
		{"read-only, SQLite", coded(8 | 6<<8), tools.CodeInternal, "The database cannot be written, since the file or its folder is read-only, so nothing was changed; give yourself write permission on both, or open it with --db-read-only to read it.", true},
		{"damaged", coded(11), tools.CodeInternal, "The database is damaged (SQLite finds its file malformed), so the command stopped; copy it aside, then put back a backup: the copy an upgrade makes beside it (FILE.vN.bak, N the schema version it had) or your own, or save what is left with `sqlite3 FILE .recover | sqlite3 recovered.db`.", true},
		{"cancelled", fmt.Errorf("query: %w", context.Canceled), tools.CodeInternal, tools.InternalSentence, true},
		{"anything else", errors.New("sql: no rows in result set"), tools.CodeInternal, tools.InternalSentence, true},
		{"nil", nil, tools.CodeInternal, tools.InternalSentence, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := tools.Fail(c.err)
			if res.Code != c.code || res.Err != c.text {
				t.Fatalf("Fail = %d %q, want %d %q", res.Code, res.Err, c.code, c.text)
			}
			if (res.Cause() != nil) != c.cause {
				t.Fatalf("Cause = %v, want kept: %v", res.Cause(), c.cause)
			}
		})
	}
}

func TestFailItem(t *testing.T) {
	missing := "There is no task t12."
	cases := []struct {
		err  error
		code int
		text string
	}{
		{fmt.Errorf("t12 does not exist or was deleted: %w", store.ErrNotFound), tools.CodeNotFound, missing},
		{tools.Refuse(tools.CodeNotFound, "The “key” “k” was used for t3, which has been deleted since."), tools.CodeNotFound, "The “key” “k” was used for t3, which has been deleted since."},
		{fmt.Errorf("c4: %w", store.ErrConflict), tools.CodeConflict, "c4."},
		{&args.Error{Name: "id", Sentence: "“id” must be a task id."}, tools.CodeInvalid, "“id” must be a task id."},
		{errors.New("boom"), tools.CodeInternal, tools.InternalSentence},
	}
	for _, c := range cases {
		if res := tools.FailItem(c.err, missing); res.Code != c.code || res.Err != c.text {
			t.Errorf("FailItem(%v) = %d %q, want %d %q", c.err, res.Code, res.Err, c.code, c.text)
		}
	}
}

func TestStoreSentence(t *testing.T) {
	for in, want := range map[string]string{
		"c31 is not one of your changes; list_changes shows them": "c31 is not one of your changes; list_changes shows them.",
		"there is no person named “bob”":                          "There is no person named “bob”.",
		"état inconnu.":                                           "État inconnu.",
	} {
		if got := tools.StoreSentence(fmt.Errorf("%s: %w", in, store.ErrNotFound)); got != want {
			t.Errorf("StoreSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
