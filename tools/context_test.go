package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tz"
)

type secret string

type counter struct{ n *int }

func (c counter) CloneForCall() any { n := *c.n; return counter{&n} }

type handle struct{ name string }

func TestToolContextHelpers(t *testing.T) {
	var tc ToolContext
	if Contains[Person](&tc) {
		t.Fatal("empty context holds a Person")
	}
	_, err := Require[Person](&tc)
	var missing *MissingToolContext
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "tools.Person") {
		t.Fatalf("Require on empty: %v", err)
	}
	p := Person{ID: 7, Name: "Ada", Zone: tz.MustZone("Europe/Paris")}
	Insert(&tc, p)
	got, err := Require[Person](&tc)
	if err != nil || got != p {
		t.Fatalf("Require = %+v, %v", got, err)
	}
	if r, ok := Remove[Person](&tc); !ok || r != p || Contains[Person](&tc) {
		t.Fatal("Remove did not take the value out")
	}
	InsertResult(&tc, Changed{Change: "c1"})
	if c, ok := Result[Changed](&tc); !ok || c.Change != "c1" {
		t.Fatal("Result lost")
	}
	if _, err := RequireResult[int](&tc); err == nil {
		t.Fatal("RequireResult of a missing type must fail")
	}
}

func TestToolContextStringHidesValues(t *testing.T) {
	var tc ToolContext
	Insert(&tc, secret("hunter2-token"))
	Insert(&tc, Person{ID: 1, Name: "Private Name", Zone: tz.UTC})
	InsertResult(&tc, Changed{Change: "c99-secret"})
	for _, s := range []string{tc.String(), fmt.Sprint(tc), fmt.Sprintf("%v %+v %#v", &tc, tc, tc)} {
		for _, leak := range []string{"hunter2", "Private Name", "c99"} {
			if strings.Contains(s, leak) {
				t.Fatalf("%q leaks %q", s, leak)
			}
		}
		if !strings.Contains(s, "tools.secret") {
			t.Fatalf("%q does not name the type", s)
		}
	}
}

func TestForCallCopies(t *testing.T) {
	var tc ToolContext
	n := 1
	h := &handle{"db"}
	Insert(&tc, counter{&n})
	Insert(&tc, h)
	InsertResult(&tc, Changed{Change: "old"})
	Insert(&tc, Clock(func() time.Time { return time.Unix(100, 0) }))

	call := tc.ForCall()
	c, _ := Get[counter](call)
	*c.n = 42
	if n != 1 {
		t.Fatal("a Cloner value was shared, not copied")
	}
	hh, _ := Get[*handle](call)
	if hh != h {
		t.Fatal("a shared handle was copied")
	}
	if _, ok := Result[Changed](call); ok {
		t.Fatal("results are not fresh per call")
	}
	if Now(call).Unix() != 100 {
		t.Fatal("clock not used")
	}
	if Now(&ToolContext{}).IsZero() {
		t.Fatal("Now without a clock must give the wall clock")
	}
}

func TestPersonSourceRefreshesEachCall(t *testing.T) {
	zone := "Europe/Paris"
	var tc ToolContext
	Insert(&tc, Person{ID: 1, Zone: tz.MustZone("Europe/Paris")})
	Insert(&tc, PersonSource(func(context.Context) (Person, error) {
		return Person{ID: 1, Zone: tz.MustZone(zone)}, nil
	}))
	r := NewRegistry()
	r.Add(Tool{Name: "where", Description: "Says the person's zone.", Handler: func(_ context.Context, tc *ToolContext, _ *args.Args) ExecResult {
		p, err := PersonOf(tc)
		if err != nil {
			return Internal(err)
		}
		return Success(p.Zone.Name())
	}})
	for _, z := range []string{"Europe/Paris", "Asia/Tokyo"} {
		zone = z
		res, _ := r.Call(context.Background(), &tc, "where", nil)
		if res.Out != z {
			t.Fatalf("call saw %q, want %q", res.Out, z)
		}
		if p, _ := CurrentPerson(context.Background(), &tc); p.Zone.Name() != z {
			t.Fatalf("CurrentPerson = %s", p.Zone)
		}
	}
	Insert(&tc, PersonSource(func(context.Context) (Person, error) { return Person{}, errors.New("db gone") }))
	if res, _ := r.Call(context.Background(), &tc, "where", nil); res.Code != CodeInternal {
		t.Fatalf("a failing source must fail the call, got %+v", res)
	}
}
