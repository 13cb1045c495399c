package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Retry is one subscriber a delivery still has to reach: it failed a burst
// of sends, or waits for an earlier update of the same incident or component
// to reach it first. The delivery workflow keeps only counts; the detail of
// each pending subscriber lives here, whatever their number.
type Retry struct {
	ID       string    `bson:"_id"` // event|sub
	Event    string    `bson:"event"`
	OrderKey string    `bson:"order_key"`
	EventAt  time.Time `bson:"event_at"`
	// Seq is the event's place in its order key (event.Event.Seq; 0 in
	// retries from before it was kept).
	Seq      int    `bson:"seq,omitempty"`
	Sub      string `bson:"sub"`
	ChatID   int64  `bson:"chat_id"`
	ThreadID int    `bson:"thread_id,omitempty"`
	Bursts   int    `bson:"bursts"`
	// Blocked: an earlier update of the same order key has not reached it.
	Blocked bool      `bson:"blocked,omitempty"`
	NextAt  time.Time `bson:"next_at"`
	Error   string    `bson:"error,omitempty"`
	At      time.Time `bson:"at"`
}

// RetryID is the document ID of a subscriber's retry for an event.
func RetryID(eventKey, sub string) string { return eventKey + "|" + sub }

func (s *Store) retries() *mongo.Collection { return s.db.Collection(colRetries) }

// SaveRetries writes (or replaces) retries in one round trip.
func (s *Store) SaveRetries(ctx context.Context, rs []Retry) error {
	if len(rs) == 0 {
		return nil
	}
	models := make([]mongo.WriteModel, 0, len(rs))
	for _, r := range rs {
		r.ID = RetryID(r.Event, r.Sub)
		models = append(models, mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: r.ID}}).SetReplacement(r).SetUpsert(true))
	}
	if _, err := s.retries().BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: save retries: %w", err)
	}
	return nil
}

// DeleteRetries removes the retries of the given subscribers of an event
// (settled: delivered, removed, failed or skipped).
func (s *Store) DeleteRetries(ctx context.Context, eventKey string, subs []string) (int64, error) {
	if len(subs) == 0 {
		return 0, nil
	}
	ids := make([]string, len(subs))
	for i, k := range subs {
		ids[i] = RetryID(eventKey, k)
	}
	res, err := s.retries().DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: delete retries: %w", err)
	}
	return res.DeletedCount, nil
}

// DropRetries removes every retry of an event (a delivery that gave up).
func (s *Store) DropRetries(ctx context.Context, eventKey string) (int64, error) {
	res, err := s.retries().DeleteMany(ctx, bson.D{{Key: "event", Value: eventKey}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: drop retries: %w", err)
	}
	return res.DeletedCount, nil
}

// DueRetries returns up to limit retries of the event due by dueBy, with
// IDs after the cursor, in ID order, and the cursor for the next page (""
// when done). Retries saved again during a round land behind the cursor.
func (s *Store) DueRetries(ctx context.Context, eventKey, after string, dueBy time.Time, limit int) ([]Retry, string, error) {
	filter := bson.D{{Key: "event", Value: eventKey}, {Key: "next_at", Value: bson.D{{Key: "$lte", Value: dueBy}}}}
	if after != "" {
		filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$gt", Value: after}}})
	}
	out, err := findAll[Retry](ctx, s.retries(), "read retries", filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) == limit {
		next = out[len(out)-1].ID
	}
	return out, next, nil
}

// PutOffRetries moves the next attempt of the given subscribers to nextAt
// and marks them blocked.
func (s *Store) PutOffRetries(ctx context.Context, eventKey string, subs []string, nextAt time.Time) error {
	if len(subs) == 0 {
		return nil
	}
	ids := make([]string, len(subs))
	for i, k := range subs {
		ids[i] = RetryID(eventKey, k)
	}
	_, err := s.retries().UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "next_at", Value: nextAt}, {Key: "blocked", Value: true}}}})
	if err != nil {
		return fmt.Errorf("mongodb: put off retries: %w", err)
	}
	return nil
}

// RetrySummary is what a delivery shows of its pending subscribers.
type RetrySummary struct {
	Count int64
	// Next is the retry due first, Worst the one with most failed bursts.
	Next, Worst *Retry
	// Sample is a few pending subscriber keys, due first first.
	Sample []string
}

