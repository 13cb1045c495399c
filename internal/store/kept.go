package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Settings kept after /stop: a chat that unsubscribes (or removes the
// bot) keeps its notice types, component filter and settings for KeepFor,
// and /start within that time brings them back. Kept subscriptions live
// in their own collection, so nothing that delivers notices sees them.
// FerretDB has no TTL indexes: old ones are deleted when a chat stops.

// KeepFor is how long settings are kept after /stop.
const KeepFor = 30 * 24 * time.Hour

const colKept = "kept_subscriptions"

// Kept is a subscription as it was when the chat stopped.
type Kept struct {
	Subscriber `bson:",inline"`
	StoppedAt  time.Time `bson:"stopped_at"`
}

func (s *Store) kept() *mongo.Collection { return s.db.Collection(colKept) }

// StopSubscription unsubscribes key and keeps its settings for KeepFor;
// ErrNotSubscribed if it was not subscribed. The copy is written before
// the subscription is deleted: a crash between leaves both, never
// neither.
func (s *Store) StopSubscription(ctx context.Context, key string, now time.Time) error {
	sub, err := s.Subscription(ctx, key)
	if err != nil {
		return err
	}
	if err := s.keep(ctx, *sub, now); err != nil {
		return err
	}
	return s.Unsubscribe(ctx, key)
}

// StopChat is StopSubscription for every subscription of a chat (the
// bot removed from it); it returns how many were stopped.
func (s *Store) StopChat(ctx context.Context, chatID int64, now time.Time) (int64, error) {
	subs, err := findAll[Subscriber](ctx, s.subs(), "stop chat", bson.D{{Key: "chat_id", Value: chatID}})
	if err != nil {
		return 0, err
	}
	for _, sub := range subs {
		if err := s.keep(ctx, sub, now); err != nil {
			return 0, err
		}
	}
	return s.UnsubscribeChat(ctx, chatID)
}

func (s *Store) keep(ctx context.Context, sub Subscriber, now time.Time) error {
	if _, err := s.kept().ReplaceOne(ctx, bson.D{{Key: "_id", Value: sub.Key}}, Kept{Subscriber: sub, StoppedAt: now},
		options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("mongodb: keep settings: %w", err)
	}
	if _, err := s.kept().DeleteMany(ctx, bson.D{{Key: "stopped_at", Value: bson.D{{Key: "$lt", Value: now.Add(-KeepFor)}}}}); err != nil {
		return fmt.Errorf("mongodb: forget old settings: %w", err)
	}
	return nil
}

// KeptSettings returns the settings kept for key, nil when there are none
// (or they are older than KeepFor).
func (s *Store) KeptSettings(ctx context.Context, key string, now time.Time) (*Kept, error) {
	var k Kept
	err := s.kept().FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&k)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: read kept settings: %w", err)
	}
	if now.Sub(k.StoppedAt) > KeepFor {
		return nil, nil
	}
	return &k, nil
}

// Restart subscribes chatID (and thread) again: with the settings kept
// since it stopped, when there are some (restored then names them), or
// as Subscribe does. created is false when it was subscribed already.
func (s *Store) Restart(ctx context.Context, chatID int64, threadID int, now time.Time) (created bool, restored *Kept, err error) {
	key := SubscriberKey(chatID, threadID)
	k, err := s.KeptSettings(ctx, key, now)
	if err != nil {
		return false, nil, err
	}
	if k == nil {
		created, err := s.Subscribe(ctx, chatID, threadID, now)
		return created, nil, err
	}
	sub := k.Subscriber
	sub.CreatedAt, sub.MigratedFrom, sub.MigratedAt = now, "", time.Time{}
	sub.LeadMinutes = ReminderLeadOf(sub.Kinds, sub.Settings) // the reminder queries read it
	// The fan-outs read the list; a page removed meanwhile is not brought back.
	sub.Pages, sub.Components = s.restorable(sub.Pages, sub.Components)
	if _, err := s.subs().InsertOne(ctx, sub); err != nil {
		if mongo.IsDuplicateKeyError(err) {
			return false, nil, nil // subscribed meanwhile: keep that one
		}
		return false, nil, fmt.Errorf("mongodb: restore subscription: %w", err)
	}
	// A copy left behind by a failure here is harmless: the next stop
	// replaces it, and it is only read while not subscribed.
	_, _ = s.kept().DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
	return true, k, nil
}
