package tools

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/assistant-dev/assistant/args"
)

// A store error of the Unavailable Trouble (PostgreSQL lost the call:
// here an administrator's shutdown, 57P01) is answered with
// CodeUnavailable and the store's sentence, whether the handler passed it
// to Fail or to Internal; the host's ExplainError names the database, and
// the cause stays for the log only.
func TestUnavailableResult(t *testing.T) {
	cause := fmt.Errorf("cannot journal the change: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"})
	const said = "nothing of this call was kept; try again."
	res := Fail(cause)
	if res.Code != CodeUnavailable || !strings.HasSuffix(res.Err, said) || res.Cause() == nil {
		t.Errorf("Fail: %+v, want CodeUnavailable and a sentence ending %q", res, said)
	}
	if res.OK() {
		t.Error("an unavailable result is ok")
	}
	for _, via := range []string{"fail", "internal"} {
		r := NewRegistry()
		r.Log = slog.New(slog.DiscardHandler)
		r.Add(Tool{Name: "lost", Description: "Loses its connection.", Handler: func(context.Context, *ToolContext, *args.Args) ExecResult {
			if via == "fail" {
				return Fail(cause)
			}
			return Internal(cause)
		}})
		tc := &ToolContext{}
		Insert(tc, ExplainError(func(err error) string {
			return "The database “db.example” lost it, so nothing of this call was kept; try again."
		}))
		res, _ := r.Call(context.Background(), tc, "lost", []byte(`{}`))
		if res.Code != CodeUnavailable || res.Err != "The database “db.example” lost it, so nothing of this call was kept; try again." {
			t.Errorf("%s: %+v, want CodeUnavailable with the host's sentence", via, res)
		}
		if strings.Contains(res.TextOut(), "57P01") || strings.Contains(res.TextOut(), "administrator command") {
			t.Errorf("%s: the answer shows PostgreSQL's words: %q", via, res.TextOut())
		}
	}
	// Any other internal error stays CodeInternal.
	if res := Fail(fmt.Errorf("x: %w", &pgconn.PgError{Code: "42P01"})); res.Code != CodeInternal || res.Err != InternalSentence {
		t.Errorf("an undefined table: %+v, want CodeInternal", res)
	}
}
