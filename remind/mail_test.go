package remind

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"

	"github.com/assistant-dev/assistant/tz"
)

// The Mail notifier is tested against a real SMTP server: Debian's
// python3-aiosmtpd, scripted by testdata/smtpd.py and started by each
// test. With CI=true a missing server fails the test (.ci/run installs
// it), as a missing PostgreSQL does; elsewhere it is skipped.

// smtpd is one running testdata/smtpd.py.
type smtpd struct {
	t    *testing.T
	dir  string
	addr string // 127.0.0.1:PORT
}

// received is one message the server read to its end.
type received struct {
	MailFrom string   `json:"mail_from"`
	RcptTos  []string `json:"rcpt_tos"`
	Data     string   `json:"data"`
	TLS      bool     `json:"tls"`
	User     *string  `json:"user"`
	Answered bool     `json:"answered"`
}

// serverPython is a python3 that has aiosmtpd (Debian's python3-aiosmtpd
// lives in /usr/bin/python3's path), or the test is skipped (failed
// under CI=true).
func serverPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import aiosmtpd").Run() == nil {
			return path
		}
	}
	why := "no python3 with aiosmtpd, the SMTP server these tests send to"
	if os.Getenv("CI") == "true" {
		t.Fatal(why + "; CI=true, where .ci/run installs it (apt-get install python3-aiosmtpd)")
	}
	t.Skip(why + "; skipped outside CI (Debian: apt-get install python3-aiosmtpd)")
	return ""
}

