package bot

import (
	"context"
	"testing"
	"time"
)

// by is casual messages sent at ts for sender.
func by(sender int64, ts []time.Time) []sentBy {
	var out []sentBy
	for _, at := range ts {
		out = append(out, sentBy{at: at, sender: sender})
	}
	return out
}

// The case: a member flooding /status uses the group's casual
// share, and another member's single /status must still be answered. A
// sender answered this minute leaves the last casualSpare to others, and
// waits while a sender answered less often waits. On the old rule
// (casual first come) the flood's 10 replies shut everyone else out for
// the rest of the minute.
func TestCasualShareIsPerSender(t *testing.T) {
	r := paceRule{interval: time.Second, perMinute: 19, casualPerMinute: 10, casualSpare: 3}
	t0 := time.Unix(1000, 0)
	var flood []time.Time
	for i := range 7 {
		flood = append(flood, t0.Add(time.Duration(i)*1500*time.Millisecond))
	}
	now := t0.Add(15 * time.Second)
	s := chatSends{all: flood, casual: by(7, flood)}
	if got := r.next(s, casual, 8, now); !got.Equal(now) {
		t.Fatalf("another member's first reply waits %v", got.Sub(now))
	}
	if got := r.next(s, casual, 7, now); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("the flooder's 8th reply in the minute goes at %v, want when the first ages", got.Sub(t0))
	}
	// Both wait for the chat's second: the one answered less goes first.
	s.casualWaiting = map[int64]int{7: 1, 8: 1}
	s.casual = by(7, flood[:2])
	if got := r.next(s, casual, 7, now); !got.Equal(now.Add(pacePoll)) {
		t.Fatalf("the flooder did not yield to a member not answered yet: %v", got.Sub(now))
	}
	if got := r.next(s, casual, 8, now); !got.Equal(now) {
		t.Fatalf("the member not answered yet waits %v", got.Sub(now))
	}
	// Once the spare is all that is left, a sender already answered
	// waits; one not answered still goes.
	var ten []time.Time
	for i := range 10 {
		ten = append(ten, t0.Add(time.Duration(i)*time.Second))
	}
	s = chatSends{all: ten[:9], casual: append(by(7, ten[:7]), by(9, ten[7:9])...)}
	if got := r.next(s, casual, 9, now); got.Equal(now) {
		t.Fatal("a sender answered twice took a spare slot")
	}
	if got := r.next(s, casual, 10, now); !got.Equal(now) {
		t.Fatalf("a sender not answered this minute waits %v for the last slot", got.Sub(now))
	}
}

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
		{"casual budget spent: wait for its oldest to age", chatSends{all: at(1, 2), casual: by(7, at(1, 2))}, casual, t0.Add(61 * time.Second)},
		{"casual budget spent: urgent goes now", chatSends{all: at(1, 2), casual: by(7, at(1, 2))}, urgent, now},
		{"casual yields to a waiting urgent", chatSends{urgentWaiting: 1}, casual, now.Add(pacePoll)},
	} {
		if got := r.next(c.s, c.class, 8, now); !got.Equal(c.want) {
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
	if !p.wait(ctx, -1, casual, 7) {
		t.Fatal("first casual message refused")
	}
	// The next casual one would wait a second: with maxWait 0 it is dropped.
	if p.wait(ctx, -1, casual, 7) {
		t.Fatal("a casual message that must wait was not dropped")
	}
	// Private chats are not paced.
	for range 5 {
		if !p.wait(ctx, 42, casual, 42) {
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
			s.record(class, int64(i%3), at)
		}
		s.urgentWaiting = int(waiting % 3)
		now := at.Add(time.Duration(len(gaps)) * time.Millisecond)
		class := casual
		if isUrgent {
			class = urgent
		}
		next := r.next(s, class, 1, now)
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
	if !p.wait(ctx, -1, urgent, 7) {
		t.Fatal("first message refused")
	}
	s := p.chats[-1]
	if got := p.rule.next(*s, urgent, 0, now.Add(5*time.Second)); !got.Equal(now.Add(5*time.Second + pacePoll)) {
		t.Fatalf("while the send is in flight the next waits: %v", got.Sub(now))
	}
	if got := p.rule.next(*s, urgent, 0, now.Add(maxInFlight)); !got.Equal(now.Add(maxInFlight)) {
		t.Fatalf("a send that never reports back still holds the chat: %v", got.Sub(now))
	}
	now = now.Add(300 * time.Millisecond) // the send is answered
	p.done(-1)
	if got := p.rule.next(*s, urgent, 0, now); !got.Equal(now.Add(time.Second)) {
		t.Fatalf("next %v after the answer, want 1s", got.Sub(now))
	}
	p.done(-1) // a second done changes nothing
	if got := p.rule.next(*s, urgent, 0, now); !got.Equal(now.Add(time.Second)) {
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
	if got := p.rule.next(*s, casual, 0, now); !got.Equal(now.Add(pacePoll)) {
		t.Fatalf("casual while an admin's command is expected: %v", got.Sub(now))
	}
	if got := p.rule.next(*s, urgent, 0, now); !got.Equal(now) {
		t.Fatalf("urgent held: %v", got.Sub(now))
	}
	if got := p.rule.next(*s, casual, 0, now.Add(expectHold)); !got.Equal(now.Add(expectHold)) {
		t.Fatalf("held beyond expectHold: %v", got.Sub(now))
	}
	release()
	release()
	if got := p.rule.next(*s, casual, 0, now); !got.Equal(now) || len(s.expected) != 0 {
		t.Fatalf("still held after release: %v %v", got.Sub(now), s.expected)
	}
}
