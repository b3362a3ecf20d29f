package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Helpers of the tests with real CalDAV clients (caldav_*_test.go): the
// server as `assistant serve --http` runs it, raw WebDAV requests, and
// the tools run through `assistant call` to see what the model sees.

// clientLimit bounds one run of an outside client (python3-caldav,
// vdirsyncer, khal), so a hang fails the test with its output.
const clientLimit = time.Minute

// needClient skips t with why when ok is false, or fails it under
// CI=true, where .ci/run installs the clients (as the project does for a
// missing PostgreSQL).
func needClient(t *testing.T, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why + "; CI=true, where .ci/run installs it with apt-get")
	}
	t.Skip(why + "; skipped outside CI (Debian: apt-get install python3-caldav vdirsyncer khal)")
}

// davSite is one running `assistant serve --http` on a free loopback port
// and the install it serves, with a token per person.
type davSite struct {
	h      *mcpHome
	srv    *httpServer
	base   string            // http://127.0.0.1:PORT, no slash at the end
	tokens map[string]string // person → access token made with `assistant token create`
}

// newDAVSite adds people (each in Europe/Paris) to a fresh install on
// t's engine, makes each a token with the binary, and starts `assistant
// serve --http` on a free loopback port, waiting until it listens.
func newDAVSite(t *testing.T, people ...string) *davSite {
	t.Helper()
	h := newMCPHome(t)
	d := &davSite{h: h, tokens: map[string]string{}}
	for _, p := range people {
		h.run(t, "person", "add", p, "--zone", "Europe/Paris")
		d.tokens[p] = strings.TrimSpace(h.run(t, "token", "create", "--person", p, "--label", "caldav e2e"))
	}
	s := h.startServer(t, "serve")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", s.stderr.String())
		}
	})
	s.wait(t)
	d.srv = s
	d.base = strings.TrimSuffix(s.url, "/mcp")
	return d
}

// toolResult is what `assistant call TOOL --json` prints.
type toolResult struct {
	Code int             `json:"code"`
	Out  string          `json:"out"`
	Err  string          `json:"err"`
	Data json.RawMessage `json:"data"`
}

// call runs one tool as person through `assistant call --json` and fails
// the test unless it succeeds.
func (d *davSite) call(t *testing.T, person, tool string, args ...string) toolResult {
	t.Helper()
	out := d.h.run(t, append([]string{"--person", person, "call", tool, "--json"}, args...)...)
	var r toolResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("assistant call %s --json printed no JSON object (%v):\n%s", tool, err, out)
	}
	if r.Code != 0 {
		t.Fatalf("assistant call %s %v: code %d: %s", tool, args, r.Code, r.Err)
	}
	return r
}

// occurrence is one line of list_events as its JSON data has it.
type occurrence struct {
	ID     string `json:"id"`
	Series string `json:"series"`
	Title  string `json:"title"`
	Start  string `json:"start"`
	End    string `json:"end"`
	AllDay bool   `json:"all_day"`
}

// task is one task of list_tasks as its JSON data has it.
type task struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
	DueAt  string `json:"due_at"`
}

// tasks lists person's tasks of a status (open, done, all) with
// list_tasks.
func (d *davSite) tasks(t *testing.T, person, status string) []task {
	t.Helper()
	r := d.call(t, person, "list_tasks", "status="+status)
	var data struct {
		Tasks []task `json:"tasks"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		t.Fatalf("list_tasks data: %v\n%s", err, r.Data)
	}
	return data.Tasks
}

// events lists person's occurrences from one day to another (both
// included) with list_events: what the model sees.
func (d *davSite) events(t *testing.T, person, from, to string) []occurrence {
	t.Helper()
	r := d.call(t, person, "list_events", "from="+from, "to="+to, "limit=40")
	var data struct {
		Events []occurrence `json:"events"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		t.Fatalf("list_events data: %v\n%s", err, r.Data)
	}
	return data.Events
}

// changes is person's change list (list_changes) as JSON text, to compare
// before and after requests that must change nothing.
func (d *davSite) changes(t *testing.T, person string) string {
	t.Helper()
	return string(d.call(t, person, "list_changes", "limit=50").Data)
}

// davReply is one answer of the server to a raw request.
type davReply struct {
	status int
	header http.Header
	body   string
}

// noRedirect is a client that reports a redirect as the answer it is, so
// a test sees what the server answered to its own request.
var noRedirect = &http.Client{
	Timeout:       clientLimit,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends one request to the site as user with password (no
// Authorization header when user is ""), with the headers given as
// name, value pairs, and reads the whole answer.
func (d *davSite) do(t *testing.T, user, password, method, path string, body io.Reader, headers ...string) davReply {
	t.Helper()
	url := path
	if strings.HasPrefix(path, "/") {
		url = d.base + path
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return davReply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// as is do with person's own name and token.
func (d *davSite) as(t *testing.T, person, method, path, body string, headers ...string) davReply {
	t.Helper()
	return d.do(t, person, d.tokens[person], method, path, strings.NewReader(body), headers...)
}

// hrefs are the DAV:href texts of a multistatus body, in order.
func hrefs(body string) []string {
	var out []string
	dec := xml.NewDecoder(strings.NewReader(body))
	in := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Space == "DAV:" && tok.Name.Local == "href"
		case xml.CharData:
			if in {
				out = append(out, strings.TrimSpace(string(tok)))
			}
		case xml.EndElement:
			in = false
		}
	}
}

// runClient runs an outside client with the given environment added to
// this process's, stdin as its standard input, in dir, bounded by
// [clientLimit]; it returns the exit code and the output.
func runClient(t *testing.T, dir string, env []string, stdin string, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code, err := exitCode(cmd.Run())
	if err != nil {
		t.Fatalf("running %s %v: %v", name, args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not end within %s:\n%s\n%s", name, args, clientLimit, out.String(), errb.String())
	}
	return code, out.String(), errb.String()
}
