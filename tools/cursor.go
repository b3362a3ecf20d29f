package tools

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// SealCursor is body with a check appended ("BODY~CHECK", CHECK a base-36
// FNV-1a hash of body and of scope): scope is what the listing was asked
// for (its filters, window and the person's zone), so [OpenCursor] can
// tell a cursor of this listing from one of another listing, an edited
// one or a cut one. It is a check against mistakes, not a secret: a
// person only ever pages through their own items.
func SealCursor(body string, scope ...string) string {
	return body + "~" + cursorCheck(body, scope)
}

// OpenCursor is the body of a cursor [SealCursor] made with the same
// scope; ok is false for any other text.
func OpenCursor(c string, scope ...string) (body string, ok bool) {
	i := strings.LastIndexByte(c, '~')
	if i < 0 {
		return "", false
	}
	body = c[:i]
	return body, c[i+1:] == cursorCheck(body, scope)
}

func cursorCheck(body string, scope []string) string {
	h := fnv.New32a()
	h.Write([]byte(body))
	for _, s := range scope {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}
