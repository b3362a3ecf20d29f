package args_test

import (
	"fmt"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tz"
)

// A handler reads each argument with its getter and checks Err once: the
// getters are sticky, so the first failure is the answer.
func ExampleNew() {
	raw := []byte(`{"title": "  Buy milk ", "priority": "2", "tags": "errands"}`)
	a, err := args.New(raw, []string{"title", "priority", "tags", "due"}, []string{"title"})
	if err != nil {
		fmt.Println(err)
		return
	}
	title := a.NeededLine("title")
	priority := a.Number("priority", 4, 1, 4) // "2" is read as a whole number, as models write it
	tags := a.List("tags")                    // one string alone is a list of one
	if err := a.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q p%d %q has due: %v\n", title, priority, tags, a.Has("due"))
	// Output:
	// "Buy milk" p2 ["errands"] has due: false
}

// Every failure is one sentence a model can act on: the argument's name in
// typographic quotes, what to write, and the value it wrote.
func ExampleNew_failure() {
	_, err := args.New([]byte(`{"titel": "Buy milk"}`), []string{"title", "due"}, nil)
	fmt.Println(err)

	a, _ := args.New([]byte(`{"limit": 500}`), []string{"limit"}, nil)
	a.Number("limit", 25, 1, 100)
	fmt.Println(a.Err())
	// Output:
	// “titel” is not one of this tool's arguments, which are: title, due.
	// “limit” must be a whole number from 1 to 100, not “500”.
}

// A moment is read in the zone the tool gives (the person's, or an event's
// own); a time with a bracketed zone is read there, then moved into it. A
// day stays a day.
func ExampleArgs_Moment() {
	paris := tz.MustZone("Europe/Paris")
	a, _ := args.New([]byte(`{"due": "2026-12-04T09:00[America/New_York]", "start": "2026-10-05"}`), []string{"due", "start"}, nil)
	due, _ := a.Moment("due", paris)
	start, _ := a.Moment("start", paris)
	fmt.Println(due, start, start.HasTime)

	a, _ = args.New([]byte(`{"due": "next friday"}`), []string{"due"}, nil)
	a.Moment("due", paris)
	fmt.Println(a.Err())
	// Output:
	// 2026-12-04T15:00 2026-10-05 false
	// “due” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “next friday”.
}
