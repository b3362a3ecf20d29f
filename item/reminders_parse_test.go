package item

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestParseRemindersNoneIsJSONs checks that remind_before "[]", read
// without encoding/json, is what json.Unmarshal makes of it: an empty,
// non-nil list, as a task read before had.
func TestParseRemindersNoneIsJSONs(t *testing.T) {
	var want []int
	if err := json.Unmarshal([]byte("[]"), &want); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"[]", " [] ", "[ ]"} {
		r, err := ParseReminders(s, "[]")
		if err != nil {
			t.Fatalf("ParseReminders(%q): %v", s, err)
		}
		if !reflect.DeepEqual(r.Before, want) || r.Before == nil {
			t.Errorf("ParseReminders(%q).Before = %#v, want %#v as json.Unmarshal gives", s, r.Before, want)
		}
	}
}
