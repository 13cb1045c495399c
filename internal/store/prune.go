package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// expiring lists what is pruned and how long it is kept.
var expiring = []struct {
	collection string
	retention  time.Duration
}{
	{colDeliveries, LedgerRetention},
	{colMessages, LedgerRetention},
	{colRetries, LedgerRetention}, // left by deliveries that were terminated
	{colMigrations, LedgerRetention},
	{colCards, LedgerRetention}, // from the card's last update
	{colCardNotes, LedgerRetention},
	{colFates, FateRetention},
	{colHeld, HeldRetention}, // of chats whose summary never ran
	{colHistory, HistoryRetention},
	{colTold, ToldRetention},          // from the story's last step
	{colPageNotices, LedgerRetention}, // a page change's notice and its chats' claims
	// chat_calls: a chat's versions go together, closed by their writer once quiet (closeQuietChats) or, where it stopped, by pruneChats.
}

// PruneBatch deletes at most batch expired documents of each collection
// (one find of IDs and one delete per collection, however much expired:
// after a quiet month that is millions of ledger rows). It returns how many
// it deleted and whether more may be left.
func (s *Store) PruneBatch(ctx context.Context, now time.Time, batch int) (deleted int64, more bool, err error) {
	for _, x := range expiring {
		n, err := s.pruneOne(ctx, x.collection, now.Add(-x.retention), batch)
		if err != nil {
			return deleted, true, err
		}
		deleted += n
		more = more || n == int64(batch)
	}
	for _, prune := range []func(context.Context, time.Time) (int64, error){s.pruneChats, s.pruneFirstDesignChats, s.pruneCallSlots} {
		n, err := prune(ctx, now)
		if err != nil {
			return deleted, true, err
		}
		deleted += n
	}
	return deleted, more, nil
}

func (s *Store) pruneOne(ctx context.Context, collection string, before time.Time, batch int) (int64, error) {
	col := s.db.Collection(collection)
	cur, err := col.Find(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: before}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(batch)))
	if err != nil {
		return 0, fmt.Errorf("mongodb: find expired %s: %w", collection, err)
	}
	var ids []struct {
		ID any `bson:"_id"`
	}
	if err := cur.All(ctx, &ids); err != nil {
		return 0, fmt.Errorf("mongodb: find expired %s: %w", collection, err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	in := make([]any, len(ids))
	for i, d := range ids {
		in[i] = d.ID
	}
	res, err := col.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: prune %s: %w", collection, err)
	}
	return res.DeletedCount, nil
}
