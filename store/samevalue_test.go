package store

import (
	"fmt"
	"testing"
)

// TestSameValueAgreesWithPrintedForms checks sameValue against the
// comparison of printed forms it replaced, on the kinds encodeTask makes,
// except where that one was wrong: NULL and the text "<nil>" differ.
func TestSameValueAgreesWithPrintedForms(t *testing.T) {
	vals := []any{nil, "", "<nil>", "4", "open", "[]", 4, int64(4), 3, int64(1791183600), 1.5, []byte("x"), true}
	for _, a := range vals {
		for _, b := range vals {
			want := fmt.Sprint(a) == fmt.Sprint(b)
			if (a == nil) != (b == nil) {
				want = false
			}
			if got := sameValue(a, b); got != want {
				t.Errorf("sameValue(%#v, %#v) = %v, want %v", a, b, got, want)
			}
		}
	}
}