// startSMTPD starts the server with args (--starttls CERT KEY, --tls CERT
// KEY, --auth USER PASS) and waits until it listens.
func startSMTPD(t *testing.T, args ...string) *smtpd {
	t.Helper()
	py := serverPython(t)
	s := &smtpd{t: t, dir: t.TempDir()}
	cmd := exec.Command(py, append([]string{"testdata/smtpd.py", s.dir}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("the SMTP server's stderr:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "PORT ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the SMTP server did not start (%v, %q): %s", err, line, stderr.String())
	}
	s.addr = net.JoinHostPort("127.0.0.1", port)
	return s
}

// mode sets what the server does from its next command on.
func (s *smtpd) mode(m string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, "mode"), []byte(m), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// messages is every message the server has read, in order.
func (s *smtpd) messages() []received {
	s.t.Helper()
	names, _ := filepath.Glob(filepath.Join(s.dir, "*.json"))
	sort.Strings(names)
	var out []received
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			s.t.Fatal(err)
		}
		var r received
		if err := json.Unmarshal(b, &r); err != nil {
			s.t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// testCert makes a CA-less self-signed certificate for 127.0.0.1 and
// localhost, writes it and its key as PEM files, and returns them with a
// client TLS config that trusts it.
func testCert(t *testing.T) (certFile, keyFile string, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "assistant test SMTP server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, &tls.Config{RootCAs: pool}
}

// parsed is a received message read as a mail reader would.
type parsed struct {
	h       mail.Header
	subject string
	body    string
}

func parseMail(t *testing.T, r received) parsed {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(r.Data))
	if err != nil {
		t.Fatalf("not a mail: %v\n%s", err, r.Data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	var body io.Reader = m.Body
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(m.Body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return parsed{h: m.Header, subject: subject, body: strings.ReplaceAll(string(b), "\r\n", "\n")}
}

// mailEnv is an env whose only notifier is a Mail to s, with a task
// "Café with Zoë" due 09:00 in Paris, reminded 15 minutes before, long
// notes, and the clock at 08:45, when it fires.
func mailEnv(t *testing.T, n *Mail) (*env, *Engine) {
	t.Helper()
	e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
	notes := strings.Repeat("Bring the receipt. ", 40)
	e.call(e.ada, "add_task", `{"title":"Café with Zoë","due":"2026-10-05T09:00","remind_before":[15],"notes":"`+notes+`"}`)
	eng := e.engine(Options{Notifiers: []Notifier{n}})
	e.pass(eng)
	e.at(paris, "2026-10-05T08:45")
	return e, eng
}

func TestMailDelivers(t *testing.T) {
	s := startSMTPD(t)
	n := &Mail{Addr: s.addr, From: "reminders@example.org", To: []string{"ada@example.net", "ada@example.com"}}
	e, eng := mailEnv(t, n)
	if r := e.pass(eng); r.Sent != 1 || !r.OK() {
		t.Fatalf("pass: %+v, rows %+v", r, e.rows())
	}
	got := s.messages()
	if len(got) != 1 {
		t.Fatalf("%d mails, want 1", len(got))
	}
	r := got[0]
	if r.TLS || r.User != nil || r.MailFrom != "reminders@example.org" ||
		strings.Join(r.RcptTos, " ") != "ada@example.net ada@example.com" {
		t.Errorf("envelope: %+v (no STARTTLS offered, no user: plain SMTP)", r)
	}
	rows := e.rows()
	if len(rows) != 1 || rows[0].Status != store.DeliverySent {
		t.Fatalf("rows: %+v", rows)
	}
	p := parseMail(t, r)
	want := map[string]string{
		"From":                      "<reminders@example.org>",
		"To":                        "<ada@example.net>, <ada@example.com>",
		"Message-Id":                "<" + rows[0].DeliveryID + "@example.org>",
		"Date":                      "Mon, 05 Oct 2026 08:45:00 +0200",
		"Auto-Submitted":            "auto-generated",
		"X-Assistant-Delivery":      rows[0].DeliveryID,
		"Mime-Version":              "1.0",
		"Content-Type":              "text/plain; charset=UTF-8",
		"Content-Transfer-Encoding": "quoted-printable",
	}
	for k, v := range want {
		if got := p.h.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if raw := p.h.Get("Subject"); !strings.HasPrefix(raw, "=?UTF-8?") {
		t.Errorf("a subject that is not ASCII must be RFC 2047 encoded: %q", raw)
	}
	if p.subject != "Café with Zoë: Mon 2026-10-05 09:00 (+02:00)" {
		t.Errorf("subject %q", p.subject)
	}
	for _, w := range []string{
		"Café with Zoë: due Mon 2026-10-05 09:00 (+02:00), in 15 min.\n",
		"task t1, occurrence t1@20261005T070000Z\n",
		"Bring the receipt. Bring the receipt.",
		"Bring the receipt.…\n",
		"Delivery " + rows[0].DeliveryID + ", attempt 1, due Mon 2026-10-05 08:45 (+02:00).",
	} {
		if !strings.Contains(p.body, w) {
			t.Errorf("the body lacks %q:\n%s", w, p.body)
		}
	}
	if len(p.body) > 900 {
		t.Errorf("the notes (760 characters) must be cut to %d: the body is %d bytes:\n%s", MailNotesMax, len(p.body), p.body)
	}
	// Sent once: a later pass sends nothing.
	e.at(paris, "2026-10-05T08:50")
	if r := e.pass(eng); r.Sent != 0 || len(s.messages()) != 1 {
		t.Fatalf("a second pass sent again: %+v, %d mails", r, len(s.messages()))
	}
}

// With no user, STARTTLS is used when the server offers it.
func TestMailStartTLSWhenOffered(t *testing.T) {
	cert, key, client := testCert(t)
	s := startSMTPD(t, "--starttls", cert, key)
	e, eng := mailEnv(t, &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}, TLSConfig: client})
	if r := e.pass(eng); r.Sent != 1 {
		t.Fatalf("pass: %+v, rows %+v", r, e.rows())
	}
	if got := s.messages(); len(got) != 1 || !got[0].TLS {
		t.Fatalf("mails %+v, want one over STARTTLS", got)
	}
}

// A certificate the client does not trust stops the send: auto mode
// takes STARTTLS when offered and then verifies it, never falling back
// to plain text.
func TestMailStartTLSUntrusted(t *testing.T) {
	cert, key, _ := testCert(t)
	s := startSMTPD(t, "--starttls", cert, key)
	e, eng := mailEnv(t, &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}})
	if r := e.pass(eng); r.Sent != 0 || r.Failed != 1 {
		t.Fatalf("pass: %+v", r)
	}
	if got := s.messages(); len(got) != 0 {
		t.Fatalf("sent over an unverified connection: %+v", got)
	}
	if rows := e.rows(); !strings.Contains(rows[0].LastError, "STARTTLS") || !strings.Contains(rows[0].LastError, "certificate") {
		t.Errorf("error: %q", rows[0].LastError)
	}
}

// A user signs in over STARTTLS, and over TLS from the first byte.
func TestMailSignsInOverTLS(t *testing.T) {
	cert, key, client := testCert(t)
	for _, c := range []struct{ mode, flag string }{{"auto", "--starttls"}, {"starttls", "--starttls"}, {"tls", "--tls"}} {
		t.Run(c.mode, func(t *testing.T) {
			s := startSMTPD(t, c.flag, cert, key, "--auth", "ada", "s3cret")
			n := &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}, TLS: MailTLS(c.mode),
				User: "ada", Password: "s3cret", TLSConfig: client}
			e, eng := mailEnv(t, n)
			if r := e.pass(eng); r.Sent != 1 {
				t.Fatalf("pass: %+v, rows %+v", r, e.rows())
			}
			got := s.messages()
			if len(got) != 1 || !got[0].TLS || got[0].User == nil || *got[0].User != "ada" {
				t.Fatalf("mails %+v, want one over TLS signed in as ada", got)
			}
		})
	}
}

