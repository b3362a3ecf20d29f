package ics

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// An event kept before ends past 9999-12-31T23:59:59 were refused (its
// end in the year 10000) does not stop the export: the file goes without
// it, and the rest is written.
func TestExportSkipsAStoredEndPastTheCalendar(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		ctx := context.Background()
		data := "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:last\r\nDTSTART:99991231T200000Z\r\nDURATION:PT1H\r\nSUMMARY:last\r\nEND:VEVENT\r\n" +
			"BEGIN:VEVENT\r\nUID:ok\r\nDTSTART:20261005T090000Z\r\nSUMMARY:fine\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		if _, err := Import(ctx, st, p, strings.NewReader(data), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		end := time.Date(10000, 1, 1, 0, 30, 0, 0, time.UTC).Unix()
		if res, err := st.DB().Exec(`UPDATE events SET end_local = '10000-01-01T01:30', end_at = ? WHERE uid = 'last'`, end); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("updated %d rows, want the event “last”", n)
		}
		var out bytes.Buffer
		if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatalf("export: %v", err)
		}
		if s := out.String(); !strings.Contains(s, "UID:ok") || strings.Contains(s, "UID:last") || strings.Contains(s, "10000") {
			t.Errorf("export:\n%s", s)
		}
	})
}
