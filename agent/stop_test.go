package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// cancelOn is an Out that cancels the turn once the text written so far
// contains want, as a person pressing Ctrl-C while reading it.
type cancelOn struct {
	seen   strings.Builder
	want   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.seen.Write(p)
	if strings.Contains(c.seen.String(), c.want) {
		c.cancel()
	}
	return len(p), nil
}

// Some proxies answer a streamed request with one whole chat.completion:
// it is taken as the answer, whatever Content-Type it comes with, tool
// calls included.
func TestWholeAnswerToAStreamedRequest(t *testing.T) {
	for _, ctype := range []string{"", "-", "text/plain; charset=utf-8", "application/json; charset=utf-8"} {
		t.Run("Content-Type "+ctype, func(t *testing.T) {
			calls := callsReply(call{"call_w1", "add_note", `{"text":"milk"}`}, call{"call_w2", "list_notes", `{}`})
			calls.whole, calls.ctype = true, ctype
			text := textReply("Noted n1: milk.")
			text.whole, text.ctype = true, ctype
			e := newEnv(t, true, calls, text)
			conv := NewMemory()
			answer, err := e.agent.Turn(context.Background(), conv, "note milk")
			if err != nil {
				t.Fatalf("err = %v (exit %d)", err, ExitCode(err))
			}
			if answer != "Noted n1: milk." || !strings.HasSuffix(e.out.String(), "Noted n1: milk.\n") {
				t.Errorf("answer %q, Out %q", answer, e.out.String())
			}
			if len(e.nb.notes) != 1 || e.nb.notes[0].text != "milk" {
				t.Errorf("notes = %+v", e.nb.notes)
			}
			if r := rolesOf(conv.Messages()); r != "user assistant+2 tool tool assistant" {
				t.Errorf("stored %s", r)
			}
			reqs := e.fake.requests()
			if len(reqs) != 2 || !reqs[0].req.Stream {
				t.Fatalf("%d requests, want 2 streamed", len(reqs))
			}
			if tm := toolMessages(reqs[1]); len(tm) != 2 || tm[0].ToolCallID != "call_w1" || tm[1].ToolCallID != "call_w2" {
				t.Errorf("tool messages sent back = %+v", tm)
			}
		})
	}
	// A whole body that is no chat completion is still refused.
	bad := reply{body: `{"object":"list","data":[]}`, whole: true}
	e := newEnv(t, true, bad)
	_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindProtocol {
		t.Errorf("a list for a completion: err = %v, want KindProtocol", err)
	}
}

// A connection dropped before any text was shown is retried; once text was
// shown it cannot be replayed, and the sentence says so; the text shown is
// kept with the question.
func TestDroppedConnection(t *testing.T) {
	t.Run("before any text", func(t *testing.T) {
		e := newEnv(t, true,
			reply{sse: []string{chunk(`{"role":"assistant","content":""}`)}, cut: true},
			reply{sse: []string{chunk(`{"role":"assistant","content":"All fine."}`), finish("stop")}},
		)
		answer, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
		if err != nil || answer != "All fine." {
			t.Fatalf("answer %q, err %v", answer, err)
		}
		if n := len(e.fake.requests()); n != 2 {
			t.Errorf("%d requests, want 2 (one retry)", n)
		}
	})
	t.Run("after text was shown", func(t *testing.T) {
		e := newEnv(t, true, reply{sse: []string{chunk(`{"role":"assistant","content":"Your week holds"}`)}, cut: true})
		conv := NewMemory()
		answer, err := e.agent.Turn(context.Background(), conv, "what is on this week?")
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != KindUnavailable || ExitCode(err) != ExitUnavailable {
			t.Fatalf("err = %v", err)
		}
		want := "The connection to the model server at " + e.fake.url() + " dropped after the answer had started; ask again."
		if ae.Sentence != want {
			t.Errorf("sentence %q, want %q", ae.Sentence, want)
		}
		if n := len(e.fake.requests()); n != 1 {
			t.Errorf("%d requests, want 1 (shown text is not replayed)", n)
		}
		if answer != "Your week holds" || e.out.String() != "Your week holds\n" {
			t.Errorf("answer %q, Out %q", answer, e.out.String())
		}
		msgs := conv.Messages()
		if r := rolesOf(msgs); r != "user assistant" || msgs[1].Content != "Your week holds"+failedMark {
			t.Errorf("stored %s: %+v", r, msgs)
		}
	})
}

