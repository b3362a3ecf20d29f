package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
)

// The prefixes of the JSON-RPC error messages this package writes itself,
// one per code (JSON-RPC 2.0 §5.1). A message that starts with none of
// them came from inside the SDK or the Go runtime ("invalid character 'h'
// in literal true", "invalid ID type map[string]interface {}") and is
// replaced by the sentence of its code before it is sent (see
// [publicError]).
const (
	prefixParse          = "Parse error: "
	prefixInvalidRequest = "Invalid Request: "
	prefixMethod         = "Method not found: "
	prefixParams         = "Invalid params: "
	prefixInternal       = "Internal error: "
)

// publicError returns e with a message of our own: e itself when its
// message already is one (it starts with the prefix of a JSON-RPC code),
// else a sentence chosen by e's code. The code is kept; an SDK error
// without a code (0) becomes an Internal error (-32603).
func publicError(e *jsonrpc.Error) *jsonrpc.Error {
	if e == nil {
		return nil
	}
	for _, p := range []string{prefixParse, prefixInvalidRequest, prefixMethod, prefixParams, prefixInternal} {
		if strings.HasPrefix(e.Message, p) {
			return e
		}
	}
	out := &jsonrpc.Error{Code: e.Code}
	if e.Code == 0 && strings.HasPrefix(e.Message, "handling '") {
		// The SDK could not read the params of a method (go-sdk v1.8.0
		// handleReceive wraps the decoder's error without a code).
		out.Code = jsonrpc.CodeInvalidParams
	}
	switch out.Code {
	case jsonrpc.CodeParseError:
		out.Message = prefixParse + "the message is not JSON; send one JSON-RPC 2.0 message as a JSON object."
	case jsonrpc.CodeInvalidRequest:
		out.Message = prefixInvalidRequest + "the message is not a JSON-RPC 2.0 request this server can take; send initialize first, then tools/list or tools/call."
	case jsonrpc.CodeMethodNotFound:
		out.Message = prefixMethod + "this server has no such method; it serves its tools through tools/list and tools/call, after initialize (MCP 2025-06-18)."
	case jsonrpc.CodeInvalidParams:
		out.Message = prefixParams + "the “params” of this request do not fit its method; MCP 2025-06-18 gives each method's params (tools/call takes {\"name\": a tool name, \"arguments\": an object}, tools/list an optional “cursor” string)."
	default:
		out.Code = jsonrpc.CodeInternalError
		out.Message = prefixInternal + "the server could not answer this request; try again, and see the server's log if it happens again."
	}
	return out
}

// beforeInitialize matches go-sdk v1.8.0's error (without a code) for a
// call other than initialize or ping on a session not yet initialized
// (ServerSession.handle).
var beforeInitialize = regexp.MustCompile(`^method "(.*)" is invalid during session initialization`)

// errorFor returns the JSON-RPC error of err as [publicError] words it:
// with the code of a *jsonrpc.Error inside err, or -32602 for the SDK's
// failure to read a method's params, or -32600 for a second initialize
// or a call before the first (go-sdk v1.8.0's errors without a code,
// ServerSession.initialize and ServerSession.handle), or -32603.
func errorFor(err error) *jsonrpc.Error {
	var code int64
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		if we == err {
			return publicError(we)
		}
		code = we.Code // a wrapped error: the outer message is the SDK's own
	}
	if code == 0 && strings.HasPrefix(err.Error(), "handling '") {
		code = jsonrpc.CodeInvalidParams
	}
	if code == 0 && err.Error() == `duplicate "initialize" received` {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: prefixInvalidRequest +
			"this session is already initialized; send initialize once, at its start, and go on with tools/list or tools/call (MCP 2025-06-18 \"Lifecycle\")."}
	}
	if m := beforeInitialize.FindStringSubmatch(err.Error()); code == 0 && m != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: prefixInvalidRequest +
			fmt.Sprintf("this session is not initialized yet, so “%s” cannot be answered; send initialize first, then notifications/initialized (MCP 2025-06-18 \"Lifecycle\").", cut(m[1], 60))}
	}
	return publicError(&jsonrpc.Error{Code: code})
}

// protocolErrors is a receiving middleware that words every error a
// method handler returns (an unknown tool, a call without a person) as
// [publicError] does, for stdio and HTTP alike; an unknown tool is named,
// with the list of tools, as the Registry names it. A tools/call answer
// whose structured content json.Marshal wrote goes on as a splicedResult,
// which writes that content without reading it again; with held (stdio),
// the transport writes it (see heldAnswers).
func protocolErrors(reg *tools.Registry, held *heldAnswers) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
					if _, known := reg.Get(p.Name); !known {
						res, _ := reg.Call(ctx, nil, p.Name, nil)
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: prefixParams + res.Err}
					}
				}
			}
			res, err := next(ctx, method, req)
			if err != nil {
				return nil, errorFor(err)
			}
			if cr, ok := res.(*mcp.CallToolResult); ok && cr != nil {
				if _, ok := cr.StructuredContent.(marshaledJSON); ok {
					if held != nil {
						return held.hold(splicedResult{CallToolResult: cr}), nil
					}
					return splicedResult{CallToolResult: cr}, nil
				}
			}
			return res, nil
		}
	}
}