// A password is never sent without TLS: with a user and a server that
// offers no STARTTLS nothing is sent (the reminder fails with one
// sentence and is retried), and TLS mode none with a user is refused
// before anything starts.
func TestMailNoPasswordWithoutTLS(t *testing.T) {
	s := startSMTPD(t, "--auth", "ada", "s3cret")
	n := &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}, User: "ada", Password: "s3cret"}
	e, eng := mailEnv(t, n)
	if r := e.pass(eng); r.Sent != 0 || r.Failed != 1 {
		t.Fatalf("pass: %+v", r)
	}
	if got := s.messages(); len(got) != 0 {
		t.Fatalf("sent: %+v", got)
	}
	rows := e.rows()
	if rows[0].Status != store.DeliveryPending || !strings.Contains(rows[0].LastError, "offers no STARTTLS, so the password of ada was not sent") {
		t.Errorf("row: %+v", rows[0])
	}
	n.TLS = MailTLSNone
	if err := n.Check(); err == nil || !strings.Contains(err.Error(), "never sent without TLS") {
		t.Errorf("TLS none with a user: %v", err)
	}
	// TLS mode starttls refuses a server without it, user or not.
	s2 := startSMTPD(t)
	e2, eng2 := mailEnv(t, &Mail{Addr: s2.addr, From: "a@example.org", To: []string{"b@example.net"}, TLS: MailTLSStartTLS})
	if r := e2.pass(eng2); r.Sent != 0 || len(s2.messages()) != 0 || !strings.Contains(e2.rows()[0].LastError, "requires") {
		t.Fatalf("starttls required, none offered: %+v %+v", r, e2.rows())
	}
}

// A refusal (550) and a temporary one (451) are failed attempts, tried
// again as a webhook's error statuses are (1 minute later first); the
// mail goes out once the server takes it.
func TestMailRefusedThenRetried(t *testing.T) {
	for _, c := range []struct{ mode, code string }{{"refuse", "550"}, {"busy", "451"}} {
		t.Run(c.code, func(t *testing.T) {
			s := startSMTPD(t)
			s.mode(c.mode)
			e, eng := mailEnv(t, &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}})
			if r := e.pass(eng); r.Sent != 0 || r.Failed != 1 || r.OK() {
				t.Fatalf("pass: %+v", r)
			}
			rows := e.rows()
			if rows[0].Status != store.DeliveryPending || !strings.Contains(rows[0].LastError, "RCPT TO <b@example.net>: "+c.code) {
				t.Fatalf("row: %+v", rows[0])
			}
			if len(s.messages()) != 0 {
				t.Fatal("a refused mail was recorded")
			}
			s.mode("accept")
			e.at(paris, "2026-10-05T08:46")
			if r := e.pass(eng); r.Sent != 1 {
				t.Fatalf("retry: %+v %+v", r, e.rows())
			}
			if got := s.messages(); len(got) != 1 || !strings.Contains(got[0].Data, "attempt 2") {
				t.Fatalf("mails: %+v", got)
			}
		})
	}
}

