package item

// Unique is list without the values it holds twice, in the order of
// their first place, in list's own array; nil when list is empty. An
// item's lists keep a value once: remind_before and remind_at, EXDATEs
// and RDATEs, as the tools read them and as an export writes them.
func Unique[T comparable](list []T) []T {
	if len(list) == 0 {
		return nil
	}
	seen := make(map[T]bool, len(list))
	out := list[:0]
	for _, v := range list {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
