package tools

import (
	"errors"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
)

// Refusal is an error that carries a finished failed result out of a
// store transaction, which it rolls back: nothing is stored when a call is
// refused. [Fail] answers with Result as it is.
type Refusal struct {
	Result ExecResult
}

// Error returns the result's sentence.
func (r *Refusal) Error() string { return r.Result.Err }

// Refuse returns a *Refusal with code and the one sentence for the model;
// a code of CodeOK is moved to CodeInternal, as by [Failure].
func Refuse(code int, sentence string) error {
	return &Refusal{Result: Failure(code, sentence)}
}

// RefuseArg returns a *Refusal for the argument name, answered as an
// invalid argument with sentence (which names the argument in typographic
// quotes, as every args sentence does).
func RefuseArg(name, sentence string) error {
	return &Refusal{Result: Invalid(&args.Error{Name: name, Sentence: sentence})}
}

// Fail turns an error out of a handler's work (a store transaction, a
// recurrence expansion, a domain check) into the call's result, by the
// first of these that matches:
//
//   - a *[Refusal]: its result;
//   - an *args.Error (an argument that failed once the store was read):
//     CodeInvalid with its sentence;
//   - a *recur.Error (a rule or its expansion refused): CodeInvalid with
//     its sentence, naming its argument;
//   - store.ErrNotFound: CodeNotFound, and store.ErrConflict: CodeConflict,
//     each with the store's sentence ([StoreSentence]), which is written for
//     the model;
//   - store.ErrInvalid: CodeInvalid with the store's sentence;
//   - a call the database could not finish (store.Unavailable: on
//     PostgreSQL a dropped connection, a stopped server, a collision with
//     another transaction; store.Busy: another writer held the database
//     longer than the call could wait): CodeUnavailable with
//     store.Explain's sentence, which says nothing of this call was kept
//     and to try again;
//   - a trouble of the disk or the file under the database
//     (store.TroubleOf: disk full or failing, read-only, damaged):
//     CodeInternal with store.Explain's sentence saying what to do (a host's
//     [ExplainError] may put the file's path in it);
//   - anything else, the context's end included (the Registry answers a
//     cancelled or late call with its own sentence): CodeInternal with
//     [InternalSentence], the cause kept for the log.
//
// A nil err is CodeInternal too: Fail is for failures only.
func Fail(err error) ExecResult {
	var ref *Refusal
	var ae *args.Error
	var re *recur.Error
	switch {
	case err == nil:
		return Internal(errors.New("tools: Fail called without an error"))
	case errors.As(err, &ref):
		return ref.Result
	case errors.As(err, &ae):
		return Invalid(ae)
	case errors.As(err, &re):
		return Invalid(&args.Error{Name: re.Name, Sentence: re.Sentence})
	case errors.Is(err, store.ErrNotFound):
		return NotFound(StoreSentence(err))
	case errors.Is(err, store.ErrConflict):
		return Conflict(StoreSentence(err))
	case errors.Is(err, store.ErrInvalid):
		return Invalid(&args.Error{Sentence: StoreSentence(err)})
	}
	res := unavailable(Internal(err))
	if store.TroubleOf(err) != store.NoTrouble {
		if s := store.Explain(err, ""); s != "" {
			res.Err = s
		}
	}
	return res
}

// unavailable moves a CodeInternal result whose cause is a call the
// database could not finish (store.Trouble.Retry) to CodeUnavailable; any
// other result is returned as it is. The sentence is the host's or
// store.Explain's, set by the caller.
func unavailable(res ExecResult) ExecResult {
	if res.Code == CodeInternal && res.internal != nil && store.TroubleOf(res.internal).Retry() {
		res.Code = CodeUnavailable
		res.Err = store.Explain(res.internal, "")
	}
	return res
}

// FailItem is [Fail] for a call on one item: a store.ErrNotFound is
// answered with missing ("There is no task t12."), the same sentence
// whether the item never existed, was deleted or is someone else's, so
// nothing leaks about another person's ids. Every other error is as Fail
// maps it.
func FailItem(err error, missing string) ExecResult {
	var ref *Refusal
	if err != nil && !errors.As(err, &ref) && errors.Is(err, store.ErrNotFound) {
		return NotFound(missing)
	}
	return Fail(err)
}

// startsWithID matches a sentence that begins with an id ("t12 was
// changed since…", "c31 is not one of your changes"), which stays lower
// case.
var startsWithID = regexp.MustCompile(`^[a-z]{1,2}[0-9]+\b`)

// StoreSentence is the sentence of a store error: the text of the
// sentinel the store appends with %w (": not found") dropped, a capital
// first letter (Go's error strings start lower case) unless it starts with
// an id ("t12 was changed since…"), and a full stop at the end.
func StoreSentence(err error) string {
	s := err.Error()
	for _, sentinel := range []error{store.ErrNotFound, store.ErrConflict, store.ErrInvalid} {
		s = strings.TrimSuffix(s, ": "+sentinel.Error())
	}
	if s != "" && !startsWithID.MatchString(s) {
		r, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
