package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPlainStringsIsJSONUnmarshal checks plainStrings against
// json.Unmarshal, its oracle: where it reads an array it gives what
// json.Unmarshal gives, and it reads every array json.Marshal writes of
// plain strings (the tags a store holds).
func TestPlainStringsIsJSONUnmarshal(t *testing.T) {
	cases := []string{`[]`, `["home"]`, `["home","errands"]`, `["Café","日本"]`, `[""]`, `["",""]`,
		`[ "a"]`, `["a" ]`, `["a",]`, `[,"a"]`, `["a""b"]`, `["a\"b"]`, `["a\\b"]`, `["\u003c"]`, `["a"`, `"a"]`,
		`[1]`, `[null]`, `["a",1]`, `["` + "\x01" + `"]`, `["` + "\xff" + `"]`, `[`, `]`, ``, `["a","b",`, `["a"]]`}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune{'a', 'Z', ' ', ',', '"', '\\', '\u00e9', '\u2028', '<', '&', 0x01, '[', ']', '日'}
	for range 2000 {
		tags := make([]string, r.IntN(4))
		for i := range tags {
			rs := make([]rune, r.IntN(6))
			for j := range rs {
				rs[j] = alphabet[r.IntN(len(alphabet))]
			}
			tags[i] = string(rs)
		}
		b, _ := json.Marshal(tags)
		cases = append(cases, string(b))
		if len(b) > 2 {
			// and the same cut or spliced, as a damaged column would be
			cut := r.IntN(len(b))
			cases = append(cases, string(b[:cut]), string(b[:cut])+string(b[cut+1:]))
		}
	}
	read := 0
	for _, c := range cases {
		got, ok := plainStrings(c)
		var want []string
		err := json.Unmarshal([]byte(c), &want)
		if !ok {
			continue
		}
		read++
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("plainStrings(%q) = %#v; json.Unmarshal gives %#v, %v", c, got, want, err)
		}
	}
	for _, plain := range [][]string{{}, {"home"}, {"home", "errands"}, {"Café", ""}} {
		b, _ := json.Marshal(plain)
		if _, ok := plainStrings(string(b)); !ok {
			t.Errorf("plainStrings(%s) left it to json.Unmarshal; it is plain", b)
		}
	}
	if read < 500 {
		t.Errorf("plainStrings read only %d of %d arrays itself", read, len(cases))
	}
}
