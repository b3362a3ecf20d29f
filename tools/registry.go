package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/assistant-dev/assistant/args"
)

// Registry holds the tools, in the order they were added, and calls them by
// name. It is safe for concurrent calls once all tools are added.
type Registry struct {
	tools []Tool
	index map[string]int
	// Log receives internal errors and recovered panics; nil logs to
	// slog.Default().
	Log *slog.Logger
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{index: map[string]int{}} }

// Add registers t. A tool that breaks the rules of Tool.Check, or a name
// added twice, panics: a misconfigured tool fails at start-up, not at its
// first call.
func (r *Registry) Add(t Tool) {
	if err := t.Check(); err != nil {
		panic("tools: " + err.Error())
	}
	if _, dup := r.index[t.Name]; dup {
		panic("tools: tool " + t.Name + " added twice")
	}
	r.index[t.Name] = len(r.tools)
	r.tools = append(r.tools, t)
}

// Tools returns the tools in the order they were added.
func (r *Registry) Tools() []Tool { return append([]Tool(nil), r.tools...) }

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	i, ok := r.index[name]
	if !ok {
		return Tool{}, false
	}
	return r.tools[i], true
}

// Names returns the tool names in the order they were added.
func (r *Registry) Names() []string {
	out := make([]string, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Name
	}
	return out
}

// Subset returns a new Registry with only the tools for which keep is true,
// in the same order.
func (r *Registry) Subset(keep func(Tool) bool) *Registry {
	s := NewRegistry()
	s.Log = r.Log
	for _, t := range r.tools {
		if keep(t) {
			s.Add(t)
		}
	}
	return s
}

// Call runs the tool called name with the raw JSON arguments raw (an
// object; empty or null reads as {}) on a per-call copy of tc, and returns
// the result with that copy, from which the caller reads result metadata.
//
// Call never panics and never returns a Go error: an unknown tool name,
// arguments that are not a JSON object or do not fit the schema's names,
// and a panic or internal error inside the handler each become a failed
// ExecResult with a sentence a model can act on.
func (r *Registry) Call(ctx context.Context, tc *ToolContext, name string, raw []byte) (res ExecResult, call *ToolContext) {
	if tc == nil {
		tc = &ToolContext{}
	}
	call = tc.ForCall()
	t, ok := r.Get(name)
	if !ok {
		return Failure(CodeInvalid, r.unknownSentence(name)), call
	}
	if src, ok := Get[PersonSource](call); ok && src != nil {
		p, err := src(ctx)
		if err != nil {
			r.logger().Error("reading the person", "tool", name, "err", err)
			res = Internal(err)
			if explain, ok := Get[ExplainError](call); ok && explain != nil {
				if s := explain(err); s != "" {
					res.Err = s
				}
			}
			return res, call
		}
		Insert(call, p)
	}
	a, err := args.New(raw, t.Schema.Names(), t.Schema.Required)
	if err != nil {
		return Invalid(err), call
	}
	defer func() {
		if p := recover(); p != nil {
			r.logger().Error("tool panicked", "tool", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res = Internal(fmt.Errorf("panic: %v", p))
		}
	}()
	res = t.Handler(ctx, call, a)
	if res.Code == CodeOK && a.Err() != nil {
		// A handler that read a bad argument but forgot to check Err must
		// not report success for a call it did not make as asked.
		res = Invalid(a.Err())
	}
	if res.Code == CodeInternal && res.internal != nil {
		if errors.Is(res.internal, context.Canceled) {
			res.Err = "The call was cancelled before it finished; nothing was changed."
		} else if explain, ok := Get[ExplainError](call); ok && explain != nil {
			if s := explain(res.internal); s != "" {
				res.Err = s
			}
		}
		r.logger().Error("tool failed", "tool", name, "err", res.internal)
	}
	return res, call
}

func (r *Registry) logger() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

func (r *Registry) unknownSentence(name string) string {
	names := r.Names()
	sort.Strings(names)
	if best := closest(name, names); best != "" {
		return fmt.Sprintf("There is no tool “%s”; did you mean “%s”? The tools are: %s.", name, best, strings.Join(names, ", "))
	}
	return fmt.Sprintf("There is no tool “%s”. The tools are: %s.", name, strings.Join(names, ", "))
}

// closest returns the name within edit distance 2 of s, or "".
func closest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
