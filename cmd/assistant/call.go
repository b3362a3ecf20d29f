package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
)

func newCallCmd(a *app) *cobra.Command {
	var asJSON bool
	var rawArgs string
	cmd := &cobra.Command{
		Use:   "call TOOL [name=value ...] [-]",
		Short: "Run one tool as the person, from the shell",
		Long: `Run one tool as the person and print its answer: the whole text on
standard output, however long (only chat and MCP cut answers to fit a
model), or the error sentence on standard error. The exit code is the
tool's result code (0 ok, 1 invalid argument, 4 not found, 5 conflict,
6 internal error).

Each name=value is typed by the tool's schema (see "assistant tools TOOL"):
a text argument stays text (title=42 is the text "42"); a number is sent as
a JSON number when it reads as one; true and false are booleans; a list
takes one item (tags=home), a JSON array (tags='["home","work"]'), or the
name repeated (tags=home tags=work). --args takes the whole JSON object,
and "-" (or --args -) reads it from standard input; name=value pairs given
as well replace its members.`,
		Example: `  assistant call add_task title="Buy milk" due=2026-12-01 priority=2
  assistant call add_task title="Call mum" tags=family tags=phone
  assistant call list_tasks --json
  assistant call add_event --args '{"title":"Standup","start":"2026-10-05T09:30","rrule":"FREQ=WEEKLY;BYDAY=MO"}'
  echo '{"limit":5}' | assistant call list_changes -`,
		Args: minArgs(1, "a tool name; “assistant tools” lists them"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			reg := newRegistry()
			if len(args) == 0 {
				return reg.Names(), cobra.ShellCompDirectiveNoFileComp
			}
			t, ok := reg.Get(args[0])
			if !ok {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, p := range t.Schema.Properties {
				out = append(out, cobra.CompletionWithDesc(p.Name+"=", firstSentence(p.Description)))
			}
			return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCall(cmd, args[0], args[1:], rawArgs, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON (code, out, err, data)")
	cmd.Flags().StringVar(&rawArgs, "args", "", "the arguments as one JSON object, or - to read it from standard input")
	return cmd
}

func (a *app) runCall(cmd *cobra.Command, name string, pairs []string, rawArgs string, asJSON bool) error {
	reg := newRegistry()
	t, ok := reg.Get(name)
	if !ok {
		res := tools.Failure(tools.CodeInvalid, fmt.Sprintf("There is no tool “%s”; this build has no tools yet.", name))
		if len(reg.Names()) > 0 {
			res, _ = reg.Call(cmd.Context(), nil, name, nil)
		}
		return a.printResult(res, asJSON)
	}

	var stdinJSON []byte
	var rest []string
	for _, p := range pairs {
		if p == "-" {
			rawArgs = "-"
			continue
		}
		rest = append(rest, p)
	}
	if rawArgs == "-" {
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return failf(exitInvalid, "cannot read the arguments from standard input: %v", err)
		}
		stdinJSON = b
	} else if rawArgs != "" {
		stdinJSON = []byte(rawArgs)
	}
	raw, err := callArgs(t, stdinJSON, rest)
	var ae *args.Error
	if errors.As(err, &ae) {
		return a.printResult(tools.Invalid(ae), asJSON)
	}
	if err != nil {
		return usageError(cmd, "%v", err)
	}

	st, p, err := a.session(cmd.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	reg.Log = a.printedLog()
	res, _ := reg.Call(cmd.Context(), a.toolContext(st, p), name, raw)
	return a.printResult(res, asJSON)
}

// printResult writes a tool's result the shell way and ends with its code;
// an internal failure caused by the disk or the file under the database
// ends with that Trouble's code instead (11, 12 or 13), as other commands do.
func (a *app) printResult(res tools.ExecResult, asJSON bool) error {
	code := res.Code
	if code == tools.CodeInternal {
		if c := troubleExit(store.TroubleOf(res.Cause())); c != 0 {
			code = c
		}
	}
	if asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fail(exitInternal, err)
		}
		a.printf("%s\n", b)
		return quietExit(code)
	}
	if res.OK() {
		if out := res.TextOut(); out != "" {
			fmt.Fprintln(a.stdout, strings.TrimRight(out, "\n"))
		}
	} else if msg := res.TextOut(); msg != "" {
		fmt.Fprintln(a.stderr, strings.TrimRight(msg, "\n"))
	}
	return quietExit(code)
}

// callArgs builds the JSON object of a call from the --args object (nil
// when none) and the name=value pairs, typing each value by t's schema.
// The object itself is not checked against the schema: the registry's
// Args reader does that, with the same sentences every front gives.
func callArgs(t tools.Tool, object []byte, pairs []string) (json.RawMessage, error) {
	members := map[string]any{}
	if err := args.CheckText(object); err != nil {
		return nil, err // encoding/json would keep U+FFFD
	}
	if err := args.CheckNames(object); err != nil {
		return nil, err // and the last of a name given twice
	}
	if len(bytes.TrimSpace(object)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(object))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			// Said in our words, never the decoder's; the args reader words
			// a cut-off or broken object as every front does.
			switch {
			case !utf8.Valid(object):
				return nil, fmt.Errorf("“--args” is not UTF-8 text; send one JSON object such as {\"title\":\"Buy milk\"}")
			case strings.Contains(err.Error(), "exceeded max depth"): // encoding/json's limit, 10000
				return nil, fmt.Errorf("“--args” nests arrays or objects more than 10000 deep; send one plain JSON object such as {\"title\":\"Buy milk\"}")
			}
			if _, aerr := args.New(object, nil, nil); aerr != nil {
				return nil, aerr
			}
			return nil, fmt.Errorf("“--args” must be one JSON object such as {\"title\":\"Buy milk\"}")
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("“--args” must be one JSON object such as {\"title\":\"Buy milk\"}, not %s", strings.TrimSpace(string(object)))
		}
		if dec.More() {
			return nil, fmt.Errorf("“--args” must be one JSON object, with nothing after it")
		}
		members = m
	}
	fromPairs := map[string]bool{}
	for _, pair := range pairs {
		name, value, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if !utf8.ValidString(pair) {
			// argv is bytes; json.Marshal would keep U+FFFD
			return nil, args.InvalidText(name)
		}
		if !ok || name == "" {
			return nil, fmt.Errorf("“%s” is not name=value; write for example title=\"Buy milk\"", pair)
		}
		prop, known := t.Schema.Property(name)
		if !known {
			// Passed on as text, so Args refuses it with the list of names
			// the tool takes.
			prop = tools.Property{Name: name, Type: "string"}
		}
		if prop.Type == "array" {
			items, err := arrayItems(prop, value)
			if err != nil {
				return nil, err
			}
			prev, _ := members[name].([]any)
			if !fromPairs[name] {
				prev = nil // a pair replaces what --args said
			}
			members[name] = append(prev, items...)
			fromPairs[name] = true
			continue
		}
		if fromPairs[name] {
			return nil, fmt.Errorf("“%s” is given twice; give it once (only list arguments repeat)", name)
		}
		fromPairs[name] = true
		members[name] = scalar(prop.Type, value)
	}
	b, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// scalar types one value by its property's JSON Schema type. A value that
// does not read as that type is passed as text, so the tool's Args reader
// answers with its own sentence naming the argument.
func scalar(typ, value string) any {
	switch typ {
	case "integer", "number":
		if isJSONNumber(value) {
			return json.Number(strings.TrimSpace(value))
		}
	case "boolean":
		switch strings.TrimSpace(value) {
		case "true":
			return true
		case "false":
			return false
		}
	}
	return value
}

// arrayItems reads one name=value of a list argument: a JSON array as a
// whole, else one item typed by the list's item type.
func arrayItems(p tools.Property, value string) ([]any, error) {
	if v := strings.TrimSpace(value); strings.HasPrefix(v, "[") {
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		var items []any
		if err := dec.Decode(&items); err != nil || dec.More() {
			return nil, fmt.Errorf("“%s” starts like a JSON array but is not one; write %s='[\"a\",\"b\"]' or repeat %s=a %s=b", p.Name, p.Name, p.Name, p.Name)
		}
		return items, nil
	}
	return []any{scalar(p.Items, value)}, nil
}

// isJSONNumber reports whether s (trimmed) is a JSON number literal.
func isJSONNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// printedLog is the log of a command that prints each tool result's
// sentence itself (call, agenda, week): the registry's warnings (a call
// stopped, a database busy or full) say what that sentence says, so only
// its errors (a fault inside, with the cause a report needs) are written,
// unless the log level is debug.
func (a *app) printedLog() *slog.Logger {
	if a.logLevel <= slog.LevelDebug {
		return a.log
	}
	return slog.New(errorsOnly{a.log.Handler()})
}

// errorsOnly is a handler that passes on error records only.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}
func (h errorsOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return errorsOnly{h.Handler.WithAttrs(as)}
}
func (h errorsOnly) WithGroup(name string) slog.Handler { return errorsOnly{h.Handler.WithGroup(name)} }
