package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
)

// Result codes. 2 stays free: the shell uses it for usage errors.
const (
	CodeOK       = 0 // success
	CodeInvalid  = 1 // an invalid argument; Err names it
	CodeSpill    = 3 // output cut to the front's limit; OriginalCode keeps the real code
	CodeNotFound = 4 // no such item for this person
	CodeConflict = 5 // a changed row, or a reused idempotency key with other arguments
	CodeInternal = 6 // something failed inside; logged, the model is told only that
	// CodeUnavailable: the database could not finish the call (PostgreSQL:
	// the connection dropped, the server stopped or restarted, or the call
	// collided with another); its transaction was rolled back, so nothing
	// of it was kept, and the same call may simply be made again. Err
	// says so (store.Unavailable's sentence).
	CodeUnavailable = 7
)

// ModelLimit is the spill limit for a model turn, in bytes of Out (or Err).
const ModelLimit = 16 << 10

// ExecResult is what every tool call answers with.
//
// Out is what a model reads: short, plain, with ids it can quote back. Err
// is the one sentence of a failure. Data is structured JSON for programs
// (MCP structuredContent, `assistant call --json`). Output holds rows for
// rendering whose text is made on demand by TextOut.
type ExecResult struct {
	Code         int             `json:"code"`
	Out          string          `json:"out"`
	Err          string          `json:"err,omitempty"`
	Data         json.RawMessage `json:"data,omitempty"`
	Output       *Output         `json:"-"`
	DidSpill     bool            `json:"did_spill,omitempty"`
	OriginalCode int             `json:"original_code,omitempty"`
	// Readings are the relative moments the call read ("tomorrow 9am"),
	// which the text already echoes; for a front that shows the call in
	// its own words (the chat's tool line).
	Readings []args.Reading `json:"-"`

	internal error // the cause of a CodeInternal result, for the log only
	// checked is Data as this package's constructors made it, valid JSON
	// (json.Marshal's output, or text json.Valid passed): see DataValid.
	checked json.RawMessage
	// marshaled: checked is json.Marshal's output (see DataMarshaled).
	marshaled bool
}

// DataMarshaled reports whether Data is still the bytes json.Marshal wrote
// for it (SuccessWithData, SuccessData): compact, with <, > and & and
// U+2028 and U+2029 escaped, as encoding/json writes a json.RawMessage
// back out, so a front may copy it into JSON of its own unread.
func (r ExecResult) DataMarshaled() bool {
	return r.marshaled && len(r.Data) > 0 && len(r.Data) == len(r.checked) && &r.Data[0] == &r.checked[0]
}

// DataValid reports whether Data is one valid JSON value. While Data is
// still the slice a constructor of this package made (SuccessWithData,
// SuccessData, Success, FromOutput), that is known without reading it
// again; Data set or replaced by anyone else is read (json.Valid). A front
// that sends Data on (MCP structuredContent) checks it with this rather
// than scanning tens of kilobytes per answer.
func (r ExecResult) DataValid() bool {
	if len(r.Data) == 0 {
		return false
	}
	if len(r.Data) == len(r.checked) && &r.Data[0] == &r.checked[0] {
		return true
	}
	return json.Valid(r.Data)
}

// Cause returns the internal error behind a CodeInternal result, for the
// log; nil for any other result. It is never shown to a model.
func (r ExecResult) Cause() error { return r.internal }

// MarshalJSON writes the result with Out materialised from Output.
func (r ExecResult) MarshalJSON() ([]byte, error) {
	type plain ExecResult
	p := plain(r)
	if p.Out == "" && p.Output != nil {
		p.Out = p.Output.Text()
	}
	return json.Marshal(p)
}

// Output is structured text for rendering: a heading line and rows, each a
// line of its own. TextOut joins them when Out is empty.
type Output struct {
	Heading string
	Rows    []string
	Footer  string
}

// Text renders o as lines: the heading, each row, then the footer, with
// empty parts left out.
func (o *Output) Text() string {
	if o == nil {
		return ""
	}
	n := len(o.Heading) + len(o.Footer) + 2
	for _, r := range o.Rows {
		n += len(r) + 1
	}
	var b strings.Builder
	b.Grow(n) // one allocation, not one per doubling
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	add(o.Heading)
	for _, r := range o.Rows {
		add(r)
	}
	add(o.Footer)
	return b.String()
}

// Success is an ok result whose Out is out. Data is sniffed from out when
// out is one whole JSON value (see Sniff).
func Success(out string) ExecResult {
	data := Sniff(CodeOK, out)
	return ExecResult{Code: CodeOK, Out: out, Data: data, checked: data}
}

