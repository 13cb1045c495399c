package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colHeld holds the notices a chat in "hold" quiet hours did not get during
// its window: one document per (window, event, chat), written by the send
// instead of calling Telegram, read once by the morning summary at the
// window's end and then deleted. Only upserts by _id, finds on the (sub,
// window) index and deletes: nothing FerretDB gets wrong. Bounded: a
// window's notices are at most what the page said in it, and the summary
// reads at most MaxHeldPerWindow of them.
const colHeld = "held_notices"

// MaxHeldPerWindow bounds what one read of a window returns (the oldest
// first): a summary tells them and reads again until none is left. It is
// far above a real night's (a broad outage of 45 components and 2
// incidents is 94), since a summary sorts a story by all its held steps:
// one cut off from its end would be told open.
const MaxHeldPerWindow = 5000

// HeldRetention: held notices whose summary never ran (the chat left) go.
const HeldRetention = 7 * 24 * time.Hour

// Held is one notice held for a chat's morning summary.
type Held struct {
	ID  string `bson:"_id"` // window|event|sub
	Sub string `bson:"sub"`
	// Window is the end of the quiet window it was held in.
	Window time.Time `bson:"window"`
	Event  string    `bson:"event"`
	// Story groups the notices of one incident or component (OrderKey);
	// Title names it; Summary is the held step, on one line.
	Story   string    `bson:"story"`
	Title   string    `bson:"title"`
	Summary string    `bson:"summary"`
	Opens   bool      `bson:"opens,omitempty"`
	Ends    bool      `bson:"ends,omitempty"`
	EventAt time.Time `bson:"event_at"`
	At      time.Time `bson:"at"`
}

func heldID(window time.Time, event, sub string) string {
	return window.UTC().Format(time.RFC3339) + "|" + event + "|" + sub
}

// HoldNotice records a held notice; a retry of the same send writes the
// same document again.
func (s *Store) HoldNotice(ctx context.Context, h Held) error {
	h.ID = heldID(h.Window, h.Event, h.Sub)
	_, err := s.db.Collection(colHeld).ReplaceOne(ctx, bson.D{{Key: "_id", Value: h.ID}}, h, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: hold a notice for the morning summary: %w", err)
	}
	return nil
}

// HeldNotices returns a chat's notices held in the window ending at
// window, oldest first (at most MaxHeldPerWindow: the oldest).
func (s *Store) HeldNotices(ctx context.Context, sub string, window time.Time) ([]Held, error) {
	return findAll[Held](ctx, s.db.Collection(colHeld), "read held notices",
		bson.D{{Key: "sub", Value: sub}, {Key: "window", Value: window.UTC()}},
		options.Find().SetSort(bson.D{{Key: "event_at", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(MaxHeldPerWindow))
}

// ForgetTold deletes the held notices a part of a summary told: one
// delete by _id each, in one round trip (FerretDB v1 matches an $in of
// many IDs itself, against every document).
func (s *Store) ForgetTold(ctx context.Context, told []Held) error {
	if len(told) == 0 {
		return nil
	}
	models := make([]mongo.WriteModel, len(told))
	for i, h := range told {
		models[i] = mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: heldID(h.Window, h.Event, h.Sub)}})
	}
	if _, err := s.db.Collection(colHeld).BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
		return fmt.Errorf("mongodb: forget told notices: %w", err)
	}
	return nil
}

// ForgetHeld deletes a window's held notices once its summary went out.
func (s *Store) ForgetHeld(ctx context.Context, sub string, window time.Time) error {
	_, err := s.db.Collection(colHeld).DeleteMany(ctx, bson.D{{Key: "sub", Value: sub}, {Key: "window", Value: window.UTC()}})
	if err != nil {
		return fmt.Errorf("mongodb: forget held notices: %w", err)
	}
	return nil
}

var heldIndexes = []mongo.IndexModel{
	{Keys: bson.D{{Key: "sub", Value: 1}, {Key: "window", Value: 1}, {Key: "event_at", Value: 1}}},
	{Keys: bson.D{{Key: "at", Value: 1}}},
}
