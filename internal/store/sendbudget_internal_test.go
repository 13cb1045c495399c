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

// leasesFor counts the slots the lease under way has left.
func TestLeasesForCountsTheLeaseUnderWay(t *testing.T) {
	for _, c := range []struct{ want, lease, past, k int64 }{
		{1, 12, 0, 1},
		{12, 12, 0, 1},
		{13, 12, 0, 2},
		{24, 12, 0, 2},
		{24, 12, 1, 3},
		{12, 12, 11, 2},
		{1, 12, 11, 1},
		{25, 12, 0, 3},
		{0, 12, 5, 1},
		{24, 480, 400, 1},
		{100, 480, 400, 2},
	} {
		if got := leasesFor(c.want, c.lease, c.past); got != c.k {
			t.Errorf("leasesFor(want %d, lease %d, past %d) = %d, want %d", c.want, c.lease, c.past, got, c.k)
		}
	}
}
