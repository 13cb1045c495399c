package bot

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// sendRate caps the bot's replies at BOT_REPLY_RATE a second (a flood of
// commands does not take the notices' whole budget), spaced one interval
// apart in the order asked. It is a cap, not a share: the replies' slots
// come from the cluster's budget (replySlots).
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

// replySlots: every reply and keyboard edit takes a slot of the cluster's
// send budget, the one the workers' notices take (store.SendBudget
// TakeReply), ahead of the notices: no share of TELEGRAM_RATE_LIMIT is
// kept for replies, and the notices use what the replies leave.
// BOT_REPLY_RATE (cap) only bounds how fast the bot replies at all.
type replySlots struct {
	cap    *sendRate
	budget *store.SendBudget // nil: no cluster budget (TELEGRAM_RATE_LIMIT 0)
	log    *slog.Logger

	mu     sync.Mutex
	warned time.Time
}

// replySlotWithin bounds the wait for the store's answer: a store in
// trouble delays no reply by more.
const replySlotWithin = time.Second

// wait blocks until the next reply may be sent; false if ctx ended first.
func (r *replySlots) wait(ctx context.Context) bool {
	if !r.cap.wait(ctx) {
		return false
	}
	if r.budget == nil {
		return true
	}
	for range 3 {
		tctx, cancel := context.WithTimeout(ctx, replySlotWithin)
		slot, err := r.budget.TakeReply(tctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			// The store's trouble is not the reply's: it goes at the
			// bot's own pace, beside the notices' budget.
			r.warn(err)
			return true
		}
		if !sleep(ctx, time.Until(slot.At)) {
			return false
		}
		if !r.budget.Late(slot) {
			return true
		}
	}
	return true
}

func (r *replySlots) warn(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.warned) < time.Minute {
		return
	}
	r.warned = time.Now()
	r.log.Warn("a reply went without a slot of the send budget (the store did not answer in time)", "err", err)
}
