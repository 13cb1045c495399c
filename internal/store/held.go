package store

import (
	"context"
	"fmt"
	"slices"
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

// HoldNotice records a held notice; a retry of the same send finds it
// recorded and leaves it as it is (claimed by its summary, say).
func (s *Store) HoldNotice(ctx context.Context, h Held) error {
	h.ID = heldID(h.Window, h.Event, h.Sub)
	doc, err := bson.Marshal(h)
	if err != nil {
		return fmt.Errorf("hold a notice for the morning summary: %w", err)
	}
	var fields bson.D
	if err := bson.Unmarshal(doc, &fields); err != nil {
		return fmt.Errorf("hold a notice for the morning summary: %w", err)
	}
	fields = slices.DeleteFunc(fields, func(e bson.E) bool { return e.Key == "_id" })
	_, err = s.db.Collection(colHeld).UpdateOne(ctx, bson.D{{Key: "_id", Value: h.ID}},
		bson.D{{Key: "$setOnInsert", Value: fields}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: hold a notice for the morning summary: %w", err)
	}
	return nil
}

// HeldNotices returns a chat's notices held in the window ending at
// window, oldest first (at most MaxHeldPerWindow: the oldest).
func (s *Store) HeldNotices(ctx context.Context, sub string, window time.Time) ([]Held, error) {
	return s.heldNotices(ctx, sub, window)
}

func (s *Store) heldNotices(ctx context.Context, sub string, window time.Time) ([]Held, error) {
	filter := bson.D{{Key: "sub", Value: sub}, {Key: "window", Value: window.UTC()}, {Key: "mark", Value: bson.D{{Key: "$exists", Value: false}}}}
	return findAll[Held](ctx, s.db.Collection(colHeld), "read held notices", filter,
		options.Find().SetSort(bson.D{{Key: "event_at", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(MaxHeldPerWindow))
}

// A window's summary and a notice held at the very end of it (by a worker
// whose clock is behind, or an attempt that ran late) meet through marks
// beside the held notices, each side writing before it reads:
//   - the summary closes the window (CloseWindow) before it reads what
//     was held, and claims each part's notices (ClaimHeld) before it
//     sends them;
//   - a hold records its notice, then reads whether the window is closed
//     (WindowClosed): open, the summary will read the notice; closed, the
//     hold takes its notice back unless the summary claimed it (Unhold)
//     and sends it as usual.
//
// A claim and a take-back are one document with one _id: whichever is
// inserted first wins, the other meets a duplicate key. Inserts only:
// FerretDB scans the collection for every update, even by _id.
const (
	markClosed = "closed"
	markClaim  = "claim"
	markBack   = "back"
)

func markID(mark string, h Held) string {
	if mark == markClosed {
		return "closed|" + h.Window.UTC().Format(time.RFC3339) + "|" + h.Sub
	}
	return "owner|" + heldID(h.Window, h.Event, h.Sub) // a claim or a take-back: one of them
}

func markDoc(mark string, h Held, now time.Time) bson.D {
	return bson.D{{Key: "_id", Value: markID(mark, h)}, {Key: "sub", Value: h.Sub}, {Key: "window", Value: h.Window.UTC()},
		{Key: "mark", Value: mark}, {Key: "at", Value: now}}
}

// CloseWindow marks a chat's window as being summarized.
func (s *Store) CloseWindow(ctx context.Context, sub string, window time.Time, now time.Time) error {
	_, err := s.db.Collection(colHeld).InsertOne(ctx, markDoc(markClosed, Held{Sub: sub, Window: window}, now))
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("mongodb: close a held window: %w", err)
	}
	return nil
}

// WindowClosed reports whether the window's summary has begun.
func (s *Store) WindowClosed(ctx context.Context, sub string, window time.Time) (bool, error) {
	rows, err := findAll[Held](ctx, s.db.Collection(colHeld), "read whether a held window is closed",
		bson.D{{Key: "sub", Value: sub}, {Key: "window", Value: window.UTC()}, {Key: "mark", Value: markClosed}}, options.Find().SetLimit(1))
	return len(rows) > 0, err
}

// ClaimHeld claims a summary part's notices and returns those it may tell
// (a hold may have taken one back meanwhile): two round trips. A claim of
// an earlier attempt of the same summary stays its own.
func (s *Store) ClaimHeld(ctx context.Context, part []Held, now time.Time) ([]Held, error) {
	if len(part) == 0 {
		return nil, nil
	}
	docs := make([]any, len(part))
	for i, h := range part {
		docs[i] = markDoc(markClaim, h, now)
	}
	col := s.db.Collection(colHeld)
	if _, err := col.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return nil, fmt.Errorf("mongodb: claim held notices: %w", err)
	}
	backs, err := findAll[Held](ctx, col, "read held notices taken back",
		bson.D{{Key: "sub", Value: part[0].Sub}, {Key: "window", Value: part[0].Window.UTC()}, {Key: "mark", Value: markBack}})
	if err != nil {
		return nil, err
	}
	back := map[string]bool{}
	for _, b := range backs {
		back[b.ID] = true
	}
	return slices.DeleteFunc(slices.Clone(part), func(h Held) bool { return back[markID(markBack, h)] }), nil
}

// Unhold takes a held notice back unless its summary claimed it: true
// when taken back (the caller sends it; the notice is forgotten).
func (s *Store) Unhold(ctx context.Context, h Held, now time.Time) (bool, error) {
	col := s.db.Collection(colHeld)
	_, err := col.InsertOne(ctx, markDoc(markBack, h, now))
	if mongo.IsDuplicateKeyError(err) {
		// Claimed (or taken back by an earlier attempt of this send).
		rows, err := findAll[Held](ctx, col, "read a held notice's owner",
			bson.D{{Key: "sub", Value: h.Sub}, {Key: "window", Value: h.Window.UTC()}, {Key: "mark", Value: markBack}})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(rows, func(b Held) bool { return b.ID == markID(markBack, h) }), nil
	}
	if err != nil {
		return false, fmt.Errorf("mongodb: take back a held notice: %w", err)
	}
	return true, s.ForgetTold(ctx, []Held{h})
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
