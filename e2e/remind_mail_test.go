package e2e

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// `assistant remind --smtp` through the binary, sending to a real SMTP
// server: Debian's python3-aiosmtpd, scripted by remind/testdata/smtpd.py
// (remind/mail_test.go has the special cases: refusals, a slow server, a
// dropped connection). With CI=true a missing server fails the test.

type mailServer struct {
	t    *testing.T
	dir  string
	addr string
}

type mailReceived struct {
	MailFrom string   `json:"mail_from"`
	RcptTos  []string `json:"rcpt_tos"`
	Data     string   `json:"data"`
	TLS      bool     `json:"tls"`
	User     *string  `json:"user"`
}

func startMailServer(t *testing.T, args ...string) *mailServer {
	t.Helper()
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import aiosmtpd").Run() == nil {
			py = path
			break
		}
	}
	needClient(t, py != "", "no python3 with aiosmtpd (Debian: python3-aiosmtpd), the SMTP server mail is sent to")
	s := &mailServer{t: t, dir: t.TempDir()}
	cmd := exec.Command(py, append([]string{"../remind/testdata/smtpd.py", s.dir}, args...)...)
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
		t.Fatalf("the SMTP server did not start (%v, %q)", err, line)
	}
	s.addr = net.JoinHostPort("127.0.0.1", port)
	return s
}

