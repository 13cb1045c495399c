package commands

import (
	"testing"
	"time"
)

func TestTapChains(t *testing.T) {
	var c tapChains
	t0 := time.Unix(1000, 0)
	if c.follows(-1, 5, "a", "b", t0) {
		t.Fatal("a keyboard with no taps follows")
	}
	c.add(-1, 5, "a", "b", t0)
	c.add(-1, 5, "b", "c", t0.Add(time.Second))
	for _, tc := range []struct {
		drawn, now string
		msg        int
		at         time.Duration
		want       bool
	}{
		{"a", "c", 5, 2 * time.Second, true},  // drawn two taps ago
		{"b", "c", 5, 2 * time.Second, true},  // one tap ago
		{"c", "b", 5, 2 * time.Second, false}, // not the way the chain went
		{"a", "x", 5, 2 * time.Second, false}, // changed elsewhere since
		{"a", "c", 6, 2 * time.Second, false}, // another keyboard
		{"a", "c", 5, 2 * time.Minute, false}, // long after the last tap
	} {
		if got := c.follows(-1, tc.msg, tc.drawn, tc.now, t0.Add(tc.at)); got != tc.want {
			t.Errorf("%+v: %v", tc, got)
		}
	}
	// A change elsewhere, then a tap: the chain starts again from there.
	c.add(-1, 5, "x", "y", t0.Add(3*time.Second))
	if c.follows(-1, 5, "a", "y", t0.Add(3*time.Second)) {
		t.Fatal("the chain spans a change made elsewhere")
	}
}
