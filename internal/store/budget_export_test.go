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

// SlotNumberForTest is a slot's number in the cluster's grid.
func SlotNumberForTest(s Slot) int64 { return s.n }

// HeldUntilForTest is the start of the latest slot b holds, zero if none.
func HeldUntilForTest(b *SendBudget) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.free) == 0 {
		return time.Time{}
	}
	return b.slotTime(b.free[len(b.free)-1])
}

// ExpectedForTest is how many slots b's batches still say they will take.
func ExpectedForTest(b *SendBudget) int64 { return b.demand.Load() }

// ReadChatPruneForTest is a prune at now in two steps: it reads now, and
// deletes what it read when the func returned is called.
func ReadChatPruneForTest(ctx context.Context, s *Store, now time.Time) (func() (int64, error), error) {
	docs, err := s.chatPruneCandidates(ctx, now)
	if err != nil {
		return nil, err
	}
	ids := quietChats(docs, now)
	return func() (int64, error) { return s.deleteVersions(ctx, ids) }, nil
}

// CloseQuietChatsForTest runs the close of quiet chats a write at now
// would start.
func CloseQuietChatsForTest(ctx context.Context, s *Store, now time.Time) (int64, error) {
	return s.closeQuietChats(ctx, now)
}

// InsertClosingsForTest is a close at now cut after its inserts: the
// chats' empty versions are in, their chains not deleted.
func InsertClosingsForTest(ctx context.Context, s *Store, now time.Time) error {
	_, err := s.insertClosings(ctx, s.chats.takeQuiet(now))
	return err
}
