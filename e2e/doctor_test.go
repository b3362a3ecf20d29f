package e2e

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/agent/agenttest"
	"github.com/assistant-dev/assistant/store/storetest"
)

// The binary's `assistant doctor` takes the chat's settings from the
// environment, asks a scripted llama.cpp server, and exits 0 when the
// model calls tools and the request fits; with the same server started
// with a small context it exits 78 and says the -c to give. The key
// travels to the server and is not printed.
func TestDoctorThroughTheBinary(t *testing.T) {
	storetest.Engines(t, testDoctorThroughTheBinary)
}

func testDoctorThroughTheBinary(t *testing.T) {
	const key = "sk-local-5c1f0e"
	srv := &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"qwen2.5-7b-instruct-q4_k_m.gguf"}, Trained: 32768, Context: 32768, Key: key}
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn"
	h.env["OPENAI_BASE_URL"] = srv.Start(t)
	h.env["OPENAI_API_KEY"] = key

	r := h.run("doctor")
	if r.code != 0 {
		t.Fatalf("want exit 0, got %s", r)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	var status []string
	for _, l := range lines[1 : len(lines)-1] {
		status = append(status, strings.Join(strings.Fields(l)[:2], " "))
	}
	if strings.Join(status, "; ") != "ok model; ok tools; ok context" || !strings.HasPrefix(lines[len(lines)-1], "Ready: “qwen2.5-7b-instruct-q4_k_m.gguf”") {
		t.Errorf("want three ok lines and Ready, got:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "32,768 tokens (n_ctx in /props)") {
		t.Errorf("the window llama.cpp gives is not said:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, key) {
		t.Errorf("the key was printed:\n%s", r)
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}

	srv.Context = 4096
	r = h.run("doctor")
	if r.code != 78 || !strings.Contains(r.stdout, "restart llama-server with `-c 16384`") || !strings.Contains(r.stdout, "\nfail  context ") {
		t.Errorf("a context of 4096: want exit 78 and -c 16384, got %s", r)
	}
}
