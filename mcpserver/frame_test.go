package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/tools"
)

// TestAppendMessageMatchesEncodeMessage: the stdio front writes answers
// byte for byte as jsonrpc.EncodeMessage does, for results encoded as the
// SDK encodes them (encoding/json without HTML escaping), for either kind
// of id, for errors and for requests.
func TestAppendMessageMatchesEncodeMessage(t *testing.T) {
	sdkEncode := func(v any) json.RawMessage {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimRight(buf.Bytes(), "\n")
	}
	page := Result(tools.SuccessWithData("3 tasks <b> & “café”:\nt1 · milk\n\u2028", map[string]any{
		"tasks": []map[string]any{{"id": "t1", "title": "milk <&> \"x\""}}, "total": 3, "next_cursor": "",
	}), 0)
	results := []json.RawMessage{
		sdkEncode(page),
		sdkEncode(Result(tools.Failure(tools.CodeInvalid, "“limit” must be 1–200."), 0)),
		sdkEncode(&mcp.ListToolsResult{Tools: []*mcp.Tool{}}),
		sdkEncode(map[string]any{}),
	}
	ids := []jsonrpc.ID{}
	for _, v := range []any{float64(0), float64(7), float64(-12), "a", `quote " and \ <tag> é`, ""} {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var msgs []jsonrpc.Message
	for _, id := range ids {
		for _, r := range results {
			msgs = append(msgs, &jsonrpc.Response{ID: id, Result: r})
		}
		msgs = append(msgs,
			&jsonrpc.Response{ID: id},
			&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no <such> tool"}},
			&jsonrpc.Response{ID: id, Error: errors.New("plain")},
			&jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)},
		)
	}
	msgs = append(msgs, &jsonrpc.Response{Result: results[0]}, &jsonrpc.Request{Method: "notifications/initialized"})
	for i, m := range msgs {
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendMessage([]byte("x"), m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if string(got) != "x"+string(want) {
			t.Errorf("message %d:\ngot  %s\nwant x%s", i, got, want)
		}
	}
}

// TestSplicedResultMatchesSDK: a tools/call answer whose structured
// content json.Marshal wrote is written byte for byte as the SDK writes
// the CallToolResult, with and without _meta, for text and data holding
// what encoding/json escapes; any other structured content is left to
// the SDK.
func TestSplicedResultMatchesSDK(t *testing.T) {
	data := map[string]any{
		"tasks":       []map[string]any{{"id": "t1", "title": "a <b> & \"c\" \u2028 é 😀", "notes": "x\ny\t\\"}},
		"total":       3,
		"next_cursor": "",
		"nested":      map[string]any{"structuredContent": 0, "k": []any{nil, true, 1.5}},
	}
	texts := []string{"", "3 tasks:\nt1 · a <b> & \"c\"", `{"structuredContent":0}`, "\"structuredContent\":0 and \u2028",
		"\x00", `"text":"\u0000"`, "bad \xff utf-8 \x00 and \x1f"}
	for i, text := range texts {
		r := Result(tools.SuccessWithData(text, data), 0)
		if _, ok := r.StructuredContent.(marshaledJSON); !ok {
			t.Fatalf("case %d: structuredContent is %T, want marshaledJSON", i, r.StructuredContent)
		}
		for _, meta := range []map[string]any{nil, {"io.modelcontextprotocol/serverInfo": &mcp.Implementation{Name: "assistant", Version: "dev"}, "structuredContent": 0}} {
			c := *r
			c.SetMeta(meta)
			splicedAsSDK(t, &c, fmt.Sprintf("case %d, meta %v", i, meta != nil))
		}
	}
	// A text content with annotations or _meta, or more than one content,
	// is encoded by the SDK around the spliced structured content.
	r := Result(tools.SuccessWithData("a <b>", data), 0)
	for i, content := range [][]mcp.Content{
		{&mcp.TextContent{Text: "a <b>", Annotations: &mcp.Annotations{Priority: 1}}},
		{&mcp.TextContent{Text: "a", Meta: mcp.Meta{"text": "\x00"}}},
		{&mcp.TextContent{Text: "\x00"}, &mcp.TextContent{Text: "b"}},
	} {
		c := *r
		c.Content = content
		splicedAsSDK(t, &c, fmt.Sprintf("content %d", i))
	}
	// Data not written by json.Marshal (sniffed from text), and Data not
	// an object, keep the SDK's way.
	for _, r := range []tools.ExecResult{tools.Success(`{"a": "<b>"}`), tools.SuccessData([]int{1, 2})} {
		if res := Result(r, 0); res.StructuredContent != nil {
			if _, ok := res.StructuredContent.(marshaledJSON); ok {
				t.Errorf("%s: structuredContent is marshaledJSON", r.Data)
			}
		}
	}
}

// splicedAsSDK fails t, naming the case what, when splicedResult encodes
// c other than the SDK's own MarshalJSON does.
func splicedAsSDK(t *testing.T, c *mcp.CallToolResult, what string) {
	t.Helper()
	want, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := splicedResult{CallToolResult: c}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s:\ngot  %s\nwant %s", what, got, want)
	}
}
