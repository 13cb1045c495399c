package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Component filter changes are single atomic updates: a change made
// meanwhile by anyone else (another command, a migration) is never lost,
// as it could be with read, change, write.

var (
	// ErrInFilter: the component is already in the filter.
	ErrInFilter = errors.New("component already in the filter")
	// ErrNotInFilter: the component is not in the filter.
	ErrNotInFilter = errors.New("component not in the filter")
	// ErrFilterFull: the filter holds the most components allowed.
	ErrFilterFull = errors.New("component filter full")
)

// AddComponent adds id to the subscription's component filter, unless it
// is there or the filter holds max components, and returns the new filter.
func (s *Store) AddComponent(ctx context.Context, key, id string, max int) ([]string, error) {
	filter := bson.D{
		{Key: "_id", Value: key},
		{Key: "components", Value: bson.D{{Key: "$ne", Value: id}}},
		{Key: fmt.Sprintf("components.%d", max-1), Value: bson.D{{Key: "$exists", Value: false}}},
	}
	return s.changeFilter(ctx, key, filter, bson.D{{Key: "$push", Value: bson.D{{Key: "components", Value: id}}}},
		func(sub *Subscriber) error {
			if slices.Contains(sub.Components, id) {
				return ErrInFilter
			}
			return ErrFilterFull
		})
}

// RemoveComponent removes id from the subscription's component filter and
// returns the new filter.
func (s *Store) RemoveComponent(ctx context.Context, key, id string) ([]string, error) {
	filter := bson.D{{Key: "_id", Value: key}, {Key: "components", Value: id}}
	return s.changeFilter(ctx, key, filter, bson.D{{Key: "$pull", Value: bson.D{{Key: "components", Value: id}}}},
		func(*Subscriber) error { return ErrNotInFilter })
}

// changeFilter applies upd where filter matches; otherwise it reports
// ErrNotSubscribed or why (unmatched) the subscription did not match.
func (s *Store) changeFilter(ctx context.Context, key string, filter, upd bson.D, unmatched func(*Subscriber) error) ([]string, error) {
	var sub Subscriber
	err := s.subs().FindOneAndUpdate(ctx, filter, upd, options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&sub)
	if err == nil {
		return sub.Components, nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("mongodb: update component filter: %w", err)
	}
	cur, err := s.Subscription(ctx, key)
	if err != nil {
		return nil, err
	}
	return cur.Components, unmatched(cur)
}
