package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
)

// The schema properties of [ReadOnce], shared by every tool that adds an
// item so that all describe them in the same words.
var (
	KeyProp            = Str("key", "Idempotency key.")
	AllowDuplicateProp = Bool("allow_duplicate", "Add even a repeat of the last 10 minutes.")
)

// Once is the guard of a tool that adds one item against adding it twice
// (a model that repeats a call, a client that retries one): an idempotency
// key the caller may give, and, unless AllowDuplicate, a look for the same
// item added within [item.DuplicateWindow].
type Once struct {
	// Tool is the namespace of the keys: the tool's name ("add_task").
	Tool string
	// Key is the idempotency key the call gave ("" for none), at most
	// [item.MaxKey] characters.
	Key string
	// Fingerprint tells a repeated call from another call that reuses
	// the key: [Fingerprint] of what the call would store, so that
	// spellings of the same call count as the same arguments.
	Fingerprint string
	// AllowDuplicate skips the look for the same item.
	AllowDuplicate bool
}

// ReadOnce reads “key” (one line, at most item.MaxKey characters) and
// “allow_duplicate” for the tool called tool; the caller sets Fingerprint
// once it knows what it would store. Declare them with [KeyProp] and
// [AllowDuplicateProp].
func ReadOnce(a *args.Args, tool string) Once {
	key := a.Line("key")
	TooLong(a, "key", "key", key, item.MaxKey)
	return Once{Tool: tool, Key: key, AllowDuplicate: a.Flag("allow_duplicate")}
}

// Outcome is what [Once.Run] found or did.
type Outcome int

const (
	// Added: the item is new, and the key (if any) now names it.
	Added Outcome = iota
	// Replayed: the key was used before with the same fingerprint; ref
	// is the item that call added.
	Replayed
	// Duplicate: the same item was added within the duplicate window;
	// ref is it, and the key (if any) now names it.
	Duplicate
)

// KeyConflict is the error of [Once.Run] for a key used before with other
// arguments. It wraps store.ErrConflict, so [Fail] answers it with
// CodeConflict and its sentence; a tool that words it its own way checks
// for it with errors.As.
type KeyConflict struct {
	Key string // the key reused
	Ref string // the item the first call with it added ("t12")
}

// Error is the sentence for the model.
func (e *KeyConflict) Error() string {
	return fmt.Sprintf("The “key” “%s” was already used for %s with other arguments; repeat that call exactly, or use a new key for a new item.", e.Key, e.Ref)
}

// Unwrap gives store.ErrConflict.
func (e *KeyConflict) Unwrap() error { return store.ErrConflict }

// Run adds an item at most once, in tx (one journaled Write):
//
//   - a Key used before for o.Tool with the same Fingerprint: Replayed and
//     the ref saved with it; with another Fingerprint: a *[KeyConflict];
//   - unless AllowDuplicate, same(tx) looks for the same item added within
//     item.DuplicateWindow and gives its ref ("" for none): Duplicate and
//     that ref, which the Key then names too;
//   - otherwise add(tx) inserts the item and gives its ref: Added, and the
//     Key names the ref.
//
// Errors of same, add and the store come back as they are, for [Fail].
// same is called only when it may answer (a nil same looks for nothing);
// it may also note, for the answer, an item much like the new one that is
// not the same. A Replayed ref may name an item deleted since: the caller
// loads it and says so when it is gone.
func (o Once) Run(tx *store.Tx, same, add func(tx *store.Tx) (string, error)) (Outcome, string, error) {
	if o.Key != "" {
		fp, ref, found, err := tx.LookupKey(o.Tool, o.Key)
		if err != nil {
			return Added, "", err
		}
		if found {
			if fp != o.Fingerprint {
				return Added, "", &KeyConflict{Key: o.Key, Ref: ref}
			}
			return Replayed, ref, nil
		}
	}
	outcome, ref := Added, ""
	if !o.AllowDuplicate && same != nil {
		var err error
		if ref, err = same(tx); err != nil {
			return Added, "", err
		}
		if ref != "" {
			outcome = Duplicate
		}
	}
	if outcome == Added {
		var err error
		if ref, err = add(tx); err != nil {
			return Added, "", err
		}
	}
	if o.Key != "" {
		if err := tx.SaveKey(o.Tool, o.Key, o.Fingerprint, ref); err != nil {
			return Added, "", err
		}
	}
	return outcome, ref, nil
}

// Fingerprint is a stable SHA-256 hex digest of v's canonical JSON (maps
// with sorted keys), used to tell a repeated call with an idempotency key
// from a different call that reuses the key.
func Fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = fmt.Appendf(nil, "%#v", v)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TooLong records on a that argument name holds s of more than most
// characters, with a sentence asking for a shorter what ("title (put
// details in “notes”)", "note"). It does nothing when s fits.
func TooLong(a *args.Args, name, what, s string, most int) {
	if n := utf8.RuneCountInString(s); n > most {
		a.Fail(name, fmt.Sprintf("“%s” may be at most %d characters; this one has %d. Write a shorter %s.", name, most, n, what))
	}
}