// SummarizeRetries reads the count, the next due and the worst retry.
func (s *Store) SummarizeRetries(ctx context.Context, eventKey string, sample int) (*RetrySummary, error) {
	filter := bson.D{{Key: "event", Value: eventKey}}
	n, err := s.retries().CountDocuments(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("mongodb: count retries: %w", err)
	}
	out := &RetrySummary{Count: n}
	if n == 0 {
		return out, nil
	}
	first, err := findAll[Retry](ctx, s.retries(), "read retries", filter, options.Find().SetSort(bson.D{{Key: "next_at", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(max(sample, 1))))
	if err != nil {
		return nil, err
	}
	for _, r := range first {
		out.Sample = append(out.Sample, r.Sub)
	}
	if len(first) > 0 {
		out.Next = &first[0]
	}
	var worst Retry
	err = s.retries().FindOne(ctx, filter, options.FindOne().SetSort(bson.D{{Key: "bursts", Value: -1}, {Key: "_id", Value: 1}})).Decode(&worst)
	if err == nil {
		out.Worst = &worst
	} else if err != mongo.ErrNoDocuments {
		return nil, fmt.Errorf("mongodb: read retries: %w", err)
	}
	return out, nil
}

// EarlierRetries returns, among subs, the retries of other events of the
// same order key that come before the event: updates that must reach those
// subscribers first. Events are ordered by Seq (an edited update comes
// after the updates handed over before it, though it keeps its original
// time); retries without one, from before Seq was kept, by time, where an
// equal time counts as earlier for an event with a Seq (the original of an
// edit). An event without a Seq orders by time alone, as it always did.
func (s *Store) EarlierRetries(ctx context.Context, orderKey, eventKey string, seq int, eventAt time.Time, subs []string) ([]Retry, error) {
	if len(subs) == 0 || orderKey == "" {
		return nil, nil
	}
	filter := bson.D{
		{Key: "order_key", Value: orderKey},
		{Key: "sub", Value: bson.D{{Key: "$in", Value: subs}}},
		{Key: "event", Value: bson.D{{Key: "$ne", Value: eventKey}}},
	}
	if seq > 0 {
		filter = append(filter, bson.E{Key: "$or", Value: bson.A{
			bson.D{{Key: "seq", Value: bson.D{{Key: "$gt", Value: 0}, {Key: "$lt", Value: seq}}}},
			bson.D{{Key: "seq", Value: bson.D{{Key: "$exists", Value: false}}}, {Key: "event_at", Value: bson.D{{Key: "$lte", Value: eventAt}}}},
		}})
	} else {
		filter = append(filter, bson.E{Key: "event_at", Value: bson.D{{Key: "$lt", Value: eventAt}}})
	}
	return findAll[Retry](ctx, s.retries(), "read earlier retries", filter,
		options.Find().SetProjection(bson.D{{Key: "event", Value: 1}, {Key: "sub", Value: 1}}))
}

// Retry returns the retry of a subscriber for an event, or nil.
func (s *Store) Retry(ctx context.Context, eventKey, sub string) (*Retry, error) {
	var r Retry
	err := s.retries().FindOne(ctx, bson.D{{Key: "_id", Value: RetryID(eventKey, sub)}}).Decode(&r)
	if err == mongo.ErrNoDocuments {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: read retry: %w", err)
	}
	return &r, nil
}

// CountRetries counts the retries of every delivery (benchmarks, operators).
func (s *Store) CountRetries(ctx context.Context) (int64, error) {
	n, err := s.retries().CountDocuments(ctx, bson.D{})
	if err != nil {
		return 0, fmt.Errorf("mongodb: count retries: %w", err)
	}
	return n, nil
}

// LaterBlockedRetries returns the retries of sub that wait for an earlier
// step of the story orderKey than seq (blocked behind it), in their
// order: the steps a retried send may tell in its one message.
func (s *Store) LaterBlockedRetries(ctx context.Context, orderKey string, seq int, sub string, limit int) ([]Retry, error) {
	if orderKey == "" || seq <= 0 {
		return nil, nil
	}
	filter := bson.D{{Key: "order_key", Value: orderKey}, {Key: "sub", Value: sub}, {Key: "blocked", Value: true},
		{Key: "seq", Value: bson.D{{Key: "$gt", Value: seq}}}}
	return findAll[Retry](ctx, s.retries(), "read later retries", filter,
		options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}).SetLimit(int64(limit)))
}

// RetryKeys returns the subscribers with a retry of the event (a delivery
// given up says so to each): their keys alone, in pages of 1,000.
func (s *Store) RetryKeys(ctx context.Context, eventKey string) ([]string, error) {
	var keys []string
	for after := ""; ; {
		filter := bson.D{{Key: "event", Value: eventKey}}
		if after != "" {
			filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$gt", Value: after}}})
		}
		rows, err := findAll[Retry](ctx, s.retries(), "read retries' subscribers", filter,
			options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(1000).SetProjection(bson.D{{Key: "sub", Value: 1}}))
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			keys = append(keys, r.Sub)
		}
		if len(rows) < 1000 {
			return keys, nil
		}
		after = rows[len(rows)-1].ID
	}
}
