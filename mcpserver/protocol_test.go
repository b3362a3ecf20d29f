package mcpserver

import "testing"

// replaced finds an escaped lone surrogate wherever it is, and nothing in
// escaped backslashes followed by text: go-sdk's decoder reads a lone one
// as U+FFFD, so such an id would not come back as sent.
func TestReplacedSurrogates(t *testing.T) {
	for lit, want := range map[string]bool{
		`"x\ud800"`:             true,
		`"\udc00x"`:             true,
		`"\\ufffd\ud800"`:       true,
		`"\\uFFFD\udc00x"`:      true,
		`"\ud800\u0041"`:        true,
		`"\ud83d\ude00"`:        false,
		`"\\ud800"`:             false,
		`"\ufffd"`:              false,
		`"a\u0000b\n\"\\"`:      false,
		`"x\ud800\udc00\ud800"`: true,
		`"caf\u00e9"`:           false,
	} {
		if got := replaced([]byte(lit)); got != want {
			t.Errorf("replaced(%s) = %v, want %v", lit, got, want)
		}
	}
}
