package caldav

import "unicode/utf8"

// userName is the user of HTTP Basic credentials as text. RFC 7617 §2.1
// asks for UTF-8, and the challenge says charset="UTF-8", but some
// clients send ISO-8859-1 (python3-requests, so python3-caldav, sends
// “josé” as 6A 6F 73 E9): a user that is not UTF-8 is read as
// ISO-8859-1, whose bytes are the first 256 code points.
func userName(raw string) string {
	if utf8.ValidString(raw) {
		return raw
	}
	rs := make([]rune, len(raw))
	for i := 0; i < len(raw); i++ {
		rs[i] = rune(raw[i])
	}
	return string(rs)
}
