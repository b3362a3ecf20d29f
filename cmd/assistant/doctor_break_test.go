package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostileChatServer lists the model m and answers every chat request with
// status and body.
func hostileChatServer(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"x"}]}`)
			return
		}
		if r.URL.Path == "/v1/chat/completions" {
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// A server may count absurdly: the size doctor proposes must still be
// worked out, never loop for ever (need doubled an int past overflow).
func TestDoctorNeedWithAbsurdTokenCounts(t *testing.T) {
	for _, tokens := range []int{0, 5000, 1 << 40, 4611686018427387000, 5000000000000000000, 1<<63 - 1} {
		n := need(tokens, 0)
		if n < 8192 {
			t.Errorf("need(%d, 0) = %d, want at least 8192", tokens, n)
		}
		if tokens < 1<<40 && n < tokens+roomWanted {
			t.Errorf("need(%d, 0) = %d, less than the request and its room", tokens, n)
		}
	}
}

// llama.cpp's words for an overflow, with a count no model has: doctor
// must finish with its one line and a fix, not hang (it spun for ever and
// ignored SIGINT and SIGTERM), and must not print an empty "()" where the
// window's source goes.
func TestDoctorOverflowWithAbsurdCountEnds(t *testing.T) {
	isolate(t)
	url := hostileChatServer(t, http.StatusBadRequest,
		`{"error":{"code":400,"message":"the request (5000000000000000000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}`)
	r := runArgs("doctor", "--base-url", url, "--model", "m", "--timeout", "1m")
	if r.code != 78 {
		t.Fatalf("exit %d, want 78:\n%s%s", r.code, r.out, r.stderr)
	}
	line := lineOf(t, r.out, "fail", "context")
	if strings.Contains(line, "()") {
		t.Errorf("the window's source is an empty (): %s", line)
	}
}

// A key the server echoes in a long message is cut at 200 bytes with "…";
// the part of the key before the cut must not be printed either.
func TestDoctorNeverPrintsPartOfTheKey(t *testing.T) {
	isolate(t)
	const key = "sk-proj-abcdefghijklmnop-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		io.WriteString(w, `{"error":{"message":"`+strings.Repeat("x", 180)+` key: `+got+`"}}`)
	}))
	defer srv.Close()
	t.Setenv(envAPIKey, key)
	r := runArgs("doctor", "--base-url", srv.URL+"/v1", "--model", "m")
	if r.code != 77 {
		t.Fatalf("exit %d, want 77:\n%s%s", r.code, r.out, r.stderr)
	}
	if strings.Contains(r.out+r.stderr, key[:10]) {
		t.Errorf("a part of the key was written:\n%s%s", r.out, r.stderr)
	}
}
