package store

import "testing"

// A lease is about half a second's budget and divides a batch of sends,
// or is a multiple of it at high rates (a batch on one worker then uses
// its leases to the last slot), so that leases stay about two a second:
// at 1000 a second, leases of 24 were forty a second, and FerretDB's scans
// of call_slots for the replies' checks stalled the fan-out.
func TestLeaseSizeDividesABatch(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want int64
	}{{1, 2}, {3, 2}, {10, 4}, {20, 8}, {25, 12}, {30, 12}, {48, 24}, {100, 48}, {200, 96}, {1000, 480}} {
		got := leaseSize(c.rate)
		if got != c.want || (SendBatch%got != 0 && got%SendBatch != 0) {
			t.Errorf("leaseSize(%g) = %d, want %d (a divisor or a multiple of %d)", c.rate, got, c.want, SendBatch)
		}
		if perSecond := c.rate / float64(got); c.rate >= 4 && perSecond > 2.5 {
			t.Errorf("leaseSize(%g) = %d: %.1f leases a second", c.rate, got, perSecond)
		}
	}
}