// parseError words why msg (not valid JSON) is not JSON, with the byte
// offset where reading stopped; never the decoder's own message.
func parseError(msg []byte) string {
	dec := json.NewDecoder(bytes.NewReader(msg))
	var v json.RawMessage
	err := dec.Decode(&v)
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return prefixParse + fmt.Sprintf("there is more after the first JSON value (from byte %d); send one JSON-RPC message per line.", dec.InputOffset()+1)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return prefixParse + "the JSON ends before the message is complete; send the whole message again."
	case errors.As(err, &syn):
		return prefixParse + fmt.Sprintf("the message is not JSON (it goes wrong at byte %d); send one JSON-RPC message as a JSON object.", syn.Offset)
	}
	return prefixParse + "the message is not JSON; send one JSON-RPC message as a JSON object."
}

// invalidRequest words why msg, valid JSON that jsonrpc.DecodeMessage
// refused, is not a JSON-RPC 2.0 message (JSON-RPC 2.0 §4, §5).
func invalidRequest(msg []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return prefixInvalidRequest + "a JSON-RPC message is a JSON object, such as {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}."
	}
	if v, ok := m["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return prefixInvalidRequest + "“jsonrpc” must be \"2.0\"."
	}
	if id, ok := m["id"]; ok {
		if c := bytes.TrimSpace(id); len(c) > 0 && c[0] != '"' && c[0] != '-' && (c[0] < '0' || c[0] > '9') && string(c) != "null" {
			return prefixInvalidRequest + "“id” must be a string or a number."
		}
	}
	if method, ok := m["method"]; ok {
		var s string
		if json.Unmarshal(method, &s) != nil {
			return prefixInvalidRequest + "“method” must be a string, such as \"tools/call\"."
		}
		if p, ok := m["params"]; ok {
			if c := bytes.TrimSpace(p); len(c) > 0 && c[0] != '{' && c[0] != '[' && string(c) != "null" {
				return prefixInvalidRequest + "“params” must be an object."
			}
		}
		return prefixInvalidRequest + "the message is not a JSON-RPC 2.0 request or notification."
	}
	if _, ok := m["id"]; !ok {
		return prefixInvalidRequest + "the message has no “method” (a request) and no “id” with a “result” or “error” (a response)."
	}
	return prefixInvalidRequest + "the message is not a JSON-RPC 2.0 request, notification or response."
}

// checkCallParams returns the sentence of an Invalid params error (-32602)
// when the params of a tools/call cannot be read as {"name": string,
// "arguments": …}, which the SDK would refuse with its decoder's message;
// "" when they can.
func checkCallParams(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return prefixParams + "tools/call takes “params” as an object: {\"name\": a tool name, \"arguments\": an object}."
	}
	var name string
	if raw, ok := p["name"]; !ok || json.Unmarshal(raw, &name) != nil || name == "" {
		return prefixParams + "tools/call needs “name”, the tool's name as a string."
	}
	if err := args.CheckNames(params); err != nil {
		// encoding/json keeps the last: {"name":"add_task","name":"delete_task"}
		// ran delete_task.
		return prefixParams + "tools/call's " + err.Error()
	}
	if raw, ok := p["_meta"]; ok {
		if c := bytes.TrimSpace(raw); len(c) > 0 && c[0] != '{' && string(c) != "null" {
			return prefixParams + "“_meta” must be an object."
		}
	}
	return ""
}

// checkInitializeParams returns the sentence of an Invalid params error
// (-32602) when the params of an initialize are missing or cannot be read
// as MCP 2025-06-18's InitializeRequest params (an object whose
// “protocolVersion”, when given, is a string); "" when they can. The SDK
// takes an object without protocolVersion, so this does too.
func checkInitializeParams(params json.RawMessage) string {
	const shape = `{"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "…", "version": "…"}}`
	var p map[string]json.RawMessage
	if c := bytes.TrimSpace(params); len(c) == 0 || string(c) == "null" || json.Unmarshal(c, &p) != nil {
		return prefixParams + "initialize takes “params” as an object, such as " + shape + "."
	}
	given := func(name string) (json.RawMessage, bool) {
		raw, ok := p[name]
		return raw, ok && string(bytes.TrimSpace(raw)) != "null"
	}
	if raw, ok := given("protocolVersion"); ok {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return prefixParams + "initialize's “protocolVersion” is a string, the date of an MCP version, such as \"2025-06-18\"."
		}
	}
	if raw, ok := given("capabilities"); ok {
		var v map[string]json.RawMessage
		if json.Unmarshal(raw, &v) != nil {
			return prefixParams + "initialize's “capabilities” is an object of what the client can do, such as {}."
		}
	}
	if raw, ok := given("clientInfo"); ok {
		var v map[string]json.RawMessage
		if json.Unmarshal(raw, &v) != nil {
			return prefixParams + "initialize's “clientInfo” is an object, such as {\"name\": \"my-client\", \"version\": \"1.0\"}."
		}
		for _, k := range []string{"name", "title", "version"} {
			if raw, ok := v[k]; ok && string(bytes.TrimSpace(raw)) != "null" {
				var str string
				if json.Unmarshal(raw, &str) != nil {
					return prefixParams + fmt.Sprintf("initialize's “clientInfo” holds “%s” as a string, such as {\"name\": \"my-client\", \"version\": \"1.0\"}.", k)
				}
			}
		}
	}
	return ""
}

