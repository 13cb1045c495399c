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

// offsetID is the bot_state document holding the long-poll position.
const offsetID = "telegram_offset"

type offsetDoc struct {
	ID string `bson:"_id"`
	// UpdateID is the highest update ID such that it and every update
	// before it were handled: the next getUpdates asks for UpdateID+1.
	UpdateID int64     `bson:"update_id"`
	At       time.Time `bson:"at"`
}

// LastUpdateID returns the ID of the last Telegram update the command bot
// handled, and false when none was recorded yet.
func (s *Store) LastUpdateID(ctx context.Context) (int64, bool, error) {
	var d offsetDoc
	err := s.db.Collection(colBotState).FindOne(ctx, bson.D{{Key: "_id", Value: offsetID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("mongodb: read update offset: %w", err)
	}
	return d.UpdateID, true, nil
}

// SaveLastUpdateID records the last handled update ID (one round trip).
// The last write wins: Telegram may restart its IDs after a quiet week, so
// the value is not forced to grow.
func (s *Store) SaveLastUpdateID(ctx context.Context, id int64, now time.Time) error {
	_, err := s.db.Collection(colBotState).ReplaceOne(ctx, bson.D{{Key: "_id", Value: offsetID}},
		offsetDoc{ID: offsetID, UpdateID: id, At: now}, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: save update offset: %w", err)
	}
	return nil
}