// A server slower than the command timeout does not hold the pass: the
// attempt fails, and is retried.
func TestMailSlowServer(t *testing.T) {
	s := startSMTPD(t)
	s.mode("slow") // never answers MAIL FROM
	n := &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}, CommandTimeout: 300 * time.Millisecond}
	e, eng := mailEnv(t, n)
	done := make(chan Result)
	go func() {
		r, _ := eng.Pass(context.Background())
		done <- r
	}()
	var r Result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // far beyond the timeout: only a hang reaches it
		t.Fatal("the pass hung on a slow SMTP server")
	}
	if r.Failed != 1 || r.Sent != 0 {
		t.Fatalf("pass: %+v", r)
	}
	if rows := e.rows(); !strings.Contains(rows[0].LastError, "did not answer MAIL FROM within 300ms") {
		t.Errorf("error: %q", rows[0].LastError)
	}
	s.mode("accept")
	e.at(paris, "2026-10-05T08:46")
	if r := e.pass(eng); r.Sent != 1 || len(s.messages()) != 1 {
		t.Fatalf("retry: %+v, %d mails", r, len(s.messages()))
	}
}

// A connection dropped after the message was read, before the server's
// answer, is a failed attempt: the mail may have arrived, so the retry
// sends a copy, with the same Message-ID, which the receiver drops.
func TestMailDroppedMidData(t *testing.T) {
	s := startSMTPD(t)
	s.mode("drop")
	e, eng := mailEnv(t, &Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}})
	if r := e.pass(eng); r.Failed != 1 || r.Sent != 0 {
		t.Fatalf("pass: %+v", r)
	}
	if rows := e.rows(); rows[0].Status != store.DeliveryPending || !strings.Contains(rows[0].LastError, "the message") {
		t.Fatalf("row: %+v", rows[0])
	}
	s.mode("accept")
	e.at(paris, "2026-10-05T08:46")
	if r := e.pass(eng); r.Sent != 1 {
		t.Fatalf("retry: %+v", r)
	}
	got := s.messages()
	if len(got) != 2 || got[0].Answered || !got[1].Answered {
		t.Fatalf("mails: %+v", got)
	}
	first, second := parseMail(t, got[0]), parseMail(t, got[1])
	id := first.h.Get("Message-Id")
	if id == "" || second.h.Get("Message-Id") != id {
		t.Errorf("the copy's Message-ID %q differs from %q: a receiver cannot drop it", second.h.Get("Message-Id"), id)
	}
	seen := map[string]bool{}
	for _, p := range []parsed{first, second} {
		seen[p.h.Get("Message-Id")] = true
	}
	if len(seen) != 1 {
		t.Errorf("deduplicated by Message-ID: %d mails, want 1", len(seen))
	}
	e.at(paris, "2026-10-05T09:30")
	if r := e.pass(eng); r.Sent != 0 || len(s.messages()) != 2 {
		t.Fatalf("sent again after it was marked: %+v", r)
	}
}

// The daily digest is one mail, its title the subject.
func TestMailDigest(t *testing.T) {
	s := startSMTPD(t)
	e := newEnv(t, civilAt(t, paris, "2026-10-05T07:00"))
	e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05"}`)
	e.call(e.ada, "add_event", `{"title":"Standup","start":"2026-10-05T09:00","duration":15}`)
	d, err := ParseDigest("07:30")
	if err != nil {
		t.Fatal(err)
	}
	eng := e.engine(Options{Digest: d, People: []int64{e.ada.ID},
		Notifiers: []Notifier{&Mail{Addr: s.addr, From: "a@example.org", To: []string{"b@example.net"}}}})
	e.pass(eng)
	e.at(paris, "2026-10-05T07:30")
	if r := e.pass(eng); r.Sent != 1 {
		t.Fatalf("pass: %+v", r)
	}
	got := s.messages()
	if len(got) != 1 {
		t.Fatalf("%d mails, want 1", len(got))
	}
	p := parseMail(t, got[0])
	if p.subject != "Agenda for Mon 2026-10-05" {
		t.Errorf("subject %q", p.subject)
	}
	for _, w := range []string{"09:00 Standup", "Call the bank (t1)"} {
		if !strings.Contains(p.body, w) {
			t.Errorf("the digest lacks %q:\n%s", w, p.body)
		}
	}
}

