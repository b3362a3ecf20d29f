package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
)

// Registry holds the tools, in the order they were added, and calls them by
// name. It is safe for concurrent calls once all tools are added.
type Registry struct {
	tools []Tool
	index map[string]int
	// Log receives internal errors and recovered panics; nil logs to
	// slog.Default().
	Log *slog.Logger
	// CallTimeout is how long one call may run: Call gives the handler a
	// context with this deadline, and a call that meets it is stopped and
	// answered with a sentence (see Call). Zero means DefaultCallTimeout; a
	// negative value sets no deadline of its own (the caller's context
	// still counts).
	CallTimeout time.Duration
}

// DefaultCallTimeout is the deadline of one tool call when
// Registry.CallTimeout is zero: far above any honest call on a person's
// own data, and short enough that a runaway one gives its CPU back.
const DefaultCallTimeout = 30 * time.Second

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{index: map[string]int{}} }

// Add registers t. A tool that breaks the rules of Tool.Check, a name
// added twice, or a tool made with [Define] whose read step asks for an
// argument its schema does not declare (or panics on the probe arguments)
// panics: a misconfigured tool fails at start-up, not at its first call.
func (r *Registry) Add(t Tool) {
	if err := t.Check(); err != nil {
		panic("tools: " + err.Error())
	}
	if t.probe != nil {
		if err := t.probe(t.Schema); err != nil {
			panic("tools: " + err.Error())
		}
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
	s.Log, s.CallTimeout = r.Log, r.CallTimeout
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
// ExecResult with a sentence a model can act on. Every result is cut to
// the answer bounds ([ExecResult.Bound]).
//
// The handler runs with ctx and the deadline of CallTimeout, and is
// expected to stop when that context is done. A call whose context is done
// (cancelled: the client went away or the server is stopping; or past its
// deadline) and that did not succeed is answered with one sentence saying
// so (CodeInternal, logged at warning level, not as an error); a call whose
// ctx is done before it starts does not run at all.
func (r *Registry) Call(ctx context.Context, tc *ToolContext, name string, raw []byte) (res ExecResult, call *ToolContext) {
	if tc == nil {
		tc = &ToolContext{}
	}
	call = tc.ForCall()
	t, ok := r.Get(name)
	if !ok {
		return Failure(CodeInvalid, r.unknownSentence(name)), call
	}
	timeout := r.CallTimeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errCallTimeout)
		defer cancel()
	}
	defer func() {
		if res.Code != CodeOK && ctx.Err() != nil {
			res = r.stopped(ctx, name, timeout, res.internal)
			if ch, ok := Result[Changed](call); ok && ch.Change != "" {
				// The write was saved before the call ran out: saying
				// "nothing was changed" would make a retry do it twice.
				res.Err = fmt.Sprintf("The call was stopped after its change %s was saved, before its answer was ready; list_changes shows %s, and undo with change=%s takes it back.", ch.Change, ch.Change, ch.Change)
			}
		}
	}()
	if ctx.Err() != nil {
		return r.stopped(ctx, name, timeout, nil), call
	}
	runCtx := ctx
	session, _ := Get[*Session](call)
	var check *store.PersonCheck
	if session != nil {
		// The call's first transaction checks the kept person (Session).
		p := session.Kept()
		Insert(call, p)
		runCtx, check = store.WithPersonCheck(ctx, p.ID, p.Name, p.Zone.Name())
	} else if src, ok := Get[PersonSource](call); ok && src != nil {
		p, err := src(ctx)
		if err != nil {
			return r.personFailed(name, call, err), call
		}
		Insert(call, p)
	}
	res = r.run(runCtx, call, t, raw)
	// A call whose context ended is answered as stopped (above), whether
	// or not its person was checked: nothing is read again for it.
	if session != nil && ctx.Err() == nil && (check.Changed() || !check.Made()) {
		ch, _ := Result[Changed](call)
		if check.Changed() || ch.Change == "" {
			kept, _ := Get[Person](call)
			p, err := session.Read(ctx)
			if err != nil {
				return r.personFailed(name, call, err), call
			}
			if check.Changed() || p.Name != kept.Name || p.Zone.Name() != kept.Zone.Name() {
				// Nothing was written in the old zone: the call runs again.
				call = tc.ForCall()
				Insert(call, p)
				res = r.run(ctx, call, t, raw)
			}
		}
	}
	if (res.Code == CodeInternal || res.Code == CodeUnavailable) && res.internal != nil && ctx.Err() == nil {
		if explain, ok := Get[ExplainError](call); ok && explain != nil {
			if s := explain(res.internal); s != "" {
				res.Err = s
			}
		}
		if store.TroubleOf(res.internal) != store.NoTrouble {
			// The database's state, told in the result's sentence: no bug.
			r.logger().Warn("tool failed on the database", "tool", name, "err", res.internal)
		} else {
			r.logger().Error("tool failed", "tool", name, "err", res.internal)
		}
	}
	res = res.Bound()
	return res, call
}

