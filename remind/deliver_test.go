package remind

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A webhook that answers 500 then 200: the first attempt fails, nothing
// is sent before the retry wait, the retry succeeds with the same delivery
// id, a valid signature, and the delivery is recorded sent once.
func TestWebhookRetry(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
		type hit struct {
			id, sig string
			body    []byte
		}
		var (
			mu   sync.Mutex
			hits []hit
		)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			hits = append(hits, hit{r.Header.Get(DeliveryHeader), r.Header.Get(SignatureHeader), body})
			n := len(hits)
			mu.Unlock()
			if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			if n == 1 {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		defer srv.Close()
		eng := e.engine(Options{Notifiers: []Notifier{&Webhook{URL: srv.URL, Secret: "s3cret"}}})
		e.pass(eng)

		steps := []struct {
			at                 string
			sent, failed, hits int
			status             string
		}{
			{"2026-10-05T08:45", 0, 1, 1, "pending"},
			{"2026-10-05T08:45:30", 0, 0, 1, "pending"}, // the retry waits a minute
			{"2026-10-05T08:46", 1, 0, 2, "sent"},
			{"2026-10-05T09:30", 0, 0, 2, "sent"}, // never again
		}
		for _, s := range steps {
			e.now = civilAt(t, "Europe/Paris", s.at[:16])
			if len(s.at) > 16 {
				e.now = e.now.Add(30 * time.Second)
			}
			r := e.pass(eng)
			mu.Lock()
			n := len(hits)
			mu.Unlock()
			rows := e.rows()
			if r.Sent != s.sent || r.Failed != s.failed || n != s.hits || len(rows) != 1 || rows[0].Status != s.status {
				t.Fatalf("at %s: result %+v, %d hits, rows %+v; want sent %d failed %d hits %d status %s",
					s.at, r, n, rows, s.sent, s.failed, s.hits, s.status)
			}
		}
		rows := e.rows()
		if rows[0].Attempts != 2 || rows[0].LastError != "" {
			t.Errorf("row %+v, want 2 attempts and no error left", rows[0])
		}
		if hits[0].id != hits[1].id || hits[0].id != rows[0].DeliveryID || !strings.HasPrefix(hits[0].id, "rd_") {
			t.Errorf("delivery ids %q, %q, row %q: want one stable id", hits[0].id, hits[1].id, rows[0].DeliveryID)
		}
		for i, h := range hits {
			if h.sig != Sign("s3cret", h.body) {
				t.Errorf("hit %d: signature %q does not match the body", i, h.sig)
			}
			var m Message
			if err := json.Unmarshal(h.body, &m); err != nil || m.DeliveryID != h.id || m.Attempt != i+1 {
				t.Errorf("hit %d: body %s", i, h.body)
			}
		}
	})
}

// Retries run out: after 1, 5 and 30 minutes the fourth failure marks the
// delivery failed, and --status shows it.
func TestRetriesRunOut(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		e.call(e.ada, "add_task", `{"title":"Water plants","due":"2026-10-05T09:00","remind_before":[0]}`)
		e.rec.fail = 100
		eng := e.engine(Options{})
		e.pass(eng)
		start := civilAt(t, "Europe/Paris", "2026-10-05T09:00")
		for i, wait := range []time.Duration{0, time.Minute, 6 * time.Minute, 36 * time.Minute} {
			e.now = start.Add(wait - time.Second)
			if i > 0 {
				if r := e.pass(eng); r.Failed != 0 {
					t.Fatalf("attempt %d came before its wait: %+v", i+1, r)
				}
			}
			e.now = start.Add(wait)
			r := e.pass(eng)
			if r.Failed != 1 {
				t.Fatalf("attempt %d: %+v", i+1, r)
			}
		}
		rows := e.rows()
		if len(rows) != 1 || rows[0].Status != "failed" || rows[0].Attempts != 4 || !strings.Contains(rows[0].LastError, "receiver is down") {
			t.Fatalf("rows %+v, want one failed after 4 attempts", rows)
		}
		reports, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteStatus(&b, reports); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "failed: 1") || !strings.Contains(b.String(), "Water plants") {
			t.Errorf("status does not show the failure:\n%s", b.String())
		}
	})
}

// Two engines on two handles of one file (as two processes) pass at the
// same time: every reminder is delivered exactly once.
func TestConcurrentPasses(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		const n = 40
		for i := range n {
			e.call(e.ada, "add_task", fmt.Sprintf(`{"title":"Task %d","due":"2026-10-05T09:%02d","remind_before":[0]}`, i, i%30))
		}
		e.call(e.bob, "add_event", `{"title":"Call","start":"2026-10-05T03:00","end":"2026-10-05T06:00","remind_before":[0, 5]}`)
		other := e.open()
		recs := []*recorder{{}, {}}
		engines := []*Engine{
			e.engine(Options{Notifiers: []Notifier{recs[0]}}),
			e.engine(Options{Store: other, Notifiers: []Notifier{recs[1]}}),
		}
		e.pass(engines[0])
		e.at("Europe/Paris", "2026-10-05T10:00")
		var wg sync.WaitGroup
		for _, eng := range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := eng.Pass(context.Background()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		seen := map[string]int{}
		for _, r := range recs {
			for _, m := range r.take() {
				seen[m.DeliveryID]++
			}
		}
		if len(seen) != n+2 {
			t.Errorf("%d distinct deliveries, want %d", len(seen), n+2)
		}
		for id, c := range seen {
			if c != 1 {
				t.Errorf("%s delivered %d times", id, c)
			}
		}
		sent := 0
		for _, r := range e.rows() {
			if r.Status == "sent" {
				sent++
			}
		}
		if sent != n+2 {
			t.Errorf("%d rows sent, want %d", sent, n+2)
		}
	})
}

