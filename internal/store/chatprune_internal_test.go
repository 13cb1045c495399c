package store

import (
	"testing"
	"time"
)

// A prune that took long puts the next off: ten times as long as it took,
// never sooner than chatPruneEvery. At 100,000 chats FerretDB decoded
// every version each 30 s, in every process, through a whole fan-out.
func TestChatPruneWaitsTenTimesAsLongAsItTook(t *testing.T) {
	for _, c := range []struct{ took, want time.Duration }{
		{0, chatPruneEvery},
		{time.Second, chatPruneEvery},
		{3 * time.Second, chatPruneEvery},
		{5 * time.Second, 50 * time.Second},
		{20 * time.Second, 200 * time.Second},
	} {
		if got := chatPruneGap(c.took); got != c.want {
			t.Errorf("a prune that took %v: next after %v, want %v", c.took, got, c.want)
		}
	}
	s := &Store{}
	t0 := time.Unix(1_800_000_000, 0)
	s.chats.pruned.Store(t0.UnixNano())
	s.chats.gap.Store(int64(chatPruneGap(10 * time.Second)))
	for _, after := range []time.Duration{chatPruneEvery, time.Minute, 99 * time.Second} {
		s.pruneChatsEvery(t0.Add(after)) // one started would run on a store without a database and panic
		if got := s.chats.pruned.Load(); got != t0.UnixNano() {
			t.Fatalf("%v after a prune that took 10 s: another started", after)
		}
	}
}
