package telegram

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
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
//   - Overall, calls start at most perSecond a second, evenly spaced (a
//     bucket of one: no bursts).
//
// Waits honour ctx. The command bot (internal/bot) has a client and a
// share of the token's rate of its own (BOT_REPLY_RATE).
type pacer struct {
	interval time.Duration
	global   *rate.Limiter // nil: no overall limit

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
		p.global = rate.NewLimiter(rate.Limit(perSecond), 1)
	}
	return p
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
	if d := time.Until(c.last.Add(p.interval)); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	if p.global != nil {
		return p.global.Wait(ctx)
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
