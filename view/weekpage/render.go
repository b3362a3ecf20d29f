package weekpage

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"

	"github.com/assistant-dev/assistant/view"
)

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("week").Funcs(template.FuncMap{
	"inc": func(n int) int { return n + 1 }, // the grid column of day n (the first holds the hours)
}).Parse(pageHTML))

// Render writes w as the week page to out: a whole HTML document, UTF-8,
// with its CSS inline and no script. Every text of the window (titles,
// locations, ids) is escaped for where it stands. Each timed event is a
// block with class "ev" and the attributes data-id (the occurrence id),
// data-start and data-end (its instants, RFC 3339 in the person's zone),
// inside the column of class "col" whose data-date is the day; its
// inline top and height are its minutes of the day at [HourHeight]
// pixels an hour from the first hour shown, whose label has
// data-hour. All-day events are of class "chip", tasks of class "task",
// both with data-id. The page is a pure function of w and o.
func Render(out io.Writer, w view.Window, o Options) error {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, layout(w, o)); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
}
