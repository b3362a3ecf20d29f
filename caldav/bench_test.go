package caldav_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/ics"
)

// seed imports n events (a fifth of them weekly series) for the fixture's
// person in one change.
func (f *fixture) seed(n int) {
	f.t.Helper()
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n")
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range n {
		at := start.Add(time.Duration(i%700) * 13 * time.Hour)
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:bench-%d@example.org\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Paris:%s\r\nDURATION:PT45M\r\nSUMMARY:Event number %d\r\nLOCATION:Room %d\r\n",
			i, at.Format("20060102T150405"), i, i%40)
		if i%5 == 0 {
			b.WriteString("RRULE:FREQ=WEEKLY;COUNT=20\r\n")
		}
		b.WriteString("END:VEVENT\r\n")
	}
	b.WriteString("END:VCALENDAR\r\n")
	p, err := f.env.Store.PersonByID(context.Background(), f.me.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := ics.Import(context.Background(), f.env.Store, p, strings.NewReader(b.String()), ics.ImportOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// okRe finds the members of a sync answer that are there (not 404).
var okRe = regexp.MustCompile(`<D:href>([^<]+\.ics)</D:href><D:propstat>`)

// phone is a client syncing as DAVx5 does: sync-collection for the ETags,
// then calendar-multiget of what changed, in batches. It returns the
// bytes received and the new token.
func (f *fixture) phoneSync(tb testing.TB, token string) (int, string) {
	req := func(body string) string {
		r, _ := http.NewRequest("REPORT", f.srv.URL+events1, strings.NewReader(body))
		r.SetBasicAuth("me", f.tok)
		r.Header.Set("Content-Type", "application/xml")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			tb.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 207 {
			tb.Fatalf("%d %s", resp.StatusCode, b)
		}
		return string(b)
	}
	got := req(`<sync-collection xmlns="DAV:"><sync-token>` + token + `</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
	bytes := len(got)
	next := regexp.MustCompile(`<D:sync-token>([^<]+)</D:sync-token>`).FindStringSubmatch(got)[1]
	var hrefs []string
	for _, m := range okRe.FindAllStringSubmatch(got, -1) {
		hrefs = append(hrefs, m[1])
	}
	for len(hrefs) > 0 {
		n := min(len(hrefs), 500)
		var b strings.Builder
		b.WriteString(`<C:calendar-multiget xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><getetag/><C:calendar-data/></prop>`)
		for _, h := range hrefs[:n] {
			b.WriteString("<href>" + h + "</href>")
		}
		b.WriteString("</C:calendar-multiget>")
		hrefs = hrefs[n:]
		bytes += len(req(b.String()))
	}
	return bytes, next
}

// BenchmarkPhoneSync measures a phone's first sync of 10,000 events and a
// sync after 10 changes (issue 18's measure): time per sync, and bytes
// received as "B/sync".
//
//	go test ./caldav -run '^$' -bench PhoneSync -benchtime 5x -count 6
func BenchmarkPhoneSync(b *testing.B) {
	for _, size := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("events=%d", size), func(b *testing.B) {
			f := open(b)
			f.seed(size)
			b.Run("initial", func(b *testing.B) {
				var n int
				for b.Loop() {
					n, _ = f.phoneSync(b, "")
				}
				b.ReportMetric(float64(n), "B/sync")
			})
			b.Run("10-changes", func(b *testing.B) {
				var n, round int
				for b.Loop() {
					b.StopTimer()
					round++
					_, tok := f.phoneSync(b, "")
					for i := range 10 {
						res, _ := f.env.Call(f.me, "update_event", fmt.Sprintf(`{"id":"e%d","title":"Changed %d in round %d"}`, 1+i*97, i, round))
						if res.Code != 0 {
							b.Fatal(res.Err)
						}
					}
					b.StartTimer()
					n, _ = f.phoneSync(b, tok)
				}
				b.ReportMetric(float64(n), "B/sync")
			})
		})
	}
}
