package tz

import (
	"reflect"
	"testing"
)

func TestMomentsJSON(t *testing.T) {
	d, _ := NewDate(2026, 10, 5)
	ms := []Moment{DayMoment(d), TimeMoment(d.At(9, 30))}
	text := MomentsJSON(ms)
	if text != `["2026-10-05","2026-10-05T09:30"]` {
		t.Fatalf("MomentsJSON = %s", text)
	}
	back, err := ParseMomentsJSON(text)
	if err != nil || !reflect.DeepEqual(back, ms) {
		t.Fatalf("round trip: %v %v", back, err)
	}
	for _, empty := range []string{"", "[]"} {
		if got, err := ParseMomentsJSON(empty); got != nil || err != nil {
			t.Errorf("ParseMomentsJSON(%q) = %v, %v", empty, got, err)
		}
	}
	if MomentsJSON(nil) != "[]" {
		t.Error("no moments must be []")
	}
	for _, bad := range []string{`{}`, `[1]`, `["2026-02-30"]`, `["tomorrow"]`, `["2026-10-05T9:00"]`} {
		if _, err := ParseMomentsJSON(bad); err == nil {
			t.Errorf("ParseMomentsJSON(%s) accepted", bad)
		}
	}
}
