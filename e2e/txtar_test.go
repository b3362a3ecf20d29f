package e2e

import (
	"bytes"
	"strings"
	"testing"
)

// archive is a txtar archive (the format of golang.org/x/tools/txtar,
// which go-sdk's conformance files use): a free-text comment, then files,
// each starting with a line "-- NAME --". The few lines here stand in for
// that module, which this one does not otherwise need.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

// parseArchive reads a txtar archive. Every file's data ends with a
// newline (one is added when the archive's last line lacks it).
func parseArchive(data string) *archive {
	a := &archive{}
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur < 0 {
			a.comment = b.String()
		} else {
			a.files[cur].data = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		if line == "" {
			continue
		}
		if name, ok := marker(line); ok {
			flush()
			a.files = append(a.files, archiveFile{name: name})
			cur = len(a.files) - 1
			continue
		}
		b.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	flush()
	return a
}

// marker reports whether line is a file marker "-- NAME --" and its name.
func marker(line string) (string, bool) {
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < len("-- x --") {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

// format writes a back as txtar.
func (a *archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// file returns the data of the file called name, and whether there is one.
func (a *archive) file(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

// set replaces the data of the file called name, or adds the file.
func (a *archive) set(name, data string) {
	for i, f := range a.files {
		if f.name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name: name, data: data})
}

func TestArchiveRoundTrip(t *testing.T) {
	in := "A comment.\n\n-- client --\n{\"a\":1}\n-- server --\n{\n\t\"b\": 2\n}\n-- empty --\n"
	a := parseArchive(in)
	if a.comment != "A comment.\n\n" || len(a.files) != 3 {
		t.Fatalf("parsed %+v", a)
	}
	if d, _ := a.file("server"); d != "{\n\t\"b\": 2\n}\n" {
		t.Errorf("server = %q", d)
	}
	if got := string(a.format()); got != in {
		t.Errorf("format = %q, want %q", got, in)
	}
	a.set("server", "x\n")
	a.set("new", "y")
	if got := string(a.format()); got != "A comment.\n\n-- client --\n{\"a\":1}\n-- server --\nx\n-- empty --\n-- new --\ny\n" {
		t.Errorf("after set: %q", got)
	}
	if b := parseArchive("-- a --\nno newline"); b.files[0].data != "no newline\n" {
		t.Errorf("a last line without newline: %q", b.files[0].data)
	}
}