// Missed while nothing ran: within --max-late a reminder is sent saying
// how late; past it, it is recorded as skipped and never sent.
func TestMaxLate(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T07:00"))
		eng := e.engine(Options{MaxLate: 6 * time.Hour})
		e.pass(eng) // the job runs at 07:00, then is down until 17:00
		e.at("Europe/Paris", "2026-10-05T07:30")
		e.call(e.ada, "add_task", `{"title":"Report","due":"2026-10-05T18:00","remind_before":[540, 180]}`)
		e.at("Europe/Paris", "2026-10-05T17:00")
		r := e.pass(eng)
		got := e.rec.take()
		if r.Skipped != 1 || r.Sent != 1 || r.Late != 1 || len(got) != 1 {
			t.Fatalf("result %+v, messages %+v", r, got)
		}
		m := got[0]
		if m.Trigger != "before:180" || m.LateSeconds != 2*3600 || m.Late != "2 h" || !strings.Contains(m.Text, "sent 2 h late") {
			t.Errorf("late message %+v", m)
		}
		var skipped row
		for _, r := range e.rows() {
			if r.Status == "skipped" {
				skipped = r
			}
		}
		if skipped.Trigger != "before:540" || !strings.Contains(skipped.LastError, "missed by 8 h") {
			t.Errorf("skipped row %+v", skipped)
		}
		e.at("Europe/Paris", "2026-10-05T17:30")
		if r := e.pass(eng); r.Sent+r.Skipped != 0 || len(e.rec.take()) != 0 {
			t.Errorf("a second pass did more: %+v", r)
		}
		reports, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		ps := reports[0]
		if len(ps.Sent) != 1 || len(ps.Late) != 1 || len(ps.Skipped) != 1 || len(ps.Failed) != 0 {
			t.Errorf("status %+v", ps)
		}
	})
}

// The daily digest: once a day at its time in the person's zone, with the
// day's events (cancelled ones left out) and the tasks due or overdue.
func TestDigest(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-04T20:00"))
		ev := e.call(e.ada, "add_event", `{"title":"Standup","start":"2026-10-05T09:00","duration":15,"rrule":"FREQ=DAILY"}`)
		e.call(e.ada, "delete_event", fmt.Sprintf(`{"id":"%s@20261006T070000Z","scope":"this"}`, ev))
		e.call(e.ada, "add_event", `{"title":"Holiday","start":"2026-10-05"}`)
		e.call(e.ada, "add_task", `{"title":"Old thing","due":"2026-10-01"}`)
		e.call(e.ada, "add_task", `{"title":"Today thing","due":"2026-10-05T16:00"}`)
		e.call(e.ada, "add_task", `{"title":"Later thing","due":"2026-10-09"}`)
		d, err := ParseDigest("07:30")
		if err != nil {
			t.Fatal(err)
		}
		eng := e.engine(Options{Digest: d, People: []int64{e.ada.ID}})
		e.pass(eng)
		next, ok, err := eng.NextDue(e.ctx)
		if err != nil || !ok || !next.Equal(civilAt(t, "Europe/Paris", "2026-10-05T07:30")) {
			t.Errorf("next due %v %v %v, want the digest at 07:30", next, ok, err)
		}
		e.at("Europe/Paris", "2026-10-05T07:30")
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-05T12:00")
		e.pass(eng)
		got := e.rec.take()
		if len(got) != 1 || got[0].Kind != "digest" || got[0].Digest == nil {
			t.Fatalf("want one digest, got %+v", got)
		}
		body := got[0].Digest
		var titles []string
		for _, ev := range body.Events {
			titles = append(titles, ev.Title)
		}
		if fmt.Sprint(titles) != "[Holiday Standup]" || body.TasksTotal != 2 {
			t.Errorf("digest %+v", body)
		}
		if len(body.Tasks) != 2 || body.Tasks[0].Title != "Old thing" || !body.Tasks[0].Overdue || body.Tasks[1].Overdue {
			t.Errorf("tasks %+v", body.Tasks)
		}
		e.at("Europe/Paris", "2026-10-06T07:30")
		e.pass(eng)
		got = e.rec.take()
		if len(got) != 1 || got[0].Digest.Day != "2026-10-06" {
			t.Fatalf("second day: %+v", got)
		}
		for _, ev := range got[0].Digest.Events {
			if ev.Title == "Standup" {
				t.Errorf("the cancelled standup is in the digest: %+v", ev)
			}
		}
		if _, err := ParseDigest("7h30"); err == nil || !strings.Contains(err.Error(), "“--digest”") {
			t.Errorf("a bad --digest: %v", err)
		}
	})
}

// The exec notifier gets the JSON on stdin; a non-zero exit is a failure.
func TestCommandNotifier(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got.json")
	m := &Message{DeliveryID: "rd_x", Title: "Hi"}
	body, _ := json.Marshal(m)
	ok := &Command{Line: "cat > " + out + " && test \"$ASSISTANT_DELIVERY_ID\" = rd_x"}
	if err := ok.Notify(context.Background(), m, body); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, body) {
		t.Errorf("the command read %q, want %q", b, body)
	}
	bad := &Command{Line: "echo nope >&2; exit 3"}
	if err := bad.Notify(context.Background(), m, body); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a failing command: %v", err)
	}
}
