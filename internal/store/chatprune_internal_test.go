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

// A process closes each chat it wrote from the version it wrote last,
// once that is quiet (quietVersion), and once: a later version it wrote
// replaces an earlier one, and an older one written late (a write
// answered after a newer) does not, but for the version 1 of a chat
// started again.
func TestAProcessClosesTheVersionItWroteLast(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var m chatMemory
	m.wrote(chatState{Chat: 1, V: 2, At: now.Add(-4 * time.Minute)})
	m.wrote(chatState{Chat: 1, V: 1, At: now.Add(-5 * time.Minute)}) // older, answered late
	m.wrote(chatState{Chat: 2, V: 1, At: now.Add(-4 * time.Minute)})
	m.wrote(chatState{Chat: 2, V: 2, At: now.Add(-time.Minute)}) // chat 2 called a minute ago
	m.wrote(chatState{Chat: 3, V: 5, At: now.Add(-4 * time.Minute), Turns: []chatTurn{{Ticket: "t", Until: now.Add(-30 * time.Second)}}})
	m.wrote(chatState{Chat: 4, V: 1, At: now.Add(-4 * time.Minute), Turns: []chatTurn{{Ticket: "t", Until: now.Add(-2 * time.Minute)}}})
	m.wrote(chatState{Chat: 5, V: 7, At: now.Add(-20 * time.Minute)})
	m.wrote(chatState{Chat: 5, V: 1, At: now.Add(-4 * time.Minute)}) // the chat started again

	got := byChat(m.takeQuiet(now))
	want := map[int64]int64{1: 2, 4: 1, 5: 1} // chat: the version closed
	if len(got) != len(want) {
		t.Fatalf("closed %v, want the chats of %v", got, want)
	}
	for chat, v := range want {
		if got[chat].V != v {
			t.Errorf("chat %d: closed from version %d, want %d", chat, got[chat].V, v)
		}
	}
	if again := m.takeQuiet(now); len(again) != 0 {
		t.Errorf("closed twice: %v", again)
	}
	laterTaken := m.takeQuiet(now.Add(3 * time.Minute))
	later := byChat(laterTaken) // chat 2 quiet now, chat 3's turn long past
	if len(later) != 2 || later[2].V != 2 || later[3].V != 5 {
		t.Errorf("three minutes on: closed %v, want chat 2 from version 2 and chat 3 from 5", later)
	}
	m.giveBack(laterTaken) // a close that failed is tried again
	if back := m.takeQuiet(now.Add(3 * time.Minute)); len(back) != 2 {
		t.Errorf("given back: closed %v again, want both", back)
	}
}

// byChat are versions to close by their chat.
func byChat(ws []writtenVersion) map[int64]writtenVersion {
	out := map[int64]writtenVersion{}
	for _, w := range ws {
		out[w.Chat] = w
	}
	return out
}
