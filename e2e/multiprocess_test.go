package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// Several machines on one PostgreSQL database, as the binary runs them:
// three `assistant remind` loops and two `assistant mcp --http` servers.
// The people and their tokens are made with the binary; tasks and events
// with reminders are written through both servers with the go-sdk client
// while the remind loops run, and one remind process after another is
// killed with SIGKILL mid-pass and started again. At the end every
// reminder was delivered, none under two delivery ids, an id was sent
// twice only when a process sending it was killed before it recorded the
// send, and every acknowledged write is listed through the other server.
//
// Every process runs on the real clock, as machines do (a fixed
// ASSISTANT_NOW on the servers ahead of the remind loops' would make a
// write look older than the passes that already covered its time): each
// reminder is set at the first whole minute a few seconds ahead, so the
// test waits for that minute. Leases are judged by the PostgreSQL
// server's clock. Every wait is bounded by a deadline that only stops a
// hung run; nothing asserts how fast anything went.
const (
	mpLease  = "3s"            // ASSISTANT_REMIND_LEASE of the remind loops (remind/crash.go)
	mpWait   = 4 * time.Minute // bounds each wait of a loaded machine
	mpWrites = 36              // writes, half through each server
	mpKills  = 6               // remind processes killed while the reminders go out
)

// remindProc is one run of `assistant remind` in a slot; name tells it
// from every other run in the record of deliveries.
type remindProc struct {
	name   string
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
	killed bool // ended by the test's SIGKILL
}

// sentLogged reports whether the process logged id as sent, which it does
// only after the send is recorded in the database.
func (p *remindProc) sentLogged(id string) bool {
	sc := bufio.NewScanner(strings.NewReader(p.stderr.String()))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var l struct{ Msg, Delivery string }
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "reminder sent" && l.Delivery == id {
			return true
		}
	}
	return false
}

// mpWriteDone is one acknowledged write: what was added, by whom, through
// which server.
type mpWriteDone struct {
	person, id string
	server     int
}

func TestMultiProcessOnePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five processes on a PostgreSQL database; skipped with -short")
	}
	dsn := storetest.PostgresDatabase(t)
	remindBin := crashBinary(t) // for ASSISTANT_REMIND_LEASE and ASSISTANT_REMIND_STOP
	dir := t.TempDir()
	sentLog := filepath.Join(dir, "sent.log")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "ASSISTANT_DB=" + dsn, "USER=tester", "TZ=Europe/Paris"}
	h := &mcpHome{bin: bin, env: env}
	h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
	h.run(t, "person", "add", "bob", "--zone", "Europe/Paris")
	token := map[string]string{}
	for _, p := range []string{"alice", "bob"} {
		token[p] = strings.TrimSpace(h.run(t, "token", "create", "--person", p, "--label", "multiprocess"))
	}

	// Two servers, one after the other; each person's token on each.
	servers := []*httpServer{h.serveHTTP(t), h.serveHTTP(t)}
	ctx := context.Background()
	sessions := map[string][]*mcp.ClientSession{}
	for _, p := range []string{"alice", "bob"} {
		for i, s := range servers {
			cs, err := httpClient(ctx, s.url, "Bearer "+token[p])
			if err != nil {
				t.Fatalf("%s's token, made with the binary, on server %d: %v\n%s", p, i, err, s.stderr.String())
			}
			t.Cleanup(func() { cs.Close() })
			sessions[p] = append(sessions[p], cs)
		}
	}

	// A token made while both servers run works on each at once.
	late := strings.TrimSpace(h.run(t, "token", "create", "--person", "bob", "--label", "while serving"))
	for i, s := range servers {
		cs, err := httpClient(ctx, s.url, "Bearer "+late)
		if err != nil {
			t.Fatalf("a token made while the servers run, on server %d: %v\n%s", i, err, s.stderr.String())
		}
		succeed(t, cs, "list_tasks", `{}`)
		cs.Close()
	}

	// The remind loops, in three slots.
	slots := make([]*remindProc, 3)
	runs := 0
	var all []*remindProc
	start := func(slot int, extra ...string) *remindProc {
		runs++
		p := &remindProc{name: fmt.Sprintf("s%d-r%d", slot, runs), stderr: &lockedBuffer{}, done: make(chan struct{})}
		// The notifier takes a moment, so kills land in sends too.
		p.cmd = exec.Command(remindBin, "remind", "--every", "1s", "--exec",
			`sleep 0.1; printf '%s %s\n' "$ASSISTANT_DELIVERY_ID" "$MP_PROC" >>"$MP_LOG"`)
		p.cmd.Env = append(slices.Clone(env), append([]string{"ASSISTANT_REMIND_LEASE=" + mpLease,
			"MP_PROC=" + p.name, "MP_LOG=" + sentLog}, extra...)...)
		p.cmd.Stderr = p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			p.cmd.Wait()
			close(p.done)
		}()
		t.Cleanup(func() {
			select {
			case <-p.done:
			default:
				p.cmd.Process.Kill()
				<-p.done
			}
		})
		slots[slot] = p
		all = append(all, p)
		return p
	}
	kill := func(p *remindProc) {
		t.Helper()
		p.killed = true
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-p.done
	}

	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	var writes []mpWriteDone
	added := regexp.MustCompile(`^Added ([te]\d+)`)
	n := 0
	// write adds a task or an event as person through server srv, with a
	// reminder at the first whole minute at least 5 s ahead, then checks
	// that the next call on the other server lists it.
	write := func(person string, srv int) {
		t.Helper()
		n++
		at := time.Now().Add(5 * time.Second).Add(time.Minute - time.Nanosecond).Truncate(time.Minute).In(paris)
		tool, args := "add_task", fmt.Sprintf(`{"title":"Task %d","due":"%s","remind_before":[0]}`, n, at.Format("2006-01-02T15:04"))
		if n%4 >= 2 {
			tool, args = "add_event", fmt.Sprintf(`{"title":"Event %d","start":"%s","end":"%s","remind_before":[0]}`, n,
				at.Format("2006-01-02T15:04"), at.Add(2*time.Hour).Format("2006-01-02T15:04"))
		}
		out := succeed(t, sessions[person][srv], tool, args)
		m := added.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s through server %d answered %q, want “Added …”", tool, srv, out)
		}
		if strings.Contains(out, "already passed") {
			t.Fatalf("%s %s: the reminder was set in the past: %s", tool, args, out)
		}
		writes = append(writes, mpWriteDone{person: person, id: m[1], server: srv})
		if !listed(t, sessions[person][1-srv], m[1]) {
			t.Fatalf("%s, added through server %d, is not listed by the next call on server %d", m[1], srv, 1-srv)
		}
	}

	// The writes go through both servers while the first remind process
	// passes every second, recording each reminder before it is due. That
	// process stops after its first send (ASSISTANT_REMIND_STOP) and is
	// killed there, between sending and recording; the others, started
	// then, take that delivery over once its lease ends.
	first := start(0, "ASSISTANT_REMIND_STOP=after-send")
	for i := range mpWrites {
		write([]string{"alice", "bob"}[i%2], i/2%2)
	}
	stopped := regexp.MustCompile(`remind: stopped after sending (rd_[0-9a-f]+)`)
	var crashedID string
	for deadline := time.Now().Add(mpWait); crashedID == ""; {
		if m := stopped.FindStringSubmatch(first.stderr.String()); m != nil {
			crashedID = m[1]
			break
		}
		select {
		case <-first.done:
			t.Fatalf("the first remind process ended before sending:\n%s", first.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first remind process sent nothing within %s:\n%s", mpWait, first.stderr.String())
		}
	}
	kill(first)
	start(0)
	start(1)
	start(2)

	// While the reminders go out, one remind process after another is
	// killed at a moment in its passes, and started again.
	rng := rand.New(rand.NewPCG(17, uint64(time.Now().UnixNano())))
	for k := range mpKills {
		time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
		slot := k % 3
		kill(slots[slot])
		start(slot)
	}

	// Wait until every acknowledged write's reminder is recorded sent.
	s, err := store.Open(ctx, dsn, &store.Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type rowInfo struct{ owner, item, id, status string }
	var rows []rowInfo
	for deadline := time.Now().Add(mpWait); ; {
		rows = rows[:0]
		q, err := s.DB().QueryContext(ctx, `SELECT p.name, d.item, d.delivery_id, d.status FROM reminder_deliveries d
			JOIN people p ON p.id = d.owner_id ORDER BY d.id`)
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for q.Next() {
			var r rowInfo
			if err := q.Scan(&r.owner, &r.item, &r.id, &r.status); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
			if r.status == store.DeliverySent {
				sent++
			}
		}
		q.Close()
		if sent == len(writes) && len(rows) == len(writes) {
			break
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, p := range all {
				fmt.Fprintf(&logs, "--- %s (killed %t):\n%s", p.name, p.killed, p.stderr.String())
			}
			t.Fatalf("after %s, %d of %d reminders sent; rows %+v\nthe remind processes:\n%s", mpWait, sent, len(writes), rows, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, p := range slots {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(mpWait):
			t.Fatalf("%s still runs %s after SIGTERM", p.name, mpWait)
		}
		// A run restarted just before the end may get SIGTERM before its
		// runtime has set up the handler (nothing written yet): the signal's
		// default action stops it, which is a stop too. A run that was
		// under way must stop by itself, with 0.
		ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
		early := ws.Signaled() && ws.Signal() == syscall.SIGTERM && p.stderr.String() == ""
		if code := p.cmd.ProcessState.ExitCode(); code != 0 && !early {
			t.Errorf("%s exited %d after SIGTERM:\n%s", p.name, code, p.stderr.String())
		}
	}

	// One row, so one delivery id, per acknowledged write, and it was sent.
	byItem := map[string]rowInfo{}
	byID := map[string]rowInfo{}
	for _, r := range rows {
		k := r.owner + "/" + r.item
		if prev, dup := byItem[k]; dup {
			t.Errorf("%s has two deliveries: %s and %s", k, prev.id, r.id)
		}
		byItem[k], byID[r.id] = r, r
	}
	for _, w := range writes {
		if _, ok := byItem[w.person+"/"+w.id]; !ok {
			t.Errorf("%s's %s has no delivery", w.person, w.id)
		}
	}

	// The record of the notifier: who sent which id.
	b, err := os.ReadFile(sentLog)
	if err != nil {
		t.Fatal(err)
	}
	senders := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		id, proc, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("a line of the notifier's record is %q", line)
		}
		if _, known := byID[id]; !known {
			t.Errorf("%s sent %s, which is no delivery of the database", proc, id)
		}
		senders[id] = append(senders[id], proc)
	}
	procs := map[string]*remindProc{}
	for _, p := range all {
		procs[p.name] = p
	}
	for id := range byID {
		got := senders[id]
		if len(got) == 0 {
			t.Errorf("%s (%s) was never delivered", id, byID[id].owner+"/"+byID[id].item)
			continue
		}
		// Every send but one must be by a process killed before it
		// recorded that send.
		unrecorded := 0
		for _, name := range got {
			if p := procs[name]; p.killed && !p.sentLogged(id) {
				unrecorded++
			}
		}
		if len(got)-unrecorded > 1 {
			t.Errorf("%s was sent by %v: more than once by processes that lived to record it", id, got)
		}
	}
	if got := senders[crashedID]; len(got) < 2 || got[0] != first.name {
		t.Errorf("the delivery %s whose sender was killed after sending was sent by %v, want %s and then a process that took it over", crashedID, got, first.name)
	}

	// Every acknowledged write is listed through the other server.
	for _, w := range writes {
		if !listed(t, sessions[w.person][1-w.server], w.id) {
			t.Errorf("%s's %s, added through server %d, is not listed by server %d", w.person, w.id, w.server, 1-w.server)
		}
	}
	t.Logf("%d writes, %d remind runs (%d killed), %d sends of %d deliveries", len(writes), len(all), kills(all), len(strings.Split(strings.TrimSpace(string(b)), "\n")), len(byID))
}

func kills(ps []*remindProc) int {
	n := 0
	for _, p := range ps {
		if p.killed {
			n++
		}
	}
	return n
}

// listed reports whether the task or event id is in the person's list of
// that kind, as cs's server answers it now.
func listed(t *testing.T, cs *mcp.ClientSession, id string) bool {
	t.Helper()
	tool := "list_tasks"
	if strings.HasPrefix(id, "e") {
		tool = "list_events"
	}
	out := succeed(t, cs, tool, `{}`)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == id || strings.HasPrefix(f[0], id+"@")) {
			return true
		}
	}
	return false
}
