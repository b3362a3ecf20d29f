package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipeServer runs ServeIO over a pair of OS pipes, as a desktop client
// runs `assistant mcp`, and returns a client session on the other ends
// and the channel ServeIO's error arrives on.
func pipeServer(t testing.TB, ctx context.Context, opts *Options) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ServeIO(ctx, testRegistry(nil), personContext(7, "Grace"), opts, serverIn, serverOut) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, done
}

func TestServeIO(t *testing.T) {
	cs, done := pipeServer(t, context.Background(), nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "You are Grace." {
		t.Errorf("text %q, want the base person", got)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "count", Arguments: json.RawMessage(`{"n":"0"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("out-of-range n: isError false, text %q", text(t, res))
	}
	// The client going away (stdin closed) ends the server cleanly.
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("ServeIO after the client closed: %v, want nil", err)
	}
}

func TestServeIOCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cs, done := pipeServer(t, ctx, nil)
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeIO after cancel: %v, want nil", err)
	}
}

func TestServeIOBadOptions(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := ServeIO(context.Background(), testRegistry(nil), personContext(1, "Ada"), &Options{Tools: []string{"nope"}}, r, w); err == nil {
		t.Error("ServeIO with an unknown tool name returned nil")
	}
}
