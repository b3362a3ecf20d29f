package store

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A location that is a folder, or a file that is not a database (text, or
// random bytes), is refused in one sentence naming the path and what is
// wrong, for reading and writing alike, without SQLite's or Go's words
// ("file is not a database (26)", "is a directory").
func TestOpenSaysWhatIsWrongWithTheFile(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder.db")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(text, []byte("hello, these are notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	noise := filepath.Join(dir, "noise.db")
	b := make([]byte, 8192)
	_, _ = rand.Read(b)
	if err := os.WriteFile(noise, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{folder, "is a folder, not a database file"},
		{text, "is not a database file"},
		{noise, "is not a database file"},
	}
	for _, c := range cases {
		for _, ro := range []bool{false, true} {
			s, err := Open(context.Background(), c.path, &Options{ReadOnly: ro})
			if err == nil {
				s.Close()
				t.Errorf("%s (read-only %v) opened", filepath.Base(c.path), ro)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, c.path) {
				t.Errorf("%s (read-only %v): %q, want it to say %q and name the file", filepath.Base(c.path), ro, msg, c.want)
			}
			for _, bad := range []string{"(26)", "is a directory", "disk", "open "} {
				if strings.Contains(msg, bad) {
					t.Errorf("%s (read-only %v): %q shows %q", filepath.Base(c.path), ro, msg, bad)
				}
			}
		}
	}
	if b2, _ := os.ReadFile(text); string(b2) != "hello, these are notes\n" {
		t.Errorf("the file that is no database was changed: %q", b2)
	}
}

// With NoMakeFolder a file whose folder is missing is refused (ErrNoFolder)
// and no folder or file is made; without it the folders are made.
func TestOpenNoMakeFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "sub", "x.db")
	s, err := Open(context.Background(), path, &Options{NoMakeFolder: true})
	if err == nil {
		s.Close()
		t.Fatal("opened a database in a folder that does not exist")
	}
	if !errors.Is(err, ErrNoFolder) || !strings.Contains(err.Error(), filepath.Join(dir, "missing", "sub")) {
		t.Errorf("error %q, want ErrNoFolder naming the folder", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder was made anyway (%v)", err)
	}
	s, err = Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
