package store

import (
	"testing"
	"time"
)

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

// The calls of a second's rate of slots reach Telegram a second apart or
// more, however late the first starts (lateFor) and though the last gets
// there quicker by what the calls' transport varies: 10 ms at any rate,
// and 30 ms where a slot is shorter than 10 ms. Measured at 1000 a second
// on this machine, 10,000 paid notices: with 40 ms for lateness 14-30
// calls reached the fake in a second that held 1000 already (a 429 each),
// with 30 ms 0-10, with 10 ms (30 for transport) none in six runs.
func TestASecondOfSlotsHoldsWhenTheCallsTransportVaries(t *testing.T) {
	for _, c := range []struct {
		rate      float64
		transport time.Duration
	}{
		{1, 10 * time.Millisecond}, {20, 10 * time.Millisecond}, {25, 10 * time.Millisecond}, {30, 10 * time.Millisecond},
		{100, 10 * time.Millisecond}, {200, 30 * time.Millisecond}, {1000, 30 * time.Millisecond},
	} {
		b := (&Store{}).NewSendBudget(c.rate, time.Now)
		first := b.maxLate                         // the first call's start, as late as may be
		last := time.Duration(c.rate) * b.interval // a second's rate of slots on, on time
		// and quicker to Telegram; less a ns a slot of rounding
		if span := last - first - c.transport; span < time.Second-time.Duration(c.rate) {
			t.Errorf("rate %v: the first and the last calls of a second's slots reach Telegram %v apart", c.rate, span)
		}
	}
	if transportReserve < 10*time.Millisecond {
		t.Errorf("the margin leaves %v for the calls' transport", transportReserve)
	}
}
