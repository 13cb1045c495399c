package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// colCallSlots holds the leases of the bot's overall budget of the last
// minute (sendbudget.go): "l<number>", each half a second's slots, taken
// by one process with one insert (unique on FerretDB too, and an insert is
// cheap there). Slots of the first design (one document per call, under
// its number) go with the hourly prune.
const colCallSlots = "call_slots"

// callSlotsKept is how long the hourly prune keeps leases (a process
// deletes its own a minute on; one that died leaves them to it).
const callSlotsKept = time.Minute

type callSlot struct {
	ID string    `bson:"_id"`
	At time.Time `bson:"at"`
}

// pruneCallSlots deletes the slots taken over a minute ago.
func (s *Store) pruneCallSlots(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.Collection(colCallSlots).DeleteMany(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: now.Add(-callSlotsKept)}}}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: prune the bot's slots: %w", err)
	}
	return res.DeletedCount, nil
}
