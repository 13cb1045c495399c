package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// UptimeHistory returns what uptime since `since` needs for the given
// components: every recorded status at or after since and, per component,
// the last one before it (its status when the window opened), oldest
// first. The read is bounded by the window plus one indexed lookup per
// component, not by HistoryRetention.
func (s *Store) UptimeHistory(ctx context.Context, since time.Time, componentIDs []string) ([]HistoryEntry, error) {
	col := s.db.Collection(colHistory)
	var out []HistoryEntry
	for _, id := range componentIDs {
		var e HistoryEntry
		err := col.FindOne(ctx, bson.D{{Key: "component_id", Value: id}, {Key: "at", Value: bson.D{{Key: "$lt", Value: since}}}},
			options.FindOne().SetSort(bson.D{{Key: "at", Value: -1}})).Decode(&e)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
		case err != nil:
			return nil, fmt.Errorf("mongodb: read component history: %w", err)
		default:
			out = append(out, e)
		}
	}
	recent, err := s.ComponentHistory(ctx, since)
	if err != nil {
		return nil, err
	}
	// The earlier entries all come before the window's.
	slices.SortFunc(out, func(a, b HistoryEntry) int { return a.At.Compare(b.At) })
	return append(out, recent...), nil
}
