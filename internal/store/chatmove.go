package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A group that becomes a supergroup gets a new chat ID. Everything the
// store keeps of a chat follows it by one routine (moveChat, called by
// MigrateChatAt), and chatRecords says, for every collection of the store,
// how its records of a chat move, or why it holds none: a collection added
// without an entry fails TestEveryCollectionSaysHowAChatMoves.

// chatRule is how one collection's records of a chat follow the chat.
type chatRule struct {
	// byKey moves the records of one subscription key (chat and topic).
	byKey func(s *Store, ctx context.Context, oldKey, newKey string, now time.Time) error
	// byChat moves (or drops) the records of a chat ID.
	byChat func(s *Store, ctx context.Context, oldChat, newChat int64) error
	// why is the reason for a collection moved by neither.
	why string
}

var chatRecords = map[string]chatRule{
	colSubscriptions: {why: "moved by MigrateChatAt itself: inserted at the new key, the move recorded, then deleted"},
	colMigrations:    {why: "the record of the move, by the old key"},
	colKept:          {byChat: (*Store).moveKept},
	colTold:          {byKey: func(s *Store, ctx context.Context, o, n string, _ time.Time) error { return s.moveTold(ctx, o, n) }},
	colHeld:          {byKey: (*Store).moveHeld},
	colFates:         {byKey: (*Store).moveFates},
	colChatCalls: {why: "the old chat's queue of calls: each call waiting in it is to a chat that no longer takes messages; " +
		"it answers \"migrated\" and its delivery takes a turn in the supergroup's queue; the old versions go once quiet (closeQuietChats)"},
	colCleanup: {byChat: (*Store).dropDeletions},
	colCards: {why: "the card's message is in the old group, whose message IDs the supergroup does not share: " +
		"the supergroup gets a fresh card (activities.movedTo); the old one ages out"},
	colCardNotes:     {why: "notes of the old group's card (see incident_cards)"},
	colDeliveries:    {why: "a delivery under way finds the move in chat_migrations (MigratedTwins, MigrationsBetween) and skips the old key"},
	colRetries:       {why: "a retry names the old key; its delivery follows the move (MigrationOf) when it comes due"},
	colChannelAdmins: {why: "channels a user manages; a channel never becomes a supergroup"},
	colCallSlots:     {why: "the bot's global call budget, no chat's"},
	colCheckpoints:   {why: "a page's, no chat's"},
	colSnapshots:     {why: "a page's, no chat's"},
	colHistory:       {why: "a page's components, no chat's"},
	colMessages:      {why: "notices by event key, no chat's"},
	colBotState:      {why: "the bot's own state (update offsets), no chat's"},
	colImported: {why: "the keys an import handled, so that a later import never brings a chat back: " +
		"the old key stays recorded, and its move is in chat_migrations, which the import reads too"},
	colPages:       {why: "the pages on offer, no chat's"},
	colPageNotices: {byKey: (*Store).movePageClaims},
}

// moveChat moves a chat's records in every collection that has some: those
// by key for each of keys (old key to new), then those by chat ID (the
// kept settings, where keys of stopped subscriptions were found: a move
// cut short and run again still finds them).
func (s *Store) moveChat(ctx context.Context, oldChat, newChat int64, keys map[string]string, now time.Time) error {
	for name, rule := range chatRecords {
		for o, n := range keys {
			if rule.byKey == nil {
				break
			}
			if err := rule.byKey(s, ctx, o, n, now); err != nil {
				return fmt.Errorf("move chat (%s): %w", name, err)
			}
		}
	}
	for name, rule := range chatRecords {
		if rule.byChat != nil {
			if err := rule.byChat(s, ctx, oldChat, newChat); err != nil {
				return fmt.Errorf("move chat (%s): %w", name, err)
			}
		}
	}
	return nil
}

// CurrentKey is where the subscription at key lives now: key, or the key
// its group's supergroup has (following moves, a few at most).
func (s *Store) CurrentKey(ctx context.Context, key string) (string, error) {
	for range 4 {
		m, err := s.MigrationOf(ctx, key)
		if err != nil || m == nil {
			return key, err
		}
		key = m.NewKey
	}
	return key, nil
}