// personFailed is the answer of a call whose person could not be read.
func (r *Registry) personFailed(name string, call *ToolContext, err error) ExecResult {
	r.logger().Error("reading the person", "tool", name, "err", err)
	res := unavailable(Internal(err))
	if explain, ok := Get[ExplainError](call); ok && explain != nil {
		if s := explain(err); s != "" {
			res.Err = s
		}
	}
	return res
}

// run reads raw by t's schema and runs t's handler on call, its person
// already in call; a panic of the handler is an internal failure.
func (r *Registry) run(ctx context.Context, call *ToolContext, t Tool, raw []byte) (res ExecResult) {
	a, err := args.New(raw, t.Schema.Names(), t.Schema.Required)
	if err != nil {
		return Invalid(withExample(t.Schema, err))
	}
	if p, ok := Get[Person](call); ok {
		a.SetHome(p.Zone) // named first when a zone abbreviation is refused
	}
	// relative moments ("tomorrow 9am") are read at the call's now; a
	// Define'd tool sets its Env.Now again, so both name one instant
	a.SetNow(Now(call).UTC().Truncate(time.Second))
	defer func() {
		if p := recover(); p != nil {
			r.logger().Error("tool panicked", "tool", t.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res = Internal(fmt.Errorf("panic: %v", p))
			if ch, ok := Result[Changed](call); ok && ch.Change != "" {
				// The change was saved before the answer failed: saying
				// nothing changed would have the caller make it again.
				res.Err = fmt.Sprintf("The change %s was saved, but its answer could not be made; list_changes shows it, and undo change=%s takes it back.", ch.Change, ch.Change)
			}
		}
	}()
	res = t.Handler(ctx, call, a)
	if res.Code == CodeOK && a.Err() != nil {
		// A handler that read a bad argument but forgot to check Err must
		// not report success for a call it did not make as asked.
		res = Invalid(a.Err())
	}
	if res.Code == CodeOK {
		res = res.withReadings(a.Readings())
	}
	return unavailable(res)
}

// withExample adds to the refusal of a required argument left out or
// blank an example of it, from its Property.Example: “id” is required and
// was not given, such as {"id": "t12"}. Other refusals already say what to
// write, and are returned as they are.
func withExample(s Schema, err error) error {
	var ae *args.Error
	if !errors.As(err, &ae) {
		return err
	}
	p, ok := s.Property(ae.Name)
	if !ok || p.Example == "" || !slices.Contains(s.Required, ae.Name) {
		return err
	}
	if !strings.HasSuffix(ae.Sentence, " was not given.") && !strings.HasSuffix(ae.Sentence, " only white space.") {
		return err
	}
	name, _ := json.Marshal(ae.Name)
	return &args.Error{Name: ae.Name, Sentence: strings.TrimSuffix(ae.Sentence, ".") + "; write it such as {" + string(name) + ": " + p.Example + "}."}
}

// errCallTimeout is the cause of a call's context when CallTimeout ends it.
var errCallTimeout = errors.New("the call ran past its deadline")

// stopped is the answer of a call whose context is done, cause being the
// handler's failure (nil when it did not run): one sentence for a
// deadline (the call's own CallTimeout or the caller's) and one for a
// cancel, but for a deadline met while the call waited for another
// writer of the database (store.Busy): CodeUnavailable with the store's
// sentence, since it was not the call that asked too much and a retry
// mends it. A handler stops at a context check, where the store rolls
// back what it had begun.
func (r *Registry) stopped(ctx context.Context, name string, timeout time.Duration, cause error) ExecResult {
	res := ExecResult{Code: CodeInternal}
	switch {
	case ctx.Err() == context.DeadlineExceeded && store.TroubleOf(cause) == store.Busy:
		res = ExecResult{Code: CodeUnavailable, Err: store.Explain(cause, ""), internal: cause}
	case errors.Is(context.Cause(ctx), errCallTimeout):
		res.Err = fmt.Sprintf("The call took longer than the %s a call may run, so it was stopped and nothing was changed; ask for less, such as a shorter window or a smaller limit.", timeout)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Err = "The call ran out of the time its client gave it, so it was stopped and nothing was changed; ask for less, such as a shorter window or a smaller limit."
	default:
		res.Err = "The call was cancelled before it finished; nothing was changed."
	}
	r.logger().Warn("tool call stopped", "tool", name, "cause", context.Cause(ctx))
	return res
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
		return fmt.Sprintf("There is no tool %s; did you mean “%s”? The tools are: %s.", args.Quote(name), best, strings.Join(names, ", "))
	}
	return fmt.Sprintf("There is no tool %s. The tools are: %s.", args.Quote(name), strings.Join(names, ", "))
}

// closest returns the name within edit distance 2 of s, or "".
func closest(s string, names []string) string {
	best, bestD := "", 3
	if len(s) > 64 {
		return "" // no tool name is that long; and distance costs len(s)
	}
	for _, n := range names {
		if d := EditDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b, counted in bytes:
// the fewest single-byte insertions, deletions and substitutions that turn
// one into the other. It takes O(len(a)·len(b)) time, so callers cut long
// inputs first.
func EditDistance(a, b string) int {
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