func TestMailCheck(t *testing.T) {
	ok := Mail{Addr: "smtp.example.org:587", From: "a@example.org", To: []string{"b@example.net"}}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		change func(*Mail)
		want   string
	}{
		{func(m *Mail) { m.Addr = "smtp.example.org" }, "HOST:PORT"},
		// A port no dial can reach was taken, and each reminder then
		// failed its four tries and was given up.
		{func(m *Mail) { m.Addr = "127.0.0.1:99999" }, "with a port from 1 to 65535, not “127.0.0.1:99999”"},
		{func(m *Mail) { m.Addr = "127.0.0.1:0" }, "with a port from 1 to 65535"},
		{func(m *Mail) { m.Addr = "127.0.0.1:nosuchservice" }, "with a port from 1 to 65535"},
		{func(m *Mail) { m.Addr = ":587" }, "HOST:PORT"},
		{func(m *Mail) { m.From = "not an address" }, "the sender must be a mail address"},
		{func(m *Mail) { m.To = nil }, "at least one recipient"},
		{func(m *Mail) { m.To = []string{"Ann <a@example.org>"} }, "a recipient must be a mail address"},
		{func(m *Mail) { m.TLS = "ssl" }, "auto, starttls, tls or none"},
		{func(m *Mail) { m.User = "ada" }, "has no password"},
	} {
		m := ok
		c.change(&m)
		if err := m.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", m, err, c.want)
		}
	}
	for _, addr := range []string{"127.0.0.1:25", "[::1]:587", "mail.example.org:65535", "mail.example.org:smtp", "mail.example.org:submissions"} {
		if err := CheckServer(addr); err != nil {
			t.Errorf("CheckServer(%q) = %v, want it taken", addr, err)
		}
	}
	if got := MessageID("rd_1", "a@[127.0.0.1]"); got != "rd_1@assistant.invalid" {
		t.Errorf("MessageID with an address literal: %q", got)
	}
}

// A reminder's lead reads in the units it was set in, or in hours and
// minutes below a day and in days and hours (to the nearest) above:
// "839 min" and "20147 min ago" were the text of a remind_at 14 h ahead
// and of a two-week snooze.
func TestLeadWords(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{time.Minute, "1 min"},
		{45 * time.Minute, "45 min"},
		{2 * time.Hour, "2 h"},
		{150 * time.Minute, "2 h 30 min"},
		{839 * time.Minute, "13 h 59 min"},
		{24 * time.Hour, "1 day"},
		{7 * 24 * time.Hour, "1 week"},
		{20147 * time.Minute, "2 weeks"},
		{10078 * time.Minute, "1 week"},
		{2878 * time.Minute, "2 days"},
		{2000 * time.Minute, "1 day 9 h"},
		{1469 * time.Minute, "1 day"},
		{90*time.Second + 59*time.Second, "2 min"},
	} {
		if got := leadWords(c.d); got != c.want {
			t.Errorf("leadWords(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	m := &Message{Title: "Call", Item: &ItemRef{Kind: "event"}, Occurrence: &OccurrenceRef{}}
	now := time.Date(2027, 4, 5, 7, 0, 0, 0, time.UTC)
	if got := reminderText(m, now.Add(-20147*time.Minute), now, tz.MustZone("Europe/Berlin")); !strings.HasSuffix(got, ", 2 weeks ago.") {
		t.Errorf("reminderText = %q", got)
	}
}