// moveKept moves the settings kept after /stop: /start in the supergroup
// restores them.
func (s *Store) moveKept(ctx context.Context, oldChat, newChat int64) error {
	rows, err := findAll[Kept](ctx, s.kept(), "read kept settings of a moving chat", bson.D{{Key: "chat_id", Value: oldChat}})
	if err != nil {
		return err
	}
	for _, k := range rows {
		old := k.Key
		k.ChatID, k.Key, k.MigratedFrom = newChat, SubscriberKey(newChat, k.ThreadID), old
		k.Buckets = BucketsOf(k.Key)
		if _, err := s.kept().InsertOne(ctx, k); err != nil && !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("mongodb: move kept settings: %w", err)
		}
		if _, err := s.kept().DeleteOne(ctx, bson.D{{Key: "_id", Value: old}}); err != nil {
			return fmt.Errorf("mongodb: move kept settings: %w", err)
		}
	}
	return nil
}

// moveHeld moves the notices held for the morning summary: the summary of
// the window goes to the supergroup (CurrentKey). The marks of a summary
// under way (CloseWindow, ClaimHeld, Unhold) stay behind with the old key:
// the supergroup's summary closes and claims afresh.
func (s *Store) moveHeld(ctx context.Context, oldKey, newKey string, _ time.Time) error {
	rows, err := findAll[Held](ctx, s.db.Collection(colHeld), "read held notices of a moving chat",
		bson.D{{Key: "sub", Value: oldKey}, {Key: "mark", Value: bson.D{{Key: "$exists", Value: false}}}})
	if err != nil || len(rows) == 0 {
		return err
	}
	docs := make([]any, 0, len(rows))
	for _, h := range rows {
		h.Sub, h.ID = newKey, heldID(h.Window, h.Event, newKey)
		docs = append(docs, h)
	}
	return s.insertThenDelete(ctx, colHeld, "held notices", docs, oldKey)
}

// moveFates moves what /why tells.
func (s *Store) moveFates(ctx context.Context, oldKey, newKey string, _ time.Time) error {
	rows, err := findAll[Fate](ctx, s.db.Collection(colFates), "read the fates of a moving chat", bson.D{{Key: "sub", Value: oldKey}})
	if err != nil || len(rows) == 0 {
		return err
	}
	docs := make([]any, 0, len(rows))
	for _, f := range rows {
		rest := strings.TrimPrefix(f.ID, fateID(f.Event, oldKey))
		f.Sub, f.ID = newKey, fateID(f.Event, newKey)+rest
		docs = append(docs, f)
	}
	return s.insertThenDelete(ctx, colFates, "fates", docs, oldKey)
}

// insertThenDelete writes the moved copies, then deletes the old key's:
// a crash between leaves both, never neither, and a second run redoes it.
func (s *Store) insertThenDelete(ctx context.Context, coll, what string, docs []any, oldKey string) error {
	if _, err := s.db.Collection(coll).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: move %s: %w", what, err)
	}
	if _, err := s.db.Collection(coll).DeleteMany(ctx, bson.D{{Key: "sub", Value: oldKey}}); err != nil {
		return fmt.Errorf("mongodb: move %s: %w", what, err)
	}
	return nil
}

// dropDeletions forgets deletions planned in the old chat: its message IDs
// are not the supergroup's (deleting them there would delete others).
func (s *Store) dropDeletions(ctx context.Context, oldChat, _ int64) error {
	if _, err := s.db.Collection(colCleanup).DeleteMany(ctx, bson.D{{Key: "chat_id", Value: oldChat}}); err != nil {
		return fmt.Errorf("mongodb: drop the old chat's deletions: %w", err)
	}
	return nil
}

// MovedInto reports whether a group's records moved into chatID (it is the
// supergroup a group became): the bot does not greet it as a new group.
func (s *Store) MovedInto(ctx context.Context, chatID int64) (bool, error) {
	key := SubscriberKey(chatID, 0)
	m, err := findOne[Migration](ctx, s.db.Collection(colMigrations), "read moves into a chat", bson.D{{Key: "new_key", Value: key}})
	if err != nil || m != nil {
		return m != nil, err
	}
	// MigrateChatAt inserts the supergroup's subscription before it
	// records the move: in between, the subscription says so itself.
	sub, err := findOne[Subscriber](ctx, s.subs(), "read moves into a chat", bson.D{{Key: "_id", Value: key}, {Key: "migrated_from", Value: bson.D{{Key: "$exists", Value: true}}}})
	if err != nil || sub != nil {
		return sub != nil, err
	}
	k, err := findOne[Kept](ctx, s.kept(), "read moves into a chat", bson.D{{Key: "chat_id", Value: chatID}, {Key: "migrated_from", Value: bson.D{{Key: "$exists", Value: true}}}})
	return k != nil, err
}
