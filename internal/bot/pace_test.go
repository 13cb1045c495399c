package bot

import (
	"context"
	"testing"
	"time"
)

func TestPaceRule(t *testing.T) {
	r := paceRule{interval: time.Second, perMinute: 5, casualPerMinute: 2}
	t0 := time.Unix(1000, 0)
	at := func(secs ...float64) []time.Time {
		var out []time.Time
		for _, s := range secs {
			out = append(out, t0.Add(time.Duration(s*float64(time.Second))))
		}
		return out
	}
	now := t0.Add(10 * time.Second)
	for _, c := range []struct {
		name  string
		s     chatSends
		class sendClass
		want  time.Time
	}{
		{"an empty chat: now", chatSends{}, urgent, now},
		{"a second after the last message", chatSends{all: at(9.5)}, urgent, t0.Add(10500 * time.Millisecond)},
		{"the minute's budget spent", chatSends{all: at(1, 2, 3, 4, 5)}, urgent, t0.Add(61 * time.Second)},
		{"casual budget spent: wait for its oldest to age", chatSends{all: at(1, 2), casual: at(1, 2)}, casual, t0.Add(61 * time.Second)},
		{"casual budget spent: urgent goes now", chatSends{all: at(1, 2), casual: at(1, 2)}, urgent, now},
		{"casual yields to a waiting urgent", chatSends{urgentWaiting: 1}, casual, now.Add(pacePoll)},
	} {
		if got := r.next(c.s, c.class, now); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
}

// However many casual messages wait, an urgent one goes at the chat's
// next free second, and casual ones beyond their budget are dropped.
func TestChatPacerUrgentFirst(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newChatPacer(paceRule{interval: time.Second, perMinute: 19, casualPerMinute: 2}, 0, func() time.Time { return now })
	ctx := context.Background()
	if !p.wait(ctx, -1, casual) {
		t.Fatal("first casual message refused")
	}
	// The next casual one would wait a second: with maxWait 0 it is dropped.
	if p.wait(ctx, -1, casual) {
		t.Fatal("a casual message that must wait was not dropped")
	}
	// Private chats are not paced.
	for range 5 {
		if !p.wait(ctx, 42, casual) {
			t.Fatal("a private chat was paced")
		}
	}
}

// Whatever the history, a message never goes before now, never within
// the interval of the last one, and an urgent one never waits for casual
// budget: with the minute's budget free it goes a second after the last.
func FuzzPaceRule(f *testing.F) {
	f.Add([]byte{1, 3, 200, 7}, true, uint8(1))
	f.Fuzz(func(t *testing.T, gaps []byte, isUrgent bool, waiting uint8) {
		r := groupPace
		t0 := time.Unix(1000, 0)
		var s chatSends
		at := t0
		for i, g := range gaps {
			at = at.Add(time.Duration(g) * 10 * time.Millisecond)
			class := casual
			if i%2 == 0 {
				class = urgent
			}
			s.record(class, at)
		}
		s.urgentWaiting = int(waiting % 3)
		now := at.Add(time.Duration(len(gaps)) * time.Millisecond)
		class := casual
		if isUrgent {
			class = urgent
		}
		next := r.next(s, class, now)
		if next.Before(now) {
			t.Fatalf("next %v before now", next.Sub(now))
		}
		if n := len(s.all); n > 0 && next.Before(s.all[n-1].Add(r.interval)) {
			t.Fatalf("within the interval of the last message")
		}
		if isUrgent && len(s.all) < r.perMinute {
			want := now
			if n := len(s.all); n > 0 {
				want = later(now, s.all[n-1].Add(r.interval))
			}
			if !next.Equal(want) {
				t.Fatalf("urgent waits %v, want %v", next.Sub(now), want.Sub(now))
			}
		}
	})
}

// A group's second counts from the answer to the previous send, and a
// second message waits while the first is in flight.
func TestChatPacerCountsFromTheAnswer(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	p := newChatPacer(paceRule{interval: time.Second, perMinute: 19, casualPerMinute: 10}, 0, clock)
	ctx := context.Background()
	if !p.wait(ctx, -1, urgent) {
		t.Fatal("first message refused")
	}
	s := p.chats[-1]
	if got := p.rule.next(*s, urgent, now.Add(5*time.Second)); !got.Equal(now.Add(5*time.Second + pacePoll)) {
		t.Fatalf("while the send is in flight the next waits: %v", got.Sub(now))
	}
	if got := p.rule.next(*s, urgent, now.Add(maxInFlight)); !got.Equal(now.Add(maxInFlight)) {
		t.Fatalf("a send that never reports back still holds the chat: %v", got.Sub(now))
	}
	now = now.Add(300 * time.Millisecond) // the send is answered
	p.done(-1)
	if got := p.rule.next(*s, urgent, now); !got.Equal(now.Add(time.Second)) {
		t.Fatalf("next %v after the answer, want 1s", got.Sub(now))
	}
	p.done(-1) // a second done changes nothing
	if got := p.rule.next(*s, urgent, now); !got.Equal(now.Add(time.Second)) {
		t.Fatalf("after a second done: %v", got.Sub(now))
	}
}

// An admin's command received holds casual replies back until it is
// handled, at most expectHold; urgent ones are not held.
func TestChatPacerExpectHoldsCasual(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newChatPacer(paceRule{interval: time.Second, perMinute: 19, casualPerMinute: 10}, 0, func() time.Time { return now })
	release := p.expect(-1)
	s := p.chats[-1]
	if got := p.rule.next(*s, casual, now); !got.Equal(now.Add(pacePoll)) {
		t.Fatalf("casual while an admin's command is expected: %v", got.Sub(now))
	}
	if got := p.rule.next(*s, urgent, now); !got.Equal(now) {
		t.Fatalf("urgent held: %v", got.Sub(now))
	}
	if got := p.rule.next(*s, casual, now.Add(expectHold)); !got.Equal(now.Add(expectHold)) {
		t.Fatalf("held beyond expectHold: %v", got.Sub(now))
	}
	release()
	release()
	if got := p.rule.next(*s, casual, now); !got.Equal(now) || len(s.expected) != 0 {
		t.Fatalf("still held after release: %v %v", got.Sub(now), s.expected)
	}
}
