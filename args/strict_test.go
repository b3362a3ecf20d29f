package args

import (
	"errors"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// TestStrict: on a strict Args a getter for a name New did not accept
// panics with *Undeclared, after a failure too; without Strict it reads as
// absent.
func TestStrict(t *testing.T) {
	read := func(strict bool, get func(a *Args)) (name string) {
		a, err := New([]byte(`{"title":"x"}`), []string{"title", "due"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if strict {
			a.Strict()
		}
		defer func() {
			if p := recover(); p != nil {
				var u *Undeclared
				if e, ok := p.(error); !ok || !errors.As(e, &u) {
					t.Fatalf("panic %v is not *Undeclared", p)
				}
				name = u.Name
			}
		}()
		get(a)
		return ""
	}
	getters := map[string]func(a *Args){
		"Text":   func(a *Args) { a.Text("titel") },
		"Has":    func(a *Args) { a.Has("titel") },
		"Moment": func(a *Args) { a.Moment("titel", tz.UTC) },
		"Number": func(a *Args) { a.Number("titel", 1, 1, 3) },
		"after a failure": func(a *Args) {
			a.Fail("due", "“due” is wrong.")
			a.Flag("titel")
		},
	}
	for what, get := range getters {
		if got := read(true, get); got != "titel" {
			t.Errorf("%s: strict panicked with %q, want titel", what, got)
		}
		if got := read(false, get); got != "" {
			t.Errorf("%s: not strict, yet panicked with %q", what, got)
		}
	}
	if got := read(true, func(a *Args) { a.Text("title"); a.Moment("due", tz.UTC) }); got != "" {
		t.Errorf("declared names panicked with %q", got)
	}
}
