package agent

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Kind says what went wrong with the model server, so a front can pick an
// exit code and a person can tell a missing server from a bad key.
type Kind int

// Kinds of model-server failure. The exit codes follow BSD sysexits.h, so
// they stay clear of the tool result codes 0–6 that `assistant call` uses.
const (
	// KindUnreachable: nothing answers at the base URL (connection refused,
	// unknown host). Exit code 69 (EX_UNAVAILABLE).
	KindUnreachable Kind = iota + 1
	// KindAuth: the server refused the key (HTTP 401 or 403). Exit code 77
	// (EX_NOPERM).
	KindAuth
	// KindNotFound: the server does not know the model, or the base URL is
	// not an OpenAI-compatible endpoint (HTTP 404). Exit code 78 (EX_CONFIG).
	KindNotFound
	// KindRefused: the server refused the request (HTTP 400 or another 4xx
	// that retrying cannot fix, such as a model without tool support).
	// Exit code 78 (EX_CONFIG): the fix is in the setup, not in the message.
	KindRefused
	// KindUnavailable: the server kept failing (429, 5xx, dropped
	// connections) after every retry. Exit code 75 (EX_TEMPFAIL).
	KindUnavailable
	// KindProtocol: the server answered with something that is not a chat
	// completion. Exit code 76 (EX_PROTOCOL).
	KindProtocol
	// KindSetup: the settings cannot work as given, before any request (a
	// base URL without http:// or https://). Exit code 78 (EX_CONFIG).
	KindSetup
)

// Exit codes of a chat run, for the CLI (documented in docs/chat.md).
const (
	ExitOK          = 0
	ExitFailure     = 1   // anything else (a conversation that cannot be read or saved, …)
	ExitUnreachable = 69  // KindUnreachable
	ExitUnavailable = 75  // KindUnavailable
	ExitProtocol    = 76  // KindProtocol
	ExitAuth        = 77  // KindAuth
	ExitConfig      = 78  // KindNotFound, KindRefused, KindSetup
	ExitInterrupted = 130 // the turn was cancelled (Ctrl-C: 128 + SIGINT)
)

// Error is a failure of the model server told in one sentence for the
// person: what happened and what to do (start Ollama, set a variable, pull
// a model). Err keeps the cause for logs; Status is the HTTP status, 0 when
// there was none.
type Error struct {
	Kind     Kind
	Status   int
	Sentence string
	Err      error
}

// Error returns the sentence.
func (e *Error) Error() string { return e.Sentence }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the process exit code for this failure (see the Kind
// constants).
func (e *Error) ExitCode() int {
	switch e.Kind {
	case KindUnreachable:
		return ExitUnreachable
	case KindAuth:
		return ExitAuth
	case KindNotFound, KindRefused, KindSetup:
		return ExitConfig
	case KindUnavailable:
		return ExitUnavailable
	case KindProtocol:
		return ExitProtocol
	}
	return ExitFailure
}

// ExitCode maps an error from Turn to a process exit code: 0 for nil, 130
// for an interrupted turn (ErrInterrupted or context.Canceled), the
// Kind's code for an *Error, 1 otherwise.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.ExitCode()
	}
	if errors.Is(err, ErrInterrupted) || errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	return ExitFailure
}

// ErrInterrupted is wrapped by the error of a turn whose context was
// cancelled (Ctrl-C), together with the context's cause.
var ErrInterrupted = errors.New("interrupted: the tool calls that ran are kept, the others were not made")

// ErrEmptyMessage is returned by Turn for a message that is blank.
var ErrEmptyMessage = errors.New("the message is empty: write something to send")

// MaxMessage is the longest message Turn sends, in characters (Unicode
// code points): a third of the DefaultHistoryBudget, so one message never
// pushes the whole conversation out of the history sent.
const MaxMessage = DefaultHistoryBudget / 3

// MessageError is Turn's error for a message it does not send or store:
// text that is not valid UTF-8, or longer than [MaxMessage] characters.
// Sentence says which and what to do.
type MessageError struct{ Sentence string }

func (e *MessageError) Error() string { return e.Sentence }

// checkMessage returns the *MessageError of text, or nil.
func checkMessage(text string) error {
	if !utf8.ValidString(text) {
		return &MessageError{Sentence: "the message is not valid UTF-8 text (it has a broken byte sequence); write it again as UTF-8"}
	}
	if n := utf8.RuneCountInString(text); n > MaxMessage {
		return &MessageError{Sentence: fmt.Sprintf("the message has %d characters, more than the %d one message may have; send a shorter one, or the text in parts", n, MaxMessage)}
	}
	return nil
}

func protocolError(format string, args ...any) *Error {
	return &Error{Kind: KindProtocol, Sentence: fmt.Sprintf(format, args...)}
}