// WithOutput is an ok result rendered from o; Out is materialised by TextOut.
func WithOutput(o *Output) ExecResult {
	return ExecResult{Code: CodeOK, Output: o}
}

// WithOutputAndText is an ok result with rows o and the text out.
func WithOutputAndText(o *Output, out string) ExecResult {
	return ExecResult{Code: CodeOK, Output: o, Out: out}
}

// SuccessData is an ok result whose Data is v and whose Out is v's compact
// JSON. A v that cannot be marshalled gives an internal-error result.
func SuccessData(v any) ExecResult {
	data, err := json.Marshal(v)
	if err != nil {
		return Internal(err)
	}
	return ExecResult{Code: CodeOK, Out: string(data), Data: data, checked: data, marshaled: true}
}

// SuccessWithData is an ok result with the text out for the model and v as
// Data for programs.
func SuccessWithData(out string, v any) ExecResult {
	data, err := json.Marshal(v)
	if err != nil {
		return Internal(err)
	}
	return ExecResult{Code: CodeOK, Out: out, Data: data, checked: data, marshaled: true}
}

// Failure is a failed result with code and the sentence err. A code of 0 is
// moved to CodeInternal: a failure is never ok.
func Failure(code int, err string) ExecResult {
	if code == CodeOK {
		code = CodeInternal
	}
	return ExecResult{Code: code, Err: err}
}

// FromOutput is a result with the given code, Out and Err as a program gave
// them; Data is sniffed from out on success only.
func FromOutput(code int, out, err string) ExecResult {
	data := Sniff(code, out)
	return ExecResult{Code: code, Out: out, Err: err, Data: data, checked: data}
}

// Invalid is the CodeInvalid result for an argument error (usually an
// *args.Error whose sentence names the argument).
func Invalid(err error) ExecResult { return Failure(CodeInvalid, err.Error()) }

// NotFound is the CodeNotFound result with the sentence msg.
func NotFound(msg string) ExecResult { return Failure(CodeNotFound, msg) }

// Conflict is the CodeConflict result with the sentence msg.
func Conflict(msg string) ExecResult { return Failure(CodeConflict, msg) }

// InternalSentence is all a model is told of an internal error; the cause
// goes to the log.
const InternalSentence = "Something went wrong inside the assistant; nothing was changed. Try again, or tell the person."

// Internal is the CodeInternal result for err. The model sees only
// InternalSentence; err is kept for the log in the Registry's report.
func Internal(err error) ExecResult {
	r := Failure(CodeInternal, InternalSentence)
	r.internal = err
	return r
}

// OK reports whether the call succeeded: Code 0, or a spilled result whose
// OriginalCode is 0.
func (r ExecResult) OK() bool {
	if r.DidSpill {
		return r.OriginalCode == CodeOK
	}
	return r.Code == CodeOK
}

// TextOut is the text a reader sees: Out, or the text of Output when Out is
// empty; for a failure, Err.
func (r ExecResult) TextOut() string {
	if !r.OK() && r.Err != "" {
		return r.Err
	}
	if r.Out != "" {
		return r.Out
	}
	return r.Output.Text()
}

// Field returns one field by its JSON name: "code", "ok", "out", "err" or
// "data" (Data decoded), and false for any other name.
func (r ExecResult) Field(name string) (any, bool) {
	switch name {
	case "code":
		return r.Code, true
	case "ok":
		return r.OK(), true
	case "out":
		return r.TextOut(), true
	case "err":
		return r.Err, true
	case "data":
		if len(r.Data) == 0 {
			return nil, true
		}
		var v any
		if err := json.Unmarshal(r.Data, &v); err != nil {
			return nil, false
		}
		return v, true
	}
	return nil, false
}

// Sniff returns text as JSON when the code is ok and the whole trimmed text
// is exactly one JSON value (an object, array, string, number, true, false
// or null); otherwise nil. It is the only place where Out becomes Data.
func Sniff(code int, text string) json.RawMessage {
	if code != CodeOK {
		return nil
	}
	t := strings.TrimSpace(text)
	if t == "" || !json.Valid([]byte(t)) {
		return nil
	}
	return json.RawMessage(t)
}

