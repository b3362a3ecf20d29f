package remind

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Notifier delivers one message. Notify is called from several goroutines
// at once (the sends of different people run side by side), so it must be
// safe for concurrent use. Notify returns nil only when the message
// was accepted; any error makes the delivery retry later under the same
// delivery id. Name identifies the notifier in the delivery record, so a
// retry skips the notifiers that accepted the message already.
type Notifier interface {
	Name() string
	Notify(ctx context.Context, m *Message, body []byte) error
}

// Timeouts of the notifiers; both stay well under DefaultLease.
const (
	WebhookTimeout = 10 * time.Second
	ExecTimeout    = 30 * time.Second
)

// Lines writes each message as one JSON line to W (standard output by
// default). A write error is a failed delivery.
type Lines struct {
	W  io.Writer
	mu sync.Mutex
}

// Name is "stdout".
func (l *Lines) Name() string { return "stdout" }

// Notify writes body and a newline.
func (l *Lines) Notify(_ context.Context, _ *Message, body []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := append(append([]byte{}, body...), '\n')
	_, err := l.W.Write(line)
	return err
}

// SignatureHeader carries the HMAC-SHA256 of a webhook's body, keyed with
// the webhook secret, as "sha256=" and lower-case hex.
const SignatureHeader = "X-Assistant-Signature"

// DeliveryHeader carries the delivery id, for receivers that deduplicate
// before reading the body.
const DeliveryHeader = "X-Assistant-Delivery"

// Webhook POSTs each message as JSON to URL. Any 2xx status is delivered;
// anything else, a timeout or a connection failure is a failed delivery.
// With a Secret, the body is signed (SignatureHeader).
type Webhook struct {
	URL    string
	Secret string
	Client *http.Client // nil: a client with WebhookTimeout
}

// Name is "webhook " and the URL.
func (w *Webhook) Name() string { return "webhook " + w.URL }

// Sign returns the SignatureHeader value of body under secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Notify posts body.
func (w *Webhook) Notify(ctx context.Context, m *Message, body []byte) error {
	c := w.Client
	if c == nil {
		c = &http.Client{Timeout: WebhookTimeout}
	}
	ctx, cancel := context.WithTimeout(ctx, WebhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "assistant-remind")
	req.Header.Set(DeliveryHeader, m.DeliveryID)
	if w.Secret != "" {
		req.Header.Set(SignatureHeader, Sign(w.Secret, body))
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the webhook answered %s", resp.Status)
	}
	return nil
}

// Command runs Line with /bin/sh -c for each message, the JSON on standard
// input and the delivery id in ASSISTANT_DELIVERY_ID. Exit status 0 is
// delivered; another status, or running longer than ExecTimeout (the whole
// process group is then killed), is a failed delivery.
type Command struct {
	Line string
	// Stdout and Stderr receive the command's output; nil discards it.
	// Commands of several sends run at once; their writes reach these one
	// at a time.
	Stdout, Stderr io.Writer
	mu             sync.Mutex // serialises the writes to Stdout and Stderr
}

// lockedWriter writes to w holding mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Name is "exec " and the command line.
func (c *Command) Name() string { return "exec " + c.Line }

// Notify runs the command.
func (c *Command) Notify(ctx context.Context, m *Message, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.Line)
	cmd.Stdin = bytes.NewReader(body)
	cmd.Env = append(os.Environ(), "ASSISTANT_DELIVERY_ID="+m.DeliveryID)
	if c.Stdout != nil {
		cmd.Stdout = lockedWriter{&c.mu, c.Stdout}
	}
	if c.Stderr != nil {
		cmd.Stderr = lockedWriter{&c.mu, c.Stderr}
	}
	var tail tailBuffer
	if cmd.Stderr == nil {
		cmd.Stderr = &tail
	} else {
		cmd.Stderr = io.MultiWriter(cmd.Stderr, &tail)
	}
	// Its own process group, so a timeout kills what the shell started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the command ran longer than %s", ExecTimeout)
	}
	if err != nil {
		if msg := tail.String(); msg != "" {
			return fmt.Errorf("the command failed (%v): %s", err, msg)
		}
		return fmt.Errorf("the command failed (%v)", err)
	}
	return nil
}

// tailBuffer keeps the last 300 bytes written to it, for error messages.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 300 {
		t.b = t.b[len(t.b)-300:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(t.b), "")), " ")
}