func (s *mailServer) messages() []mailReceived {
	s.t.Helper()
	names, _ := filepath.Glob(filepath.Join(s.dir, "*.json"))
	sort.Strings(names)
	var out []mailReceived
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			s.t.Fatal(err)
		}
		var r mailReceived
		if err := json.Unmarshal(b, &r); err != nil {
			s.t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key,
// returning their paths; the binary trusts it through SSL_CERT_FILE.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "assistant e2e SMTP"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_ = os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	_ = os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}

// One mail per due reminder, each with the Message-ID of its delivery id;
// a second run sends nothing.
func TestRemindMailOnce(t *testing.T) { storetest.Engines(t, testRemindMailOnce) }

func testRemindMailOnce(t *testing.T) {
	s := startMailServer(t)
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:00:00+02:00"
	h.must("call", "add_task", "--args", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	h.must("call", "add_event", `--args`, `{"title":"Standup","start":"2026-10-05T09:30","duration":15,"remind_before":[10]}`)
	h.must("call", "add_task", "--args", `{"title":"Later","due":"2026-10-06T09:00","remind_before":[15]}`)
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:25:00+02:00"
	status := h.must("remind", "--status").stdout
	ids := regexp.MustCompile(`rd_[0-9a-f]{24}`).FindAllString(status, -1)
	if len(ids) != 2 {
		t.Fatalf("status: want two due now:\n%s", status)
	}
	args := []string{"remind", "--once", "--smtp", s.addr, "--smtp-from", "a@example.org", "--smtp-to", "b@example.net"}
	r := h.must(args...)
	if r.stdout != "" {
		t.Errorf("with --smtp, nothing goes to standard output: %q", r.stdout)
	}
	got := s.messages()
	if len(got) != 2 {
		t.Fatalf("%d mails, want 2 (one per due reminder)", len(got))
	}
	subjects := map[string]string{}
	for _, g := range got {
		m, err := mail.ReadMessage(strings.NewReader(g.Data))
		if err != nil {
			t.Fatal(err)
		}
		if g.TLS || g.MailFrom != "a@example.org" || strings.Join(g.RcptTos, ",") != "b@example.net" {
			t.Errorf("envelope %+v", g)
		}
		subjects[m.Header.Get("Message-Id")] = m.Header.Get("Subject")
	}
	for _, id := range ids {
		if _, ok := subjects["<"+id+"@example.org>"]; !ok {
			t.Errorf("no mail with the Message-ID of %s: %v", id, subjects)
		}
	}
	if subjects["<"+ids[0]+"@example.org>"] != "Buy milk: Mon 2026-10-05 09:00 (+02:00)" ||
		subjects["<"+ids[1]+"@example.org>"] != "Standup: Mon 2026-10-05 09:30 (+02:00)" {
		t.Errorf("subjects: %v", subjects)
	}
	h.must(args...)
	if n := len(s.messages()); n != 2 {
		t.Errorf("a second run sent %d more", n-2)
	}
}

// The config file's [remind] table sets the same, here with STARTTLS
// required, a user, and the password from ASSISTANT_SMTP_PASSWORD; the
// certificate is trusted through SSL_CERT_FILE, as a private CA would be.
func TestRemindMailConfig(t *testing.T) {
	cert, key := selfSigned(t)
	s := startMailServer(t, "--starttls", cert, key, "--auth", "ada", "s3cret")
	h := newHome(t)
	h.env["SSL_CERT_FILE"] = cert
	if err := os.MkdirAll(filepath.Join(h.dir, "config", "assistant"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := `[remind]
smtp = "` + s.addr + `"
smtp_from = "reminders@example.org"
smtp_to = ["ada@example.net", "ada@example.com"]
smtp_tls = "starttls"
smtp_user = "ada"
`
	if err := os.WriteFile(filepath.Join(h.dir, "config", "assistant", "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:00:00+02:00"
	h.must("call", "add_task", "--args", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:45:00+02:00"

	r := h.run("remind", "--once")
	if r.code != 10 || !strings.Contains(r.stderr, "the SMTP user ada needs a password: set ASSISTANT_SMTP_PASSWORD") {
		t.Fatalf("no password: want exit 10 and the sentence, got %s", r)
	}
	h.env["ASSISTANT_SMTP_PASSWORD"] = "s3cret"
	r = h.must("remind", "--once")
	if strings.Contains(r.stderr, "unknown key") {
		t.Errorf("the [remind] keys are known: %s", r.stderr)
	}
	got := s.messages()
	if len(got) != 1 || !got[0].TLS || got[0].User == nil || *got[0].User != "ada" ||
		strings.Join(got[0].RcptTos, ",") != "ada@example.net,ada@example.com" {
		t.Fatalf("mails: %+v", got)
	}
}

// Wrong settings are one sentence before anything is sent; a user with a
// server that offers no STARTTLS sends nothing and exits 9 (a later run
// retries).
func TestRemindMailRefusals(t *testing.T) {
	s := startMailServer(t)
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:00:00+02:00"
	h.must("call", "add_task", "--args", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:45:00+02:00"
	base := []string{"remind", "--once", "--smtp", s.addr, "--smtp-from", "a@example.org", "--smtp-to", "b@example.net"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"remind", "--once", "--smtp-to", "b@example.net"}, 2, "“--smtp-to” describes mail through an SMTP server, so give “--smtp HOST:PORT” too"},
		{[]string{"remind", "--once", "--smtp-to", "b@example.net", "--smtp-from", "a@example.org"}, 2, "describe mail through an SMTP server"},
		{[]string{"remind", "--once", "--smtp", "127.0.0.1:99999", "--smtp-from", "a@example.org", "--smtp-to", "b@example.net"}, 1, "with a port from 1 to 65535"},
		{[]string{"remind", "--once", "--smtp", "localhost", "--smtp-from", "a@example.org", "--smtp-to", "b@example.net"}, 1, "HOST:PORT"},
		{[]string{"remind", "--once", "--smtp", s.addr, "--smtp-to", "b@example.net"}, 1, "needs a sender"},
		{append(append([]string{}, base...), "--smtp-to", "not an address"), 1, "“--smtp-to” is wrong: must be a mail address"},
		{append(append([]string{}, base...), "--smtp-tls", "ssl"), 1, "auto, starttls, tls or none"},
		{append(append([]string{}, base...), "--smtp-tls", "none", "--smtp-user", "ada"), 1, "never sent without TLS"},
		{[]string{"remind", "--status", "--smtp", s.addr}, 2, "“--status” sends nothing"},
	} {
		r := h.run(c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: want exit %d and one line with %q, got %s", c.args, c.code, c.want, r)
		}
	}
	h.env["ASSISTANT_SMTP_PASSWORD"] = "s3cret"
	r := h.run(append(append([]string{}, base...), "--smtp-user", "ada", "--log-level", "warn")...)
	if r.code != 9 || !strings.Contains(r.stderr, "offers no STARTTLS, so the password of ada was not sent") {
		t.Errorf("a user and no STARTTLS: want exit 9 and the sentence, got %s", r)
	}
	if n := len(s.messages()); n != 0 {
		t.Errorf("%d mails sent", n)
	}
}
