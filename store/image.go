package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// encodeRow is the journal's image of a row: one JSON object of every
// column, keys sorted, so two images of the same row compare equal byte for
// byte. Undo compares the image it reads with the one stored, possibly by
// an older binary, so the bytes are exactly those encoding/json gives for
// the same map[string]any (blobs as {"$blob": base64}, time.Time as RFC 3339
// text); it is written by hand because json.Marshal's reflection over a map
// was a tenth of an import's write time. Values it has no fast form for
// (floats, text needing escapes, other types) go through encoding/json.
func encodeRow(cols []string, vals []any) ([]byte, error) {
	return encodeOrdered(cols, imageOrder(cols), vals)
}

// imageOrder is the order in which an image of a row of cols names its
// columns: their indexes, sorted by name, the derived columns left out.
// Rows of the same columns share it (see imageLayout).
func imageOrder(cols []string) []int {
	order := make([]int, 0, len(cols))
	for i, c := range cols {
		if !derivedColumn(c) {
			order = append(order, i)
		}
	}
	if !slices.IsSortedFunc(order, func(a, b int) int { return strings.Compare(cols[a], cols[b]) }) {
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(cols[a], cols[b]) })
	}
	return order
}

// encodeOrdered is encodeRow with the columns' order (imageOrder) given.
func encodeOrdered(cols []string, order []int, vals []any) ([]byte, error) {
	// Built in a buffer used again, and copied out at its length: a
	// journal holds an image of every row a change touched (50,000 for a
	// large import), so room to spare in each would be held that long.
	buf := imageBufs.Get().(*[]byte)
	defer imageBufs.Put(buf)
	b := append((*buf)[:0], '{')
	defer func() { *buf = b[:0] }()
	for n, i := range order {
		if n > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendText(b, cols[i]); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = appendValue(b, vals[i]); err != nil {
			return nil, err
		}
	}
	b = append(b, '}')
	return bytes.Clone(b), nil
}

// imageBufs are the buffers encodeRow builds images in.
var imageBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// derivedColumn reports the columns images leave out: tasks' derived list
// columns ([derivedTaskColumns]), which the store works out again rather
// than journals.
func derivedColumn(c string) bool { return slices.Contains(derivedTaskColumns, c) }

// blob marks a BLOB value in a JSON image, so it is restored as bytes and
// not as the base64 text JSON would otherwise turn it into.
type blob struct {
	B64 string `json:"$blob"`
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case string:
		return appendText(b, x)
	case []byte:
		// Standard base64 has no character encoding/json escapes.
		b = append(b, `{"$blob":"`...)
		b = base64.StdEncoding.AppendEncode(b, x)
		return append(b, `"}`...), nil
	case time.Time:
		// Only from a column declared DATE/DATETIME, which the convention
		// rules out; kept as canonical text.
		return appendText(b, x.UTC().Format(time.RFC3339Nano))
	case bool:
		return strconv.AppendBool(b, x), nil
	}
	j, err := json.Marshal(v)
	return append(b, j...), err
}

// appendText quotes s as encoding/json does: printable ASCII other than
// the quote, the backslash and <, >, & (escaped for HTML) is copied; any
// other string is left to encoding/json.
func appendText(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, err := json.Marshal(s)
			return append(b, j...), err
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}
