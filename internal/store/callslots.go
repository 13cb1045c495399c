package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// colCallSlots holds the bot's calls of the last minute as slots of its
// overall budget: one call per interval (a second over TELEGRAM_RATE_LIMIT)
// for the whole cluster. The send queue's server-side rate limit spaces
// Sends on average, but its token bucket lets a second's worth through at
// once after a quiet spell: two workers then made 30 calls in a second
// and Telegram refused one. A slot is a document inserted once under its
// number: unique on FerretDB too, and an insert is cheap there.
const colCallSlots = "call_slots"

// callSlotsKept is how long taken slots are kept (pruneChatsEvery).
const callSlotsKept = time.Minute

type callSlot struct {
	ID string    `bson:"_id"`
	At time.Time `bson:"at"`
}

// TakeCallSlot takes the first free slot of the bot's budget (one call
// per interval) from now on, at most within ahead, and returns when it
// starts; ok is false when none is free that soon.
func (s *Store) TakeCallSlot(ctx context.Context, interval, within time.Duration, now time.Time) (time.Time, bool, error) {
	if interval <= 0 {
		return now, true, nil
	}
	col := s.db.Collection(colCallSlots)
	first := now.UnixNano() / int64(interval)
	last := now.Add(within).UnixNano() / int64(interval)
	// Past the slots this process saw taken: a burst probes once or twice.
	k := max(first, s.slots.Load()+1)
	for ; k <= last; k++ {
		_, err := col.InsertOne(ctx, callSlot{ID: strconv.FormatInt(k, 10), At: now})
		if mongo.IsDuplicateKeyError(err) {
			s.seeSlot(k)
			continue
		}
		if err != nil {
			return time.Time{}, false, fmt.Errorf("mongodb: take a slot of the bot's budget: %w", err)
		}
		s.seeSlot(k)
		return time.Unix(0, k*int64(interval)), true, nil
	}
	return time.Time{}, false, nil
}

func (s *Store) seeSlot(k int64) {
	for {
		old := s.slots.Load()
		if k <= old || s.slots.CompareAndSwap(old, k) {
			return
		}
	}
}

// pruneCallSlots deletes the slots taken over a minute ago.
func (s *Store) pruneCallSlots(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.Collection(colCallSlots).DeleteMany(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: now.Add(-callSlotsKept)}}}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: prune the bot's slots: %w", err)
	}
	return res.DeletedCount, nil
}