// Spill cuts a result larger than limit bytes to fit: it keeps a head and a
// tail of the text cut on UTF-8 boundaries, says between them how many bytes
// there were and how to ask for less, sets DidSpill, moves Code to
// OriginalCode and sets Code to CodeSpill. A result that fits is returned
// unchanged. Data is kept whole: only the text for the reader is cut.
func (r ExecResult) Spill(limit int) ExecResult {
	text := r.TextOut()
	if r.DidSpill || len(text) <= limit {
		return r
	}
	// The note's length is known before the cut: the cut count has at most
	// as many digits as the total.
	noteLen := len(spillNote(len(text), len(text)))
	keep := max(limit-noteLen, 32)
	head := cutHead(text, keep*3/4)
	tail := cutTail(text, keep-len(head))
	note := spillNote(len(text)-len(head)-len(tail), len(text))
	out := head + note + tail
	r.OriginalCode = r.Code
	r.Code = CodeSpill
	r.DidSpill = true
	if r.OriginalCode == CodeOK {
		r.Out = out
	} else {
		r.Err = out
	}
	return r
}

// spillNote is the line between the head and the tail of a spilled text.
func spillNote(cut, total int) string {
	return fmt.Sprintf("\n… [%d bytes cut of %d; ask for less where the tool allows it: a narrower from/to, a lower limit, a query, or the next page's cursor] …\n", cut, total)
}

// cutHead returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cutHead(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutTail returns the longest suffix of s of at most n bytes that starts on
// a rune boundary.
func cutTail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// Answer bounds, in characters (Unicode code points): the text of every
// answer stays within TextBound, and its text and Data together, both as
// serialized (the text as a JSON string), within AnswerBound. Registry.Call
// applies them to every tool's result with Bound; the tools shape their
// own answers (pages, previews of notes) so that the bound rarely has to
// cut.
const (
	TextBound   = 40_000
	AnswerBound = 100_000
)

// dataCutSentence ends the text of an answer whose Data was cut, and is
// the "truncated" field of that Data when it is an object.
const dataCutSentence = "The structured data of this answer was cut to fit 100,000 characters: long texts in it end in “…” and long lists keep only their first items. " +
	"get_task or get_event gives one item whole; a lower limit, the next page's cursor or a narrower from/to give the rest."

// Bound cuts r to the answer bounds: a text over TextBound keeps its head
// and ends with a sentence saying how much was cut and how to ask for
// less; Data that does not fit beside the text has its long strings and
// then its long arrays shortened (staying valid JSON), gets a "truncated"
// field with the sentence when it is an object, and the text ends with the
// same sentence. A result within the bounds is returned unchanged.
func (r ExecResult) Bound() ExecResult {
	text := r.TextOut()
	chars := utf8.RuneCountInString(text)
	sent := serialized(text)
	textCut := chars > TextBound || sent > AnswerBound-dataRoom // !textFits(text)
	if textCut {
		note := fmt.Sprintf("\n[The text of this answer was cut here: its %d characters are more than one answer holds. Ask for less: a lower limit, the next page's cursor, a narrower from/to, or one item with get_task or get_event.]", chars)
		keep := headRunes(text, TextBound-utf8.RuneCountInString(note)-utf8.RuneCountInString(dataCutSentence)-2)
		text = headSerialized(keep, AnswerBound-dataRoom-serialized(note)-serialized(dataCutSentence)) + note
		sent = serialized(text)
	}
	dataCut := len(r.Data) > 0 && sent+utf8.RuneCount(r.Data) > AnswerBound
	if dataCut {
		r.Data = shrinkData(r.Data, AnswerBound-sent-serialized(dataCutSentence))
		text += "\n" + dataCutSentence
	}
	if !textCut && !dataCut {
		return r
	}
	if !r.OK() && r.Err != "" {
		r.Err = text
	} else {
		r.Out, r.Output = text, nil
	}
	return r
}

// dataRoom is what the text of an answer leaves of AnswerBound for Data,
// at least.
const dataRoom = 2000

// textFits reports whether text is kept whole by Bound: at most TextBound
// characters, and at most AnswerBound less dataRoom as a JSON string, as it
// is sent (quotes and escapes included).
func textFits(text string) bool {
	return utf8.RuneCountInString(text) <= TextBound && serialized(text) <= AnswerBound-dataRoom
}

// serialized is the length in characters of s written as a JSON string
// by encoding/json (json.Marshal: quotes, backslashes and \b \f \n \r \t
// as two characters; other control characters, <, >, &, U+2028, U+2029
// and each byte of invalid UTF-8 as six), counted without writing it:
// every answer's text is measured so.
func serialized(s string) int {
	n := 2 // the quotes
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 || c == '\u2028' || c == '\u2029' {
			n += 6
		} else {
			n++
		}
		i += size
	}
	return n
}

