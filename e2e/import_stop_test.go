package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Ctrl-C while `assistant import -` reads its input (a pipe whose writer
// has more to give, as a terminal would) stops it at once with exit 130
// and a sentence saying nothing was imported; it was one transaction, so
// no event of what was read is there afterwards.
func TestImportInterruptedSaysNothingImported(t *testing.T) {
	storetest.Engines(t, testImportInterruptedSaysNothingImported)
}

func testImportInterruptedSaysNothingImported(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "error"
	h.must("call", "current_time") // the database and the person, made before the import
	cmd := exec.Command(bin, h.argv("import", "-")...)
	cmd.Dir = h.dir
	cmd.Env = h.environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n")
	for i := range 4000 {
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:e%d@t\r\nDTSTAMP:20261001T000000Z\r\nDTSTART:20261005T090000Z\r\n"+
			"SUMMARY:Event %d\r\nEND:VEVENT\r\n", i, i)
	}
	// A pipe holds 64 KiB: once this write returns, the import has read
	// most of it, so it is under way (past the signal handler's start).
	if _, err := in.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// Only a bound on a binary that waits for more input after the
	// interrupt: the end of the input then lets it end and fail the test.
	guard := time.AfterFunc(time.Minute, func() { in.Close() })
	defer guard.Stop()
	code, err := exitCode(cmd.Wait())
	if err != nil {
		t.Fatal(err)
	}
	said := strings.TrimSpace(errb.String())
	if code != 130 || !strings.Contains(said, "the import was stopped before it was written; nothing of standard input was imported") {
		t.Errorf("want exit 130 and a sentence saying nothing was imported, got exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), said)
	}
	if r := h.must("call", "list_events", "from=2026-10-05", "to=2026-10-06"); strings.Contains(r.stdout, "Event ") {
		t.Errorf("events of the stopped import are there:\n%s", r.stdout)
	}
}
