package telegram

import (
	"context"
	"sync"
	"time"
)

// pacer spaces this process's Bot API calls that post or change messages
// (sendMessage, editMessageText, pinChatMessage, unpinChatMessage):
// Telegram counts them all against the token's limits, so the limits here
// count calls, not deliveries. An incident card update is two calls (an
// edit and a reply), and a delivery rate limit alone let such a fan-out
// run at twice TELEGRAM_RATE_LIMIT.
//
//   - In one chat, a call starts at least interval after the previous one
//     ended (its answer came back), so however long requests travel,
//     Telegram never sees two within the interval.
//   - Overall, a call starts at least 1/perSecond after the previous one
//     started: evenly spaced, no bursts. The spacing is from the actual
//     start, not from a slot reserved in advance (as a token bucket such
//     as golang.org/x/time/rate does): goroutines woken late, on a busy
//     machine, would otherwise all go at once to catch up; measured: 30
//     calls in one second and 429s at a limit of 25.
//
// Waits honour ctx. The command bot (internal/bot) has a client and a
// share of the token's rate of its own (BOT_REPLY_RATE).
type pacer struct {
	interval time.Duration
	global   *spacer // nil: no overall limit

	mu    sync.Mutex
	chats map[int64]*chatPace
}

// chatPace is one chat's turn: the call holding turn goes next.
type chatPace struct {
	turn  chan struct{}
	last  time.Time // when the latest call ended; written under pacer.mu by the turn holder
	users int       // calls waiting for or holding the turn; under pacer.mu
}

// pruneAbove is how many idle chats the pacer remembers before it forgets
// those whose interval has passed.
const pruneAbove = 10000

func newPacer(interval time.Duration, perSecond float64) *pacer {
	p := &pacer{interval: interval, chats: map[int64]*chatPace{}}
	if perSecond > 0 {
		p.global = newSpacer(time.Duration(float64(time.Second) / perSecond))
	}
	return p
}

// spacer lets calls start one at a time, at least every apart.
type spacer struct {
	every time.Duration
	turn  chan struct{} // held by the call that starts next
	last  time.Time     // when the latest call started; written by the turn holder
}

func newSpacer(every time.Duration) *spacer {
	s := &spacer{every: every, turn: make(chan struct{}, 1)}
	s.turn <- struct{}{}
	return s
}

// wait blocks until a call may start, or ctx ends. Waiting calls go in
// the order they came (a channel's receivers queue).
func (s *spacer) wait(ctx context.Context) error {
	select {
	case <-s.turn:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { s.turn <- struct{}{} }()
	if err := sleep(ctx, time.Until(s.last.Add(s.every))); err != nil {
		return err
	}
	s.last = time.Now()
	return nil
}

// sleep waits d (nothing when d <= 0), or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error { return Sleep(ctx, d) }

// Sleep waits d (nothing when d <= 0), or until ctx ends: a call's wait
// for its turn or its slot.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// wait blocks until a call to chatID may start. On success the caller
// makes the call and then calls done, which starts the chat's interval.
func (p *pacer) wait(ctx context.Context, chatID int64) (done func(), err error) {
	p.mu.Lock()
	c := p.chats[chatID]
	if c == nil {
		c = &chatPace{turn: make(chan struct{}, 1)}
		c.turn <- struct{}{}
		p.chats[chatID] = c
	}
	c.users++
	p.mu.Unlock()

	select {
	case <-c.turn:
	case <-ctx.Done():
		p.leave(chatID, c)
		return nil, ctx.Err()
	}
	if err := p.waitTurn(ctx, c); err != nil {
		c.turn <- struct{}{}
		p.leave(chatID, c)
		return nil, err
	}
	return func() {
		p.mu.Lock()
		c.last = time.Now()
		p.mu.Unlock()
		c.turn <- struct{}{}
		p.leave(chatID, c)
	}, nil
}

// waitTurn waits, holding the chat's turn, for its interval to pass and
// then for an overall slot.
func (p *pacer) waitTurn(ctx context.Context, c *chatPace) error {
	if err := sleep(ctx, time.Until(c.last.Add(p.interval))); err != nil {
		return err
	}
	if p.global != nil {
		return p.global.wait(ctx)
	}
	return ctx.Err()
}

// leave drops a user of the chat's pace and forgets idle chats whose
// interval has passed, once there are many.
func (p *pacer) leave(chatID int64, c *chatPace) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.users--
	if c.users == 0 && time.Since(c.last) >= p.interval {
		delete(p.chats, chatID)
	}
	if len(p.chats) > pruneAbove {
		for id, o := range p.chats {
			if o.users == 0 && time.Since(o.last) >= p.interval {
				delete(p.chats, id)
			}
		}
	}
}
