package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colCleanup holds the channel messages the command bot deletes later:
// a command posted in a channel and the bot's reply, which the channel's
// readers did not ask for. Kept here rather than in memory so that a
// restart of the bot does not leave them posted for good.
const colCleanup = "channel_cleanup"

// PendingDeletion is one message to delete at Due.
type PendingDeletion struct {
	ChatID    int64     `bson:"chat_id"`
	MessageID int       `bson:"message_id"`
	Due       time.Time `bson:"due"`
	// Attempts counts deletions that failed for a reason that may pass.
	Attempts int `bson:"attempts"`
}

func cleanupID(chatID int64, messageID int) string {
	return strconv.FormatInt(chatID, 10) + ":" + strconv.Itoa(messageID)
}

// ScheduleDeletion records that messages of a chat are to be deleted at
// due (one round trip per message; scheduling one again moves its time).
func (s *Store) ScheduleDeletion(ctx context.Context, chatID int64, messageIDs []int, due time.Time) error {
	c := s.db.Collection(colCleanup)
	// BSON keeps milliseconds: rounded up, so that a deletion is never due
	// before its time.
	if t := due.Truncate(time.Millisecond); t.Before(due) {
		due = t.Add(time.Millisecond)
	}
	for _, id := range messageIDs {
		d := PendingDeletion{ChatID: chatID, MessageID: id, Due: due}
		_, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: cleanupID(chatID, id)}}, d, options.Replace().SetUpsert(true))
		if err != nil {
			return fmt.Errorf("mongodb: schedule a deletion: %w", err)
		}
	}
	return nil
}

// DueDeletions returns at most limit deletions due at now, oldest first.
func (s *Store) DueDeletions(ctx context.Context, now time.Time, limit int) ([]PendingDeletion, error) {
	cur, err := s.db.Collection(colCleanup).Find(ctx, bson.D{{Key: "due", Value: bson.D{{Key: "$lte", Value: now}}}},
		options.Find().SetSort(bson.D{{Key: "due", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("mongodb: read due deletions: %w", err)
	}
	var out []PendingDeletion
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("mongodb: read due deletions: %w", err)
	}
	return out, nil
}

// DeletionDone forgets a deletion: made, or impossible for good.
func (s *Store) DeletionDone(ctx context.Context, chatID int64, messageID int) error {
	_, err := s.db.Collection(colCleanup).DeleteOne(ctx, bson.D{{Key: "_id", Value: cleanupID(chatID, messageID)}})
	if err != nil {
		return fmt.Errorf("mongodb: forget a deletion: %w", err)
	}
	return nil
}

// PostponeDeletion moves a deletion that failed for now to due, counting
// the attempt.
func (s *Store) PostponeDeletion(ctx context.Context, d PendingDeletion, due time.Time) error {
	_, err := s.db.Collection(colCleanup).UpdateOne(ctx, bson.D{{Key: "_id", Value: cleanupID(d.ChatID, d.MessageID)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "due", Value: due}, {Key: "attempts", Value: d.Attempts + 1}}}})
	if err != nil {
		return fmt.Errorf("mongodb: postpone a deletion: %w", err)
	}
	return nil
}

// colChannelAdmins remembers, per user, the channels whose settings they
// changed from a private chat, for "/settings channels". Only a list to
// offer: the user's rights are checked again on every use.
const colChannelAdmins = "channel_admins"

// ManagedChannel is a channel a user configured from a private chat.
type ManagedChannel struct {
	UserID int64     `bson:"user_id"`
	ChatID int64     `bson:"chat_id"`
	Typed  string    `bson:"typed"` // "@name" or the ID
	Title  string    `bson:"title"`
	At     time.Time `bson:"at"`
}

// RememberChannel records (or refreshes) that a user configured a channel.
func (s *Store) RememberChannel(ctx context.Context, c ManagedChannel) error {
	id := strconv.FormatInt(c.UserID, 10) + ":" + strconv.FormatInt(c.ChatID, 10)
	_, err := s.db.Collection(colChannelAdmins).ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, c, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: remember a channel: %w", err)
	}
	return nil
}

// ManagedChannels lists at most limit channels a user configured, the
// latest first.
func (s *Store) ManagedChannels(ctx context.Context, userID int64, limit int) ([]ManagedChannel, error) {
	cur, err := s.db.Collection(colChannelAdmins).Find(ctx, bson.D{{Key: "user_id", Value: userID}},
		options.Find().SetSort(bson.D{{Key: "at", Value: -1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("mongodb: list a user's channels: %w", err)
	}
	var out []ManagedChannel
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("mongodb: list a user's channels: %w", err)
	}
	return out, nil
}
