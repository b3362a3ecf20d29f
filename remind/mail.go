package remind

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

	"github.com/assistant-dev/assistant/tz"
)

// MailTLS is how a Mail notifier protects its connection.
type MailTLS string

// The TLS modes of a Mail notifier.
const (
	// MailTLSAuto uses STARTTLS (RFC 3207) when the server offers it and
	// plain SMTP when it does not; with a user, TLS is required, since a
	// password is never sent in the clear. The default.
	MailTLSAuto MailTLS = "auto"
	// MailTLSStartTLS requires STARTTLS: a server that does not offer it
	// gets nothing.
	MailTLSStartTLS MailTLS = "starttls"
	// MailTLSImplicit speaks TLS from the first byte ("submissions", port
	// 465, RFC 8314).
	MailTLSImplicit MailTLS = "tls"
	// MailTLSNone never uses TLS, even when offered; it takes no user.
	MailTLSNone MailTLS = "none"
)

// ParseMailTLS reads a TLS mode: auto, starttls, tls or none ("" is
// auto); anything else is an error sentence listing them.
func ParseMailTLS(s string) (MailTLS, error) {
	switch v := MailTLS(strings.ToLower(strings.TrimSpace(s))); v {
	case "":
		return MailTLSAuto, nil
	case MailTLSAuto, MailTLSStartTLS, MailTLSImplicit, MailTLSNone:
		return v, nil
	}
	return "", fmt.Errorf("must be auto, starttls, tls or none, not “%s”", s)
}

// Timeouts of the Mail notifier: connecting, each SMTP command (the
// greeting, EHLO, STARTTLS and the TLS handshake, AUTH, MAIL, RCPT, DATA
// and the answer to the message), and the whole send. All stay under
// DefaultLease, which is renewed while a notifier runs anyway.
const (
	MailDialTimeout    = 10 * time.Second
	MailCommandTimeout = 30 * time.Second
	MailTimeout        = 90 * time.Second
)

// MailNotesMax is how many characters of an item's notes a reminder mail
// quotes; longer notes are cut with "…".
const MailNotesMax = 400

// Mail sends each message as a short plain-text mail through an SMTP
// server (RFC 5321): a reminder's subject is its title and time in the
// person's zone, a digest's its title ("Agenda for Mon 2026-10-05"). The
// Message-ID is derived from the delivery id, the same on every resend, so
// a receiver can drop a copy. A mail is delivered when the server accepts
// it (250 after the data); any other answer (4xx or 5xx), a timeout or a
// dropped connection is a failed delivery, tried again as a webhook's is.
type Mail struct {
	// Addr is the server, "host:port" (587 for STARTTLS, 465 for TLS).
	Addr string
	// From is the sender's address ("reminders@example.org") and To the
	// recipients', bare addresses (ParseAddress checks them).
	From string
	To   []string
	// TLS is the connection's protection; "" is MailTLSAuto.
	TLS MailTLS
	// User and Password sign in (AUTH PLAIN, else LOGIN), only over TLS.
	User, Password string
	// TLSConfig verifies the server; nil: the system's roots (SSL_CERT_FILE
	// names others) and the host of Addr.
	TLSConfig *tls.Config
	// Hello is the name given in EHLO; "": this machine's host name.
	Hello string
	// DialTimeout, CommandTimeout and Timeout override MailDialTimeout,
	// MailCommandTimeout and MailTimeout when above zero.
	DialTimeout, CommandTimeout, Timeout time.Duration
}

// ParseAddress reads one bare mail address ("ann@example.org"); what to
// write is said when it is not one.
func ParseAddress(s string) (string, error) {
	a, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil || a.Name != "" || !strings.Contains(a.Address, "@") {
		return "", fmt.Errorf("must be a mail address such as ann@example.org, not “%s”", s)
	}
	return a.Address, nil
}