// headSerialized returns the longest prefix of s that takes at most n
// characters written as a JSON string (as encoding/json writes it: quotes,
// backslashes and control characters escaped, <, > and & as \u003c…).
func headSerialized(s string, n int) string {
	n -= 2 // the quotes
	for i, r := range s {
		cost := 1
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			cost = 2
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029' || r == utf8.RuneError:
			cost = 6
		}
		if n < cost {
			return s[:i]
		}
		n -= cost
	}
	return s
}

// headRunes returns the first n characters of s.
func headRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// shrinkData returns data cut to at most room characters: strings are cut
// (ending in "…") to ever shorter lengths, then the longest
// arrays are halved, until it fits; as a last resort it is only the
// "truncated" sentence.
func shrinkData(data json.RawMessage, room int) json.RawMessage {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(`{"truncated":` + strconvQuote(dataCutSentence) + `}`)
	}
	mark := func() {
		if m, ok := v.(map[string]any); ok {
			m["truncated"] = dataCutSentence
		}
	}
	fits := func() (json.RawMessage, bool) {
		b, err := json.Marshal(v)
		return b, err == nil && utf8.RuneCount(b) <= room
	}
	mark()
	for limit := 4096; limit >= 32; limit /= 2 {
		v = cutStrings(v, limit)
		mark()
		if b, ok := fits(); ok {
			return b
		}
	}
	box := map[string]any{"v": v}
	for range 200 {
		if !halveLongest(box) {
			break
		}
		v = box["v"]
		if b, ok := fits(); ok {
			return b
		}
	}
	b, _ := json.Marshal(map[string]any{"truncated": dataCutSentence})
	return b
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cutStrings cuts every string in v longer than limit characters.
func cutStrings(v any, limit int) any {
	switch x := v.(type) {
	case string:
		if len(x) > limit && utf8.RuneCountInString(x) > limit {
			return headRunes(x, limit) + "…"
		}
	case []any:
		for i := range x {
			x[i] = cutStrings(x[i], limit)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = cutStrings(e, limit)
		}
	}
	return v
}

// halveLongest halves the longest array (of two or more items) held in
// box, at any depth, keeping its first items; false when there is none.
func halveLongest(box map[string]any) bool {
	var (
		set  func([]any)
		keep []any
		walk func(x any, put func([]any))
	)
	walk = func(x any, put func([]any)) {
		switch x := x.(type) {
		case []any:
			if len(x) > max(1, len(keep)) {
				keep, set = x, put
			}
			for i := range x {
				walk(x[i], func(a []any) { x[i] = a })
			}
		case map[string]any:
			for k, e := range x {
				walk(e, func(a []any) { x[k] = a })
			}
		}
	}
	walk(box, nil)
	if set == nil {
		return false
	}
	set(keep[:(len(keep)+1)/2])
	return true
}

// maxReadings is how many readings an answer echoes one by one.
const maxReadings = 10

// withReadings adds to an ok result one line per relative moment the call
// read ([args.Reading.Sentence]: “Read “tomorrow 9am” (due) as Wed
// 2026-12-02 09:00 (+01:00).”), after its text (before it when the text is
// too long for one answer, as [ExecResult.Bound] keeps the head), so that a wrong reading is
// seen by the model and the person on every front. Data is left as it is;
// so is an Out that is itself one JSON value (the data for a program),
// which a line of text would break.
func (r ExecResult) withReadings(rs []args.Reading) ExecResult {
	if len(rs) == 0 {
		return r
	}
	lines := make([]string, 0, min(len(rs), maxReadings)+1)
	for _, rd := range rs[:min(len(rs), maxReadings)] {
		lines = append(lines, rd.Sentence())
	}
	if len(rs) > maxReadings {
		lines = append(lines, fmt.Sprintf("(and %d more words read, not listed here).", len(rs)-maxReadings))
	}
	note := strings.Join(lines, "\n")
	r.Readings = rs
	switch {
	case r.Out != "" && json.Valid([]byte(r.Out)):
		return r
	case !textFits(r.TextOut() + "\n" + note):
		// Bound keeps the head of a text too long for one answer
		r.Out = note + "\n" + r.TextOut()
	case r.Out != "":
		r.Out += "\n" + note
	case r.Output != nil:
		o := *r.Output
		if o.Footer != "" {
			note = o.Footer + "\n" + note
		}
		o.Footer = note
		r.Output = &o
	default:
		r.Out = note
	}
	return r
}
