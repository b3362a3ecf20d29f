package tools_test

import (
	"fmt"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
)

// A tool made with Define whose read step asks for a name its schema does
// not declare fails when it is registered, not at its first call.
func ExampleDefine() {
	greet := tools.Define(tools.Tool{
		Name:        "greet",
		Description: "Greets someone.",
		Schema:      tools.Schema{Properties: []tools.Property{tools.Str("name", "Who to greet.")}},
	}, func(a *args.Args, _ *tools.Env) string {
		return a.Line("nmae") // misspelt
	}, func(_ *tools.Env, name string) tools.ExecResult {
		return tools.Success("Hello, " + name + ".")
	})
	defer func() { fmt.Println(recover()) }()
	tools.NewRegistry().Add(greet)
	// Output:
	// tools: tool greet reads the argument "nmae", which its schema does not declare; declare it in Schema.Properties or stop reading it
}

// Fail answers each kind of error with its code and one sentence.
func ExampleFail() {
	for _, err := range []error{
		fmt.Errorf("t12 does not exist or was deleted: %w", store.ErrNotFound),
		tools.RefuseArg("end", "“end” must be after “start”; write a later end."),
		&tools.KeyConflict{Key: "k1", Ref: "t3"},
		fmt.Errorf("cannot read the row: %w", fmt.Errorf("sql: database is closed")),
	} {
		res := tools.Fail(err)
		fmt.Println(res.Code, res.Err)
	}
	// Output:
	// 4 t12 does not exist or was deleted.
	// 1 “end” must be after “start”; write a later end.
	// 5 The “key” “k1” was already used for t3 with other arguments; repeat that call exactly, or use a new key for a new item.
	// 6 Something went wrong inside the assistant; nothing was changed. Try again, or tell the person.
}
