package remind

import (
	"strings"
	"testing"
	"time"
)

// TestWriteStatusCountsAttempts: one attempt is "1 attempt", not "1 attempts".
func TestWriteStatusCountsAttempts(t *testing.T) {
	at := time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)
	cases := []struct {
		st   PersonStatus
		want string
	}{
		{PersonStatus{Upcoming: []Entry{{Item: "t1", Title: "a", FireAt: at, NextTry: at.Add(time.Minute), Attempts: 1, Error: "refused"}}}, "after 1 attempt: refused"},
		{PersonStatus{Upcoming: []Entry{{Item: "t1", Title: "a", FireAt: at, NextTry: at.Add(time.Minute), Attempts: 2, Error: "refused"}}}, "after 2 attempts: refused"},
		{PersonStatus{Failed: []Entry{{Item: "t1", Title: "a", FireAt: at, Attempts: 1, Error: "refused", DeliveryID: "d1"}}}, "after 1 attempt: refused  d1"},
	}
	for _, c := range cases {
		c.st.Name, c.st.Zone = "ann", "UTC"
		var b strings.Builder
		if err := WriteStatus(&b, []PersonStatus{c.st}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("WriteStatus =\n%s\nwant it to contain %q", b.String(), c.want)
		}
	}
}