// CheckServer refuses an SMTP server address that no dial can reach:
// not HOST:PORT, or a port that is neither a number from 1 to 65535 nor
// a service name the system knows (smtp, submission). One sentence.
func CheckServer(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && host != "" && port != "" {
		n, convErr := strconv.Atoi(port)
		switch {
		case convErr == nil && n >= 1 && n <= 65535:
			return nil
		case convErr != nil:
			if _, err := net.LookupPort("tcp", port); err == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("the SMTP server must be HOST:PORT such as smtp.example.org:587, with a port from 1 to 65535, not “%s”", addr)
}

// Check refuses a Mail that could never send: no server, sender or
// recipient, an address that is none, or a user with TLS off (a password
// is never sent in the clear). Each error is one sentence.
func (n *Mail) Check() error {
	if err := CheckServer(n.Addr); err != nil {
		return err
	}
	if _, err := ParseMailTLS(string(n.TLS)); err != nil {
		return fmt.Errorf("the SMTP TLS mode %v", err)
	}
	if _, err := ParseAddress(n.From); err != nil {
		return fmt.Errorf("the sender %v", err)
	}
	if len(n.To) == 0 {
		return errors.New("an SMTP notifier needs at least one recipient")
	}
	for _, to := range n.To {
		if _, err := ParseAddress(to); err != nil {
			return fmt.Errorf("a recipient %v", err)
		}
	}
	if n.User != "" && n.TLS == MailTLSNone {
		return fmt.Errorf("the SMTP user %s signs in with a password, which is never sent without TLS, so use TLS (auto, starttls or tls) or leave the user out", n.User)
	}
	if n.User != "" && n.Password == "" {
		return fmt.Errorf("the SMTP user %s has no password", n.User)
	}
	return nil
}

// Name is "smtp HOST:PORT to ADDR,ADDR": a retry skips a Mail that took
// the message already.
func (n *Mail) Name() string { return "smtp " + n.Addr + " to " + strings.Join(n.To, ",") }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Notify sends m as one mail.
func (n *Mail) Notify(ctx context.Context, m *Message, _ []byte) error {
	if err := n.Check(); err != nil {
		return err
	}
	raw, err := ComposeMail(m, n.From, n.To)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(n.Timeout, MailTimeout))
	defer cancel()
	cmdTimeout := orDefault(n.CommandTimeout, MailCommandTimeout)
	host, _, _ := net.SplitHostPort(n.Addr)
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if n.TLSConfig != nil {
		cfg = n.TLSConfig.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
	}

	d := net.Dialer{Timeout: orDefault(n.DialTimeout, MailDialTimeout)}
	conn, err := d.DialContext(ctx, "tcp", n.Addr)
	if err != nil {
		return fmt.Errorf("cannot connect to the SMTP server %s: %v", n.Addr, err)
	}
	defer conn.Close()
	// The whole send is bounded too: its end closes the connection, which
	// ends whatever command waits.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	_ = conn.SetDeadline(time.Now().Add(cmdTimeout))
	if n.TLS == MailTLSImplicit {
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("cannot start TLS with the SMTP server %s: %v", n.Addr, err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return n.failed("the greeting", err, cmdTimeout)
	}
	step := func(what string, f func() error) error {
		if err := c.UpdateDeadline(cmdTimeout); err != nil {
			return n.failed(what, err, cmdTimeout)
		}
		if err := f(); err != nil {
			return n.failed(what, err, cmdTimeout)
		}
		return nil
	}
	if err := step("EHLO", func() error { return c.Hello(n.helloName()) }); err != nil {
		return err
	}
	if n.TLS == MailTLSAuto || n.TLS == MailTLSStartTLS || n.TLS == "" {
		offered, _ := c.Extension("STARTTLS")
		switch {
		case offered:
			if err := step("STARTTLS", func() error { return c.StartTLS(cfg) }); err != nil {
				return err
			}
		case n.TLS == MailTLSStartTLS:
			return fmt.Errorf("the SMTP server %s offers no STARTTLS, which the TLS mode starttls requires; nothing was sent", n.Addr)
		case n.User != "":
			return fmt.Errorf("the SMTP server %s offers no STARTTLS, so the password of %s was not sent (it never goes without TLS); use the TLS mode tls if the server speaks it on another port", n.Addr, n.User)
		}
	}
	if n.User != "" {
		if _, secure := c.TLSConnectionState(); !secure {
			return fmt.Errorf("the connection to the SMTP server %s is not encrypted, so the password of %s was not sent", n.Addr, n.User)
		}
		_, mechs := c.Extension("AUTH")
		var auth smtp.Auth
		switch fields := strings.Fields(strings.ToUpper(mechs)); {
		case containsWord(fields, "PLAIN"):
			auth = smtp.PlainAuth("", n.User, n.Password, host, false)
		case containsWord(fields, "LOGIN"):
			auth = smtp.LoginAuth(n.User, n.Password, host, false)
		default:
			return fmt.Errorf("the SMTP server %s offers no sign-in this notifier speaks (PLAIN or LOGIN), so %s cannot sign in", n.Addr, n.User)
		}
		if err := step("AUTH", func() error { return c.Auth(auth) }); err != nil {
			return err
		}
	}
	if err := step("MAIL FROM", func() error { return c.Mail("<" + n.From + ">") }); err != nil {
		return err
	}
	for _, to := range n.To {
		if err := step("RCPT TO <"+to+">", func() error { return c.Rcpt("<" + to + ">") }); err != nil {
			return err
		}
	}
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	if err := step("DATA", func() (err error) { w, err = c.Data(); return err }); err != nil {
		return err
	}
	if err := step("the message", func() error {
		if _, err := w.Write(raw); err != nil {
			return err
		}
		return w.Close() // sends the final dot and reads the server's answer
	}); err != nil {
		return err
	}
	// Accepted: what follows cannot undo the send, so its errors are not
	// failures (a retry would only send a copy).
	_ = c.UpdateDeadline(cmdTimeout)
	_ = c.Quit()
	return nil
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// helloName is Hello, else this machine's host name, else "localhost".
func (n *Mail) helloName() string {
	if n.Hello != "" {
		return n.Hello
	}
	if h, err := os.Hostname(); err == nil && h != "" && !strings.ContainsAny(h, " \r\n") {
		return h
	}
	return "localhost"
}

// failed says what went wrong at step: the server's answer with its code
// (4xx asks to try later, 5xx refuses; both are retried as a webhook's
// error statuses are), a timeout, or a dropped connection.
func (n *Mail) failed(step string, err error, cmdTimeout time.Duration) error {
	var te *textproto.Error
	if errors.As(err, &te) {
		kind := "refused"
		if te.Code >= 400 && te.Code < 500 {
			kind = "turned away for now"
		}
		return fmt.Errorf("the SMTP server %s %s %s: %d %s", n.Addr, kind, step, te.Code, oneLine(te.Msg))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("the SMTP server %s did not answer %s within %s", n.Addr, step, cmdTimeout)
	}
	if errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("the SMTP send to %s ran out of time at %s", n.Addr, step)
	}
	return fmt.Errorf("the SMTP server %s failed at %s: %v", n.Addr, step, oneLine(err.Error()))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// MessageID is the Message-ID of m's mail, without the angle brackets:
// the delivery id at the sender's domain ("rd_4881…@example.org"), or at
// assistant.invalid when the sender has no usable domain. It is the same
// on every resend of one delivery.
func MessageID(deliveryID, from string) string {
	domain := "assistant.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		d := from[at+1:]
		if d != "" && !strings.ContainsAny(d, "[]<>()\\\" \t@") && utf8.ValidString(d) {
			domain = d
		}
	}
	return deliveryID + "@" + domain
}

// ComposeMail renders m as the mail Mail sends (RFC 5322 with MIME, CRLF
// line ends): Date (when it was sent, in the person's zone), From, To,
// Subject (RFC 2047 encoded when not ASCII), Message-ID (MessageID),
// Auto-Submitted: auto-generated (RFC 3834, so no vacation reply comes
// back), X-Assistant-Delivery, and a UTF-8 text/plain body in
// quoted-printable.
func ComposeMail(m *Message, from string, to []string) ([]byte, error) {
	zone, err := tz.LoadZone(m.Person.Zone)
	if err != nil {
		zone = tz.UTC
	}
	sent, err := time.Parse(time.RFC3339, m.SentAt)
	if err != nil {
		sent = time.Now()
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithCharset(gomail.CharsetUTF8),
		gomail.WithEncoding(gomail.EncodingQP))
	if err := msg.From(from); err != nil {
		return nil, fmt.Errorf("the sender “%s” is not a mail address", from)
	}
	if err := msg.To(to...); err != nil {
		return nil, fmt.Errorf("a recipient of %s is not a mail address", strings.Join(to, ", "))
	}
	msg.Subject(MailSubject(m, zone))
	msg.SetDateWithValue(sent.In(zone.Location()))
	msg.SetMessageIDWithValue(MessageID(m.DeliveryID, from))
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetGenHeader(gomail.Header(DeliveryHeader), m.DeliveryID)
	msg.SetUserAgent("assistant-remind")
	msg.SetBodyString(gomail.TypeTextPlain, MailBody(m, zone))
	var b bytes.Buffer
	if _, err := msg.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("cannot write the mail: %v", err)
	}
	return b.Bytes(), nil
}

// MailSubject is a reminder's title and time in zone ("Buy milk: Mon
// 2026-10-05 09:00 (+02:00)"; an all-day one's date; the time it was
// due when its occurrence has no start), or a digest's title.
func MailSubject(m *Message, zone tz.Zone) string {
	if m.Kind == "digest" {
		return m.Title
	}
	when := ""
	if m.Occurrence != nil && m.Occurrence.AllDay && m.Occurrence.Date != "" {
		if d, err := tz.ParseDate(m.Occurrence.Date); err == nil {
			when = tz.FormatDateModel(d)
		}
	} else if m.Occurrence != nil && m.Occurrence.Start != "" {
		if t, err := time.Parse(time.RFC3339, m.Occurrence.Start); err == nil {
			when = tz.FormatModel(t, zone)
		}
	}
	if when == "" {
		if t, err := time.Parse(time.RFC3339, m.FireAt); err == nil {
			when = tz.FormatModel(t, zone)
		}
	}
	if when == "" {
		return m.Title
	}
	return m.Title + ": " + when
}

// MailBody is the mail's text: the reminder's line, the item and
// occurrence ids, its notes cut to MailNotesMax characters, and the
// delivery id; a digest's lines and the delivery id.
func MailBody(m *Message, zone tz.Zone) string {
	var b strings.Builder
	b.WriteString(m.Text)
	b.WriteString("\n\n")
	if m.Item != nil {
		fmt.Fprintf(&b, "%s %s", m.Item.Kind, m.Item.ID)
		if m.Occurrence != nil && m.Occurrence.ID != m.Item.ID {
			fmt.Fprintf(&b, ", occurrence %s", m.Occurrence.ID)
		}
		b.WriteString("\n")
	}
	if notes := strings.TrimSpace(m.Notes); notes != "" {
		if utf8.RuneCountInString(notes) > MailNotesMax {
			notes = string([]rune(notes)[:MailNotesMax])
			if i := strings.LastIndexAny(notes, " \n"); i > MailNotesMax/2 {
				notes = notes[:i] // at a word's end
			}
			notes = strings.TrimSpace(notes) + "…"
		}
		fmt.Fprintf(&b, "\n%s\n\n", notes)
	}
	fmt.Fprintf(&b, "Delivery %s, attempt %d", m.DeliveryID, m.Attempt)
	if t, err := time.Parse(time.RFC3339, m.FireAt); err == nil {
		fmt.Fprintf(&b, ", due %s", tz.FormatModel(t, zone))
	}
	b.WriteString(".\n")
	return b.String()
}
