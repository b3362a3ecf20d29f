// Package bounded is a map that goroutines share and that forgets all it
// holds once it has taken a set number of entries: a cache of values that
// cost only work to make again (parsed rules, expansions, VTIMEZONEs), whose
// memory a stream of distinct keys cannot grow without end.
package bounded

import "sync"

// Cache maps K to V. Its zero value is not usable; make one with [New].
// Get and Put are safe for use by many goroutines at once; a value is
// shared by every Get of its key, so it must not be changed once Put.
type Cache[K comparable, V any] struct {
	max int
	m   sync.Map // K → V
	mu  sync.Mutex
	n   int // Puts since the map was last emptied
}

// New returns a cache that empties itself when a Put finds max entries
// taken since it was last emptied (a key put twice counts twice).
func New[K comparable, V any](max int) *Cache[K, V] {
	return &Cache[K, V]{max: max}
}

// Get returns the value put for k, and whether there is one.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	v, ok := c.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

// Put keeps v for k, after emptying the cache when it is full.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	if c.n >= c.max {
		c.m.Clear()
		c.n = 0
	}
	c.n++
	c.mu.Unlock()
	c.m.Store(k, v)
}

// Clear forgets every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	c.m.Clear()
	c.n = 0
	c.mu.Unlock()
}
