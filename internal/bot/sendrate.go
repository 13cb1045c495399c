package bot

import (
	"context"
	"sync"
	"time"
)

// sendRate is the bot's share of the token's message rate. Telegram
// allows a bot about 30 messages a second across every chat; the worker's
// deliveries take TELEGRAM_RATE_LIMIT of them and the bot's replies at
// most BOT_REPLY_RATE, so that a burst of commands during a fan-out does
// not push the token over the limit (and the fan-out into 429s).
//
// Replies are spaced one interval apart, in the order asked: no burst, so
// any one second holds at most about BOT_REPLY_RATE of them.
type sendRate struct {
	interval time.Duration // 0: no limit
	now      func() time.Time

	mu   sync.Mutex
	next time.Time
}

func newSendRate(perSecond float64, now func() time.Time) *sendRate {
	b := &sendRate{now: now}
	if perSecond > 0 {
		b.interval = time.Duration(float64(time.Second) / perSecond)
	}
	return b
}

// wait blocks until the next reply may be sent; false if ctx ended first.
func (b *sendRate) wait(ctx context.Context) bool {
	if d := b.reserve(); d > 0 {
		return sleep(ctx, d)
	}
	return ctx.Err() == nil
}

// reserve takes the next free slot and returns how long until it.
func (b *sendRate) reserve() time.Duration {
	if b.interval == 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	slot := b.next
	if slot.Before(now) {
		slot = now
	}
	b.next = slot.Add(b.interval)
	return slot.Sub(now)
}
