package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// maxWholeAnswer bounds how much of a non-streamed answer to a streamed
// request is read to turn it into a stream; a chat completion is far
// smaller, so anything longer is left for the stream reader to refuse.
const maxWholeAnswer = 8 << 20

// wholeAsStream lets a streamed request take a whole answer. Some proxies
// and gateways ignore "stream": true and answer with one
// application/json chat.completion; go-openai's stream reader finds no
// "data:" line in it and reports an empty stream. Such an answer (known by
// its Content-Type, or by a body that starts with "{" when the server
// names none or a wrong one) is rewritten as the one chunk and the
// [DONE] a server streaming it would have sent, so text and tool calls
// reach the loop as usual. Anything else, an error object with status
// 200 included, is passed on unchanged.
func wholeAsStream(req *http.Request, resp *http.Response) *http.Response {
	if resp == nil || resp.StatusCode != http.StatusOK || resp.Body == nil {
		return resp
	}
	if !strings.Contains(req.Header.Get("Accept"), "text/event-stream") {
		return wholeArgumentsAsText(resp)
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if media == "text/event-stream" {
		return resp
	}
	br := bufio.NewReader(resp.Body)
	if media != "application/json" && !startsWithBrace(br) {
		resp.Body = readCloser{br, resp.Body}
		return resp
	}
	raw, err := io.ReadAll(io.LimitReader(br, maxWholeAnswer+1))
	if err != nil || len(raw) > maxWholeAnswer {
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(raw), br), resp.Body}
		return resp
	}
	resp.Body.Close()
	sse, ok := completionAsChunk(argumentsAsText(raw))
	if !ok {
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		return resp
	}
	resp.Body = io.NopCloser(bytes.NewReader(sse))
	resp.Header.Set("Content-Type", "text/event-stream")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	return resp
}

// wholeArgumentsAsText rewrites the body of a whole answer (a request
// that did not ask for a stream) with argumentsAsText, so go-openai's
// decoder takes tool-call arguments sent as a JSON object. A body longer
// than maxWholeAnswer, or one that cannot be read, is passed on as it is.
func wholeArgumentsAsText(resp *http.Response) *http.Response {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxWholeAnswer+1))
	if err != nil || len(raw) > maxWholeAnswer {
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(raw), resp.Body), resp.Body}
		return resp
	}
	resp.Body.Close()
	fixed := argumentsAsText(raw)
	resp.Body = io.NopCloser(bytes.NewReader(fixed))
	if len(fixed) != len(raw) {
		resp.Header.Del("Content-Length")
		resp.ContentLength = int64(len(fixed))
	}
	return resp
}

// startsWithBrace reports whether the body's first non-space byte is "{".
func startsWithBrace(br *bufio.Reader) bool {
	for n := 1; n <= 64; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return false
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			if err != nil {
				return false
			}
			continue
		default:
			return c == '{'
		}
	}
	return false
}

// completionAsChunk turns a chat.completion JSON body into the server-sent
// events of one chat.completion.chunk carrying each choice's message as
// its delta, then [DONE]. ok is false when raw is no chat completion (no
// choices).
func completionAsChunk(raw []byte) (sse []byte, ok bool) {
	var whole openai.ChatCompletionResponse
	if json.Unmarshal(raw, &whole) != nil || len(whole.Choices) == 0 {
		return nil, false
	}
	chunk := openai.ChatCompletionStreamResponse{
		ID:                whole.ID,
		Object:            "chat.completion.chunk",
		Created:           whole.Created,
		Model:             whole.Model,
		SystemFingerprint: whole.SystemFingerprint,
	}
	for _, ch := range whole.Choices {
		calls := ch.Message.ToolCalls
		for i := range calls {
			// A stream names each call's place; the whole answer lists
			// them in order.
			calls[i].Index = &i
		}
		role := ch.Message.Role
		if role == "" {
			role = openai.ChatMessageRoleAssistant
		}
		chunk.Choices = append(chunk.Choices, openai.ChatCompletionStreamChoice{
			Index:        ch.Index,
			FinishReason: ch.FinishReason,
			Delta: openai.ChatCompletionStreamChoiceDelta{
				Role:             role,
				Content:          ch.Message.Content,
				ToolCalls:        calls,
				Refusal:          ch.Message.Refusal,
				ReasoningContent: ch.Message.ReasoningContent,
			},
		})
	}
	b, err := json.Marshal(chunk)
	if err != nil {
		return nil, false
	}
	var out bytes.Buffer
	out.WriteString("data: ")
	out.Write(b)
	out.WriteString("\n\ndata: [DONE]\n\n")
	return out.Bytes(), true
}

// readCloser reads from r and closes c: a body partly buffered for a peek.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }
