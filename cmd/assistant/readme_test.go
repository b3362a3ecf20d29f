package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeQuickstart runs the README's quick start literally, so the
// first commands a new user types cannot drift from the product.
func TestReadmeQuickstart(t *testing.T) {
	runQuickstart(t, filepath.Join("..", "..", "README.md"))
}

// The README's `person delete` example runs as written: a deletion that
// cannot be undone needs --yes, so the example must carry it.
func TestReadmePersonDelete(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "assistant person delete ") {
			continue
		}
		found++
		h := newHome(t)
		h.must("person", "add", "bob", "--zone", "UTC")
		if r := h.runBlock(line); r.code != 0 {
			t.Errorf("the README's %q: %s", line, r)
		}
	}
	if found == 0 {
		t.Fatal("the README has no `assistant person delete` example")
	}
}

// overdueDays is how list_tasks says a task is overdue ("t1 · overdue 56 days · …").
var overdueDays = regexp.MustCompile(`t\d+ · overdue \d`)

// The quick start reads sensibly on any day, not only on the docs' fixed
// date: run by the wall clock, nothing it adds is overdue.
func TestReadmeQuickstartByTheClock(t *testing.T) {
	blocks, err := quickstartBlocks(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	delete(h.env, "ASSISTANT_NOW")
	for i, b := range blocks {
		r := h.runBlock(b)
		if r.code != 0 || overdueDays.MatchString(r.stdout) {
			t.Errorf("quickstart block %d by the wall clock: %s", i+1, r)
		}
	}
}
