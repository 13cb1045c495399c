package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type ledgerEntry struct {
	ID      string    `bson:"_id"`
	Event   string    `bson:"event"`
	Sub     string    `bson:"sub"`
	At      time.Time `bson:"at"`
	Buckets `bson:",inline"`
}

// Delivered returns which of the subscribers already got the event: one
// round trip for a whole page.
func (s *Store) Delivered(ctx context.Context, eventKey string, subKeys []string) (map[string]bool, error) {
	out := map[string]bool{}
	// By bucket (buckets.go): the event's entries of a page's buckets only.
	rows, err := findByKeys[ledgerEntry](ctx, s.db.Collection(colDeliveries), "read delivery ledger",
		bson.D{{Key: "event", Value: eventKey}}, "sub", subKeys, options.Find().SetProjection(bson.D{{Key: "sub", Value: 1}}))
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.Sub] = true
	}
	return out, nil
}

// RecordDelivered writes ledger entries in one unordered batch; entries that
// exist already are fine (a retried batch).
func (s *Store) RecordDelivered(ctx context.Context, eventKey string, subKeys []string, at time.Time) error {
	if len(subKeys) == 0 {
		return nil
	}
	docs := make([]any, 0, len(subKeys))
	for _, k := range subKeys {
		docs = append(docs, ledgerEntry{ID: eventKey + "|" + k, Event: eventKey, Sub: k, At: at, Buckets: BucketsOf(k)})
	}
	_, err := s.db.Collection(colDeliveries).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: write delivery ledger: %w", err)
	}
	return nil
}

func onlyDuplicates(err error) bool {
	var bwe mongo.BulkWriteException
	if !asBulk(err, &bwe) {
		return mongo.IsDuplicateKeyError(err)
	}
	if bwe.WriteConcernError != nil {
		return false
	}
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 {
			return false
		}
	}
	return true
}
