package main

import (
	"path/filepath"
	"testing"
)

// TestReadmeQuickstart runs the README's quick start literally, so the
// first commands a new user types cannot drift from the product.
func TestReadmeQuickstart(t *testing.T) {
	runQuickstart(t, filepath.Join("..", "..", "README.md"))
}