// badParams returns the Invalid params sentence of a request whose params
// the SDK could not read ([checkCallParams] for tools/call,
// [checkInitializeParams] for initialize), else "".
func badParams(r *jsonrpc.Request) string {
	switch {
	case !r.IsCall():
	case r.Method == "tools/call":
		return checkCallParams(r.Params)
	case r.Method == "initialize":
		return checkInitializeParams(r.Params)
	}
	return ""
}

// notMCP words why m, a message jsonrpc.DecodeMessage read, is no MCP
// message the server can answer; "" when it is one. It is either a method
// that is no notification (not notifications/…) without an id or with a
// null one (MCP 2025-06-18 gives every request a string or number id,
// and without one the call would go unanswered), or an id with no method
// and neither a result nor an error (JSON-RPC 2.0 §5: an answer has
// exactly one), which the SDK would drop without a word.
func notMCP(m jsonrpc.Message) string {
	switch r := m.(type) {
	case *jsonrpc.Request:
		if !r.ID.IsValid() && !strings.HasPrefix(r.Method, "notifications/") {
			return prefixInvalidRequest + fmt.Sprintf("“%s” is a request, which needs an “id” (a string or a number) for its answer, such as {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"}.", cut(r.Method, 40), cut(r.Method, 40))
		}
	case *jsonrpc.Response:
		if len(r.Result) == 0 && r.Error == nil {
			return prefixInvalidRequest + "a message with an “id” and no “method” is an answer, which needs a “result” or an “error”; to call the server, give the “method”, such as {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}."
		}
	}
	return ""
}

// badID returns the Invalid Request sentence of msg, one JSON-RPC message,
// when its id is one the SDK cannot answer with unchanged: go-sdk v1.8.0
// reads a numeric id as a float64 and keeps it as an int64, so 1.5 would
// come back as 1, 9007199254740993 as 9007199254740992 and
// 9223372036854775807 as -9223372036854775808; and it reads bytes that
// are not UTF-8 in a string id as U+FFFD. A response must carry the
// request's id exactly (JSON-RPC 2.0 §5), so such an id is refused, with
// the id echoed as sent; "" for a string id of UTF-8, a whole number from
// -2^53 to 2^53 (every one of which a float64 holds), or no id.
func badID(msg []byte) string {
	id := rawID(msg)
	if len(id) == 0 {
		return ""
	}
	if id[0] == '"' {
		if utf8.Valid(id) && !replaced(id) {
			return ""
		}
		return prefixInvalidRequest + "the id holds bytes that are not UTF-8 or an escaped lone surrogate (\\ud800), so it could not be sent back unchanged; use an id of UTF-8 text, or a whole number."
	}
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil && n >= -maxExactID && n <= maxExactID && strconv.FormatInt(n, 10) == string(id) {
		return ""
	}
	return prefixInvalidRequest + fmt.Sprintf("the id %s is not a whole number from %d to %d, so it could not be sent back unchanged; use such a number, or a string, as the id.", cut(string(id), 40), -maxExactID, maxExactID)
}

// replaced reports whether reading the JSON string lit (quotes included)
// would put a U+FFFD in it that lit does not write: an escaped lone
// surrogate ("\ud800", or "\udc00" without one before it), which Go's
// decoder reads as U+FFFD. Escaped backslashes are skipped, so "\\ud800"
// (a backslash, then text) is no surrogate.
func replaced(lit []byte) bool {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 4 {
			return 0, false
		}
		n, err := strconv.ParseUint(string(b[:4]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' || i+1 >= len(lit) {
			continue
		}
		i++
		if lit[i] != 'u' {
			continue // \\, \", \n …: one escape, skipped whole
		}
		r, ok := hex4(lit[i+1:])
		if !ok {
			return true
		}
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true // a low surrogate with no high one before it
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 >= len(lit) || lit[i+1] != '\\' || lit[i+2] != 'u' {
				return true
			}
			lo, ok := hex4(lit[i+3:])
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 6
		}
	}
	return false
}

// maxExactID is 2^53, the largest of the whole numbers a float64 holds
// with every one below it.
const maxExactID = 1 << 53

// cut shortens s to at most n bytes, marking the cut with "…" (s is
// ASCII here: the digits of a JSON number).
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
