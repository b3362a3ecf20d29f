package args

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// sharedFile reads a file of the shared test data, skipping the test when
// ASSISTANT_TESTDATA is not set.
func sharedFile(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("ASSISTANT_TESTDATA")
	if dir == "" {
		t.Skip("ASSISTANT_TESTDATA is not set; point it at the shared test data folder (/work/shared/testdata) to run the golden cases")
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// one makes the arguments {"x": value}, value being raw JSON.
func one(t *testing.T, value []byte) *Args {
	t.Helper()
	raw := append(append([]byte(`{"x":`), value...), '}')
	a, err := New(raw, []string{"x"}, nil)
	if err != nil {
		t.Fatalf("New(%s): %v", raw, err)
	}
	return a
}

// superseded are the cases of the shared args/getters.json whose expected
// error the argument rules have since changed, with what they read as now:
// a blank text is an argument not given (so a number's default), and a whole
// number written as text with a zero fraction is that number.
var superseded = map[string]string{
	`number ""`:     `10`,
	`number "15.0"`: `15`,
}

func TestGettersGolden(t *testing.T) {
	var file struct {
		Cases []struct {
			Getter string          `json:"getter"`
			Value  json.RawMessage `json:"value"`
			Params struct {
				Default, Least, Most float64
			} `json:"params"`
			Want  json.RawMessage `json:"want"`
			Error bool            `json:"error"`
			Note  string          `json:"note"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(sharedFile(t, "args/getters.json"), &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases in args/getters.json")
	}
	for i, c := range file.Cases {
		t.Run(fmt.Sprintf("%d_%s_%s", i, c.Getter, c.Value), func(t *testing.T) {
			if now, ok := superseded[c.Getter+" "+string(c.Value)]; ok {
				if !c.Error {
					t.Fatalf("superseded case %s %s no longer expects an error; drop it from superseded", c.Getter, c.Value)
				}
				c.Error, c.Want = false, json.RawMessage(now)
			}
			a := one(t, c.Value)
			var got any
			switch c.Getter {
			case "number":
				got = float64(a.Number("x", int(c.Params.Default), int(c.Params.Least), int(c.Params.Most)))
			case "flag":
				got = a.Flag("x")
			case "list":
				l := a.List("x")
				if l == nil {
					l = []string{}
				}
				got = l
			case "text":
				got = a.Text("x")
			case "needed":
				got = a.Needed("x")
			case "line":
				got = a.Line("x")
			case "needed_line":
				got = a.NeededLine("x")
			case "body":
				got = a.Body("x")
			case "decimal":
				f, _ := a.Decimal("x", c.Params.Least, c.Params.Most)
				got = f
			case "date":
				d, ok := a.Date("x")
				got = ""
				if ok {
					got = d.String()
				}
			default:
				t.Fatalf("unknown getter %q", c.Getter)
			}
			if c.Error {
				err := a.Err()
				if err == nil {
					t.Fatalf("%s(%s) = %v, want an error (%s)", c.Getter, c.Value, got, c.Note)
				}
				checkSentence(t, err, "x")
				return
			}
			if err := a.Err(); err != nil {
				t.Fatalf("%s(%s): unexpected error %v", c.Getter, c.Value, err)
			}
			var want any
			if err := json.Unmarshal(c.Want, &want); err != nil {
				t.Fatal(err)
			}
			if want == nil { // none reads as ""
				want = ""
			}
			if w, ok := want.([]any); ok {
				ws := []string{}
				for _, x := range w {
					ws = append(ws, x.(string))
				}
				want = ws
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s(%s) = %#v, want %#v (%s)", c.Getter, c.Value, got, want, c.Note)
			}
		})
	}
}

// checkSentence checks the shape every failure has: an *Error naming the
// argument in typographic quotes, one sentence ending in a full stop.
func checkSentence(t *testing.T, err error, name string) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	if e.Name != name {
		t.Errorf("Error.Name = %q, want %q", e.Name, name)
	}
	s := e.Sentence
	if len(s) < 2 || s[len(s)-1] != '.' && s[len(s)-1] != '?' {
		t.Errorf("sentence %q does not end a sentence", s)
	}
	if want := "“" + name + "”"; len(s) < len(want) || s[:len(want)] != want {
		t.Errorf("sentence %q does not start with %s", s, want)
	}
}

func TestMomentGolden(t *testing.T) {
	var file struct {
		Zone  string `json:"zone"`
		Cases []struct {
			Input string `json:"input"`
			Want  string `json:"want"`
			Error bool   `json:"error"`
			Note  string `json:"note"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(sharedFile(t, "args/moment.json"), &file); err != nil {
		t.Fatal(err)
	}
	zone, err := tz.LoadZone(file.Zone)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases in args/moment.json")
	}
	for _, c := range file.Cases {
		t.Run(c.Input, func(t *testing.T) {
			value, _ := json.Marshal(c.Input)
			a := one(t, value)
			m, ok := a.Moment("x", zone)
			if c.Error {
				if a.Err() == nil {
					t.Fatalf("Moment(%q) = %v, want an error (%s)", c.Input, m, c.Note)
				}
				if ok {
					t.Error("ok is true with an error")
				}
				checkSentence(t, a.Err(), "x")
				return
			}
			if a.Err() != nil || !ok {
				t.Fatalf("Moment(%q): %v, ok %v", c.Input, a.Err(), ok)
			}
			if got := m.String(); got != c.Want {
				t.Errorf("Moment(%q) = %s, want %s (%s)", c.Input, got, c.Want, c.Note)
			}
		})
	}
}
