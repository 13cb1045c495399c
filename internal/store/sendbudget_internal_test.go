package store

import "testing"

// A lease is about half a second's budget and divides a batch of sends,
// at every rate (a batch on one worker then uses its leases to the last
// slot).
func TestLeaseSizeDividesABatch(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want int64
	}{{1, 2}, {3, 2}, {10, 4}, {20, 8}, {25, 12}, {30, 12}, {48, 24}, {1000, 24}} {
		got := leaseSize(c.rate)
		if got != c.want || SendBatch%got != 0 {
			t.Errorf("leaseSize(%g) = %d, want %d (a divisor of %d)", c.rate, got, c.want, SendBatch)
		}
	}
}
