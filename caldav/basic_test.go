package caldav

import "testing"

// A user name in UTF-8 stays as it is; one in ISO-8859-1, as
// python3-requests sends it, is read as the same name.
func TestUserName(t *testing.T) {
	for raw, want := range map[string]string{
		"alice":         "alice",
		"josé":          "josé",
		"jos\xe9":       "josé",
		"Ann Lee":       "Ann Lee",
		"Bj\xf6rn \xc5": "Björn Å",
		"中村":            "中村",
	} {
		if got := userName(raw); got != want {
			t.Errorf("userName(%q) = %q, want %q", raw, got, want)
		}
	}
}
