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

// A claim takes a chat for one to start again (restartable) a minute
// sooner than a prune takes it for quiet (quietChats): whatever a prune
// deletes, a claim that read the chat up to a minute before the prune's
// read did not write after it.
func TestAClaimStartsAChatAgainBeforeAPruneMayDeleteIt(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	version := func(age, waitedUntil time.Duration) chatState {
		st := chatState{ID: "7#3", Chat: 7, V: 3, At: now.Add(-age)}
		if waitedUntil != 0 {
			st.Turns = []chatTurn{{Ticket: "t", Until: now.Add(waitedUntil)}}
		}
		return st
	}
	for _, c := range []struct {
		name            string
		st              chatState
		restart, pruned bool
	}{
		{"a minute old", version(time.Minute, 0), false, false},
		{"two minutes old", version(ChatCallsQuiet-chatRestartMargin, 0), true, false},
		{"three minutes old", version(ChatCallsQuiet, 0), true, true},
		{"a turn waits", version(10*time.Minute, time.Second), false, false},
		{"a turn waited until 30 s ago", version(10*time.Minute, -30*time.Second), true, false},
		{"a turn waited until 2 minutes ago", version(10*time.Minute, -2*time.Minute), true, true},
		{"no versions", chatState{Chat: 7}, false, false},
	} {
		if got := restartable(c.st, now); got != c.restart {
			t.Errorf("%s: restartable %v, want %v", c.name, got, c.restart)
		}
		if c.st.V == 0 {
			continue
		}
		if got := len(quietChats([]chatState{c.st}, now)) == 1; got != c.pruned {
			t.Errorf("%s: pruned %v, want %v", c.name, got, c.pruned)
		}
		if c.pruned && !c.restart {
			t.Errorf("%s: a prune deletes what a claim would write after", c.name)
		}
	}
}
