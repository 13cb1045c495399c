package store

import "time"

// SetLeaseRTTForTest makes b take its last lease insert to have answered
// in d.
func SetLeaseRTTForTest(b *SendBudget, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rtt = d
}