// Attempts are counted in words that agree with the number.
func TestTriesWording(t *testing.T) {
	for _, c := range []struct {
		retries int
		want    string
	}{{-1, "after 1 try;"}, {1, "after 2 tries;"}} {
		rs := []reply{errorReply(503, "server_error", "down"), errorReply(503, "server_error", "down")}
		e := newEnv(t, false, rs[:max(c.retries, 0)+1]...)
		e.cfg.MaxRetries = c.retries
		e.build(t)
		_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "1 tries") {
			t.Errorf("retries %d: err %v, want it to say %q", c.retries, err, c.want)
		}
	}
	if triesText(1) != "1 try" || triesText(3) != "3 tries" {
		t.Errorf("triesText: %q, %q", triesText(1), triesText(3))
	}
}

// An answer stopped with Ctrl-C while it was being written is kept with
// the question, marked as stopped, so the next message ("go on") can refer
// to it; the next request carries both.
func TestStoppedAnswerIsKept(t *testing.T) {
	e := newEnv(t, true,
		reply{sse: []string{chunk(`{"role":"assistant","content":"Here is a long plan: first"}`)}, hold: true},
		reply{sse: []string{chunk(`{"role":"assistant","content":"second, …"}`), finish("stop")}},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{want: "first", cancel: cancel}
	e.cfg.Out = out
	e.build(t)
	conv := NewMemory()
	answer, err := e.agent.Turn(ctx, conv, "plan my week")
	if !errors.Is(err, ErrInterrupted) || ExitCode(err) != ExitInterrupted {
		t.Fatalf("err = %v", err)
	}
	if answer != "Here is a long plan: first" || out.seen.String() != "Here is a long plan: first\n" {
		t.Errorf("answer %q, Out %q (the line must be ended)", answer, out.seen.String())
	}
	msgs := conv.Messages()
	if r := rolesOf(msgs); r != "user assistant" || msgs[0].Content != "plan my week" || msgs[1].Content != "Here is a long plan: first [stopped]" {
		t.Fatalf("stored %s: %+v", r, msgs)
	}
	if _, err := e.agent.Turn(context.Background(), conv, "go on"); err != nil {
		t.Fatal(err)
	}
	sent := e.fake.requests()[1].req.Messages
	if len(sent) != 4 || sent[2].Content != "Here is a long plan: first [stopped]" || sent[3].Content != "go on" {
		t.Errorf("second request sent %+v", sent)
	}
}

// The server's model list is asked for once per Agent, even when the
// listing failed: the sentence of a later 404 does not ask again.
func TestModelsAskedOnce(t *testing.T) {
	e := newEnv(t, true, errorReply(404, "invalid_request_error", "The model `test-model` does not exist."))
	if _, err := e.agent.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindNotFound {
		t.Fatalf("err = %v", err)
	}
	if n := e.fake.modelGets(); n != 1 {
		t.Errorf("%d GET /models, want 1", n)
	}
}

// The server's words go inside the one pair of brackets with the status,
// never in a second pair after it.
func TestServerSaidInOneBracket(t *testing.T) {
	rs := []reply{errorReply(401, "invalid_api_key", "Incorrect API key provided")}
	e := newEnv(t, false, rs...)
	e.build(t)
	_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
	if err == nil || strings.Contains(err.Error(), ") (") || !strings.Contains(err.Error(), "(HTTP 401; the server said: Incorrect API key provided)") {
		t.Errorf("err %v, want “(HTTP 401; the server said: …)” in one pair of brackets", err)
	}
}
