package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// The command bot's replies take the same budget as the notices, first:
// no share of TELEGRAM_RATE_LIMIT is kept for them, and a reply waits well
// under a second however busy a fan-out is.
//
// A reply claims one slot of the grid ("r<number>" in call_slots, unique)
// in a lease that starts at least replyGateLead + replyClaimMargin from
// now, whether a worker holds that lease already or not. A worker checks
// each lease it holds for such claims once, replyGateLead before the
// lease starts (leaseGate), and never calls in a claimed slot. A claim
// counts only when its insert answered replyClaimMargin before that check
// (on MongoDB's clock, which both sides map theirs to); a later one is
// left and the reply claims again further on. So a slot is a reply's or a
// notice's, never both: the limit holds, and the reply costs the notices
// one slot.

// replyGateLead is how long before its lease's first slot a worker checks
// the lease for replies' claims.
const replyGateLead = 100 * time.Millisecond

// replyClaimMargin is how long before that check a reply's claim must
// have been answered (clock offsets' error, the check's own send time).
const replyClaimMargin = 40 * time.Millisecond

// replyWithin bounds how far ahead a reply's slot may lie.
const replyWithin = 5 * time.Second

// leaseGate is a lease's check for replies' claims.
type leaseGate struct {
	done    chan struct{}
	claimed map[int64]bool // slot numbers taken by replies
	failed  bool           // the check failed: no slot of the lease is called
}

func replyID(n int64) string { return fmt.Sprintf("r%020d", n) }

// gateAt is when lease l is checked, by this process's clock; the
// caller holds b.mu.
func (b *SendBudget) gateAt(l int64) time.Time {
	return b.slotTime(l * b.lease).Add(-replyGateLead)
}

// openGate starts the check of lease l, won by this process; the caller
// holds b.mu.
func (b *SendBudget) openGate(l int64) {
	if b.gates == nil {
		b.gates = map[int64]*leaseGate{}
	}
	now := b.clock()
	for k := range b.gates { // those of leases over
		if now.Sub(b.slotTime((k+1)*b.lease)) > time.Second {
			delete(b.gates, k)
		}
	}
	g := &leaseGate{done: make(chan struct{})}
	b.gates[l] = g
	at := b.gateAt(l).Add(5 * time.Millisecond)
	first, last := l*b.lease, (l+1)*b.lease-1
	go func() {
		if d := at.Sub(b.clock()); d > 0 {
			time.Sleep(d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		claims, err := findAll[callSlot](ctx, b.st.db.Collection(colCallSlots), "read the replies' slots",
			bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: replyID(first)}, {Key: "$lte", Value: replyID(last)}}}})
		b.mu.Lock()
		defer b.mu.Unlock()
		if err != nil {
			g.failed = true
		} else {
			g.claimed = map[int64]bool{}
			for _, c := range claims {
				var n int64
				if _, err := fmt.Sscanf(c.ID, "r%d", &n); err == nil {
					g.claimed[n] = true
				}
			}
		}
		close(g.done)
	}()
}

// claimedByReply reports whether slot n is known taken by a reply; the
// caller holds b.mu.
func (b *SendBudget) claimedByReply(n int64) bool {
	g := b.gates[n/b.lease]
	if g == nil {
		return false
	}
	select {
	case <-g.done:
		return g.failed || g.claimed[n]
	default:
		return false
	}
}

// waitGate waits for the check of slot's lease, at most until the slot
// is late, and reports whether the slot is free of replies.
func (b *SendBudget) waitGate(ctx context.Context, slot Slot) bool {
	b.mu.Lock()
	g := b.gates[slot.n/b.lease]
	b.mu.Unlock()
	if g == nil {
		return true // not a lease of this process's (a test's slot)
	}
	t := time.NewTimer(time.Until(slot.At.Add(b.maxLate)))
	defer t.Stop()
	select {
	case <-g.done:
	case <-ctx.Done():
		return false
	case <-t.C:
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return !g.failed && !g.claimed[slot.n]
}

// TakeReply claims a slot of the cluster's budget for a command reply,
// ahead of every notice not yet checked in: the slot starts within about
// replyGateLead + replyClaimMargin + a lease from now. The caller waits
// until slot.At and calls within its lateness (Late: else it claims
// again).
func (b *SendBudget) TakeReply(ctx context.Context) (Slot, error) {
	if b.interval <= 0 {
		return Slot{At: b.clock()}, nil
	}
	if err := b.syncClock(ctx); err != nil {
		return Slot{}, err
	}
	col := b.st.db.Collection(colCallSlots)
	for range 32 {
		b.mu.Lock()
		now := b.clock()
		lead := replyGateLead + replyClaimMargin + min(max(b.rtt, 5*time.Millisecond), maxLeaseLead)
		server := now.Add(b.offset).Add(lead)
		j := (server.UnixNano() + int64(b.leaseSpan()) - 1) / int64(b.leaseSpan())
		n := max(j*b.lease, b.reply)
		at, gate, offset := b.slotTime(n), b.gateAt(n/b.lease), b.offset
		b.mu.Unlock()
		if at.Sub(now) > replyWithin {
			return Slot{}, errors.New("no slot of the bot's budget free for a reply soon")
		}
		sent := b.clock()
		_, err := col.InsertOne(ctx, callSlot{ID: replyID(n), At: at.Add(offset)})
		answered := b.clock()
		b.mu.Lock()
		b.rtt = answered.Sub(sent)
		b.reply = max(b.reply, n+1)
		b.mu.Unlock()
		switch {
		case mongo.IsDuplicateKeyError(err):
			continue // another reply's
		case err != nil:
			return Slot{}, fmt.Errorf("mongodb: claim a reply's slot: %w", err)
		case answered.After(gate.Add(-replyClaimMargin)):
			// Answered too late for the lease's check: a worker may call in
			// it. Left claimed (it may have been seen), and a later one taken.
			b.mu.Lock()
			b.reply = max(b.reply, (n/b.lease+1)*b.lease)
			b.mu.Unlock()
			continue
		}
		b.mu.Lock()
		b.taken = append(b.taken, takenLease{id: replyID(n), at: at})
		b.mu.Unlock()
		b.pruneLeases(answered)
		return Slot{At: at, n: n}, nil
	}
	return Slot{}, errors.New("no slot of the bot's budget free for a reply soon")
}
