package store

import (
	"context"
	"time"
)

// SetLeaseRTTForTest makes b take its last lease insert to have answered
// in d.
func SetLeaseRTTForTest(b *SendBudget, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rtt = d
}

// ChatPruneReadsForTest is how many versions of chat_calls a prune at now
// would read.
func ChatPruneReadsForTest(ctx context.Context, s *Store, now time.Time) (int, error) {
	docs, err := s.chatPruneCandidates(ctx, now)
	return len(docs), err
}
