package tools

import "testing"

func TestSealedCursor(t *testing.T) {
	c := SealCursor("k5.0.c29ke.3.tnuto0.f", "open", "Europe/Paris")
	if body, ok := OpenCursor(c, "open", "Europe/Paris"); !ok || body != "k5.0.c29ke.3.tnuto0.f" {
		t.Fatalf("OpenCursor(%q) = %q, %v", c, body, ok)
	}
	for _, bad := range []string{
		c[:len(c)-1], // cut
		"k5.0.c29ke.3.tnuto0.g" + c[len(c)-len(c[21:]):], // body edited
		"k5.0.c29ke.3.tnuto0.f",                          // no check
		"",
	} {
		if _, ok := OpenCursor(bad, "open", "Europe/Paris"); ok {
			t.Errorf("OpenCursor(%q) accepted an edited cursor", bad)
		}
	}
	if _, ok := OpenCursor(c, "done", "Europe/Paris"); ok {
		t.Error("a cursor of the open tasks opened for the done ones")
	}
	if _, ok := OpenCursor(c, "open", "Asia/Tokyo"); ok {
		t.Error("a cursor opened after the zone changed")
	}
	if _, ok := OpenCursor(c, "open", "Europe/Paris", ""); ok {
		t.Error("an empty scope part counts")
	}
}
