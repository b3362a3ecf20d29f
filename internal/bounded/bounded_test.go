package bounded

import (
	"sync"
	"testing"
)

func TestCacheForgetsAtItsBound(t *testing.T) {
	c := New[string, int](3)
	for i, k := range []string{"a", "b", "c"} {
		c.Put(k, i)
	}
	if v, ok := c.Get("b"); !ok || v != 1 {
		t.Fatalf("Get(b) = %d %v, want 1 true", v, ok)
	}
	c.Put("d", 3) // the fourth: the three before are forgotten
	if _, ok := c.Get("a"); ok {
		t.Error("a is still held after the cache was full")
	}
	if v, ok := c.Get("d"); !ok || v != 3 {
		t.Errorf("Get(d) = %d %v, want 3 true", v, ok)
	}
	if _, ok := c.Get("x"); ok {
		t.Error("a key never put is found")
	}
	c.Clear()
	if _, ok := c.Get("d"); ok {
		t.Error("d is still held after Clear")
	}
}

func TestCacheSharedByGoroutines(t *testing.T) {
	c := New[int, int](50)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				c.Put(i%70, i)
				if v, ok := c.Get(i % 70); ok && v%70 != i%70 {
					t.Errorf("Get(%d) = %d", i%70, v)
				}
			}
		}()
	}
	wg.Wait()
	if c.n > c.max {
		t.Errorf("%d entries counted, bound %d", c.n, c.max)
	}
}
