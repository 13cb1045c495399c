package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Subscriber is one subscribed chat or forum topic.
type Subscriber struct {
	Key        string       `bson:"_id" json:"key"`
	ChatID     int64        `bson:"chat_id" json:"chat_id"`
	ThreadID   int          `bson:"thread_id,omitempty" json:"thread_id,omitempty"`
	Kinds      []event.Kind `bson:"kinds" json:"kinds"`
	Components []string     `bson:"components" json:"components"`
	CreatedAt  time.Time    `bson:"created_at" json:"created_at"`
	Settings   Settings     `bson:"settings,omitempty" json:"settings,omitempty"`
	// LeadMinutes is the effective reminder lead (ReminderLeadOf), kept by
	// the store for the reminder queries (reminders.go).
	LeadMinutes int `bson:"reminder_lead" json:"reminder_lead,omitempty"`
	// MigratedFrom is the key this subscription had before its group became
	// a supergroup, at MigratedAt.
	MigratedFrom string    `bson:"migrated_from,omitempty" json:"migrated_from,omitempty"`
	MigratedAt   time.Time `bson:"migrated_at,omitempty" json:"migrated_at,omitempty"`
	// Migrated marks a subscription with a MigratedFrom: an equality the
	// twin read (MigratedTwins) can select by on FerretDB.
	Migrated bool `bson:"migrated,omitempty" json:"-"`
	// Pages are the pages the chat follows as events name them ("" the
	// legacy page; follows.go). None stored (a subscription from before
	// pages): the legacy page, and start-up fills the field in.
	Pages   []string `bson:"pages,omitempty" json:"pages,omitempty"`
	Buckets Buckets  `bson:",inline" json:"-"`
}

// ErrNotSubscribed is returned when a chat has no subscription.
var ErrNotSubscribed = errors.New("not subscribed")

func (s *Store) subs() *mongo.Collection { return s.db.Collection(colSubscriptions) }

// ListSubscribers returns up to limit subscribers from the cursor on and
// the cursor for the next page ("" when done): in bucket order from ""
// (buckets.go: each page reads a few buckets, whatever the number of
// subscribers), in key order from a key (a paging begun before buckets).
func (s *Store) ListSubscribers(ctx context.Context, after string, limit int) ([]Subscriber, string, error) {
	if after == "" || isBucketCursor(after) {
		return s.pageByBuckets(ctx, after, limit)
	}
	return s.pageSubscribers(ctx, "list subscribers", bson.D{}, after, limit)
}

// pageSubscribers reads up to limit subscribers matching filter with keys
// after the cursor, in key order, and the cursor for the next page.
func (s *Store) pageSubscribers(ctx context.Context, what string, filter bson.D, after string, limit int, opts ...options.Lister[options.FindOptions]) ([]Subscriber, string, error) {
	if after != "" {
		filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$gt", Value: after}}})
	}
	opts = append([]options.Lister[options.FindOptions]{options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit))}, opts...)
	out, err := findAll[Subscriber](ctx, s.subs(), what, filter, opts...)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) == limit {
		next = out[len(out)-1].Key
	}
	return out, next, nil
}

// Subscribe creates the subscription with the default kinds, following the
// default page (SetDefaultPage), or keeps an existing one as it is. It
// reports whether it was created.
func (s *Store) Subscribe(ctx context.Context, chatID int64, threadID int, now time.Time) (bool, error) {
	key := SubscriberKey(chatID, threadID)
	res, err := s.subs().UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},
		bson.D{{Key: "$setOnInsert", Value: bson.D{
			{Key: "chat_id", Value: chatID}, {Key: "thread_id", Value: threadID},
			{Key: "kinds", Value: event.DefaultKinds}, {Key: "components", Value: []string{}},
			{Key: "created_at", Value: now}, {Key: "settings", Value: Settings{Mode: ModeCards}},
			{Key: fieldReminderLead, Value: ReminderLeadOf(event.DefaultKinds, Settings{Mode: ModeCards})},
			{Key: fieldPages, Value: []string{s.newChatPage()}},
		}}, {Key: "$set", Value: BucketsOf(key)}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return false, fmt.Errorf("mongodb: subscribe: %w", err)
	}
	return res.UpsertedCount == 1, nil
}

// Unsubscribe deletes the subscription; ErrNotSubscribed if there was none.
func (s *Store) Unsubscribe(ctx context.Context, key string) error {
	res, err := s.subs().DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
	if err != nil {
		return fmt.Errorf("mongodb: unsubscribe: %w", err)
	}
	if res.DeletedCount == 0 {
		return ErrNotSubscribed
	}
	return nil
}

// UnsubscribeChat deletes the chat's subscription and all its topics'.
func (s *Store) UnsubscribeChat(ctx context.Context, chatID int64) (int64, error) {
	res, err := s.subs().DeleteMany(ctx, bson.D{{Key: "chat_id", Value: chatID}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: unsubscribe chat: %w", err)
	}
	return res.DeletedCount, nil
}

// Subscription returns ErrNotSubscribed when there is none.
func (s *Store) Subscription(ctx context.Context, key string) (*Subscriber, error) {
	var sub Subscriber
	err := s.subs().FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&sub)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, ErrNotSubscribed
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: read subscription: %w", err)
	}
	return &sub, nil
}

// Subscriptions returns those of the keys that are subscribed (by bucket:
// an $in on _id makes FerretDB decode every subscription).
func (s *Store) Subscriptions(ctx context.Context, keys []string) ([]Subscriber, error) {
	return findByKeys[Subscriber](ctx, s.subs(), "read subscriptions", bson.D{}, "_id", keys)
}

// SetKinds replaces the subscription's kinds (and so its reminder lead).
func (s *Store) SetKinds(ctx context.Context, key string, kinds []event.Kind) error {
	return s.changeLeadInputs(ctx, key, bson.D{{Key: "$set", Value: bson.D{{Key: "kinds", Value: kinds}}}})
}

// SetComponents replaces the component filter (empty: every component).
// Callers read, change and write the list: FerretDB ignores conditional $pull.
func (s *Store) SetComponents(ctx context.Context, key string, ids []string) error {
	if ids == nil {
		ids = []string{}
	}
	return s.updateSub(ctx, key, bson.D{{Key: "$set", Value: bson.D{{Key: "components", Value: ids}}}})
}

// ReplaceSettings replaces a subscription's settings whole (and so its
// reminder lead).
func (s *Store) ReplaceSettings(ctx context.Context, key string, settings Settings) error {
	return s.changeLeadInputs(ctx, key, bson.D{{Key: "$set", Value: bson.D{{Key: "settings", Value: settings}}}})
}

func (s *Store) updateSub(ctx context.Context, key string, upd bson.D) error {
	res, err := s.subs().UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, upd)
	if err != nil {
		return fmt.Errorf("mongodb: update subscription: %w", err)
	}
	if res.MatchedCount == 0 {
		return ErrNotSubscribed
	}
	return nil
}

// MigrateChat moves every subscription of a group to its new supergroup ID,
// keeping settings. A subscription already present at the new ID wins.
func (s *Store) MigrateChat(ctx context.Context, oldChatID, newChatID int64) error {
	_, err := s.MigrateChatAt(ctx, oldChatID, newChatID, time.Now())
	return err
}

// Migration records that the subscription at OldKey moved to NewKey: a
// delivery paging subscribers by key finds it at the old position.
type Migration struct {
	OldKey string    `bson:"_id"`
	NewKey string    `bson:"new_key"`
	At     time.Time `bson:"at"`
}

// MigrateChatAt is MigrateChat at a given time. It reports the new keys
// that were subscribed on their own before (not by an earlier migration of
// this group): those get their notifications through their own
// subscription.
func (s *Store) MigrateChatAt(ctx context.Context, oldChatID, newChatID int64, now time.Time) (independent map[string]bool, err error) {
	olds, err := findAll[Subscriber](ctx, s.subs(), "migrate chat", bson.D{{Key: "chat_id", Value: oldChatID}})
	if err != nil {
		return nil, err
	}
	independent = map[string]bool{}
	keys := map[string]string{}
	for _, o := range olds {
		keys[o.Key] = SubscriberKey(newChatID, o.ThreadID)
	}
	kept, err := findAll[Kept](ctx, s.kept(), "migrate chat", bson.D{{Key: "chat_id", Value: oldChatID}})
	if err != nil {
		return nil, err
	}
	for _, k := range kept {
		keys[k.Key] = SubscriberKey(newChatID, k.ThreadID)
	}
	// Everything else the store keeps of the chat first (chatmove.go):
	// once the subscription is gone from the old key, a retry of this
	// move would no longer find it.
	if err := s.moveChat(ctx, oldChatID, newChatID, keys, now); err != nil {
		return nil, err
	}
	for _, o := range olds {
		n := o
		n.ChatID = newChatID
		n.Key = SubscriberKey(newChatID, o.ThreadID)
		n.MigratedFrom, n.MigratedAt, n.Migrated, n.Buckets = o.Key, now, true, BucketsOf(n.Key)
		n.LeadMinutes = ReminderLeadOf(n.Kinds, n.Settings)
		n.Pages = pages.Followed(o.Pages)
		// Insert first, then record the move, then delete: a crash in
		// between leaves a duplicate subscription at most, never a lost one
		// (deliveries skip the old one once the new one exists).
		if _, err := s.subs().InsertOne(ctx, n); err != nil {
			if !mongo.IsDuplicateKeyError(err) {
				return nil, fmt.Errorf("mongodb: migrate chat: %w", err)
			}
			have, err := s.Subscription(ctx, n.Key)
			if err != nil && !errors.Is(err, ErrNotSubscribed) {
				return nil, err
			}
			if have != nil && have.MigratedFrom != o.Key {
				independent[n.Key] = true
			}
		}
		m := Migration{OldKey: o.Key, NewKey: n.Key, At: now}
		if _, err := s.db.Collection(colMigrations).ReplaceOne(ctx, bson.D{{Key: "_id", Value: o.Key}}, m, options.Replace().SetUpsert(true)); err != nil {
			return nil, fmt.Errorf("mongodb: migrate chat: %w", err)
		}
		if _, err := s.subs().DeleteOne(ctx, bson.D{{Key: "_id", Value: o.Key}}); err != nil {
			return nil, fmt.Errorf("mongodb: migrate chat: %w", err)
		}
	}
	return independent, nil
}

// MigrationsBetween returns the moves recorded after since whose old key
// lies in (after, upTo] ("" upTo: no upper bound), two page cursors: in
// bucket order for bucket cursors, else in key order.
func (s *Store) MigrationsBetween(ctx context.Context, after, upTo string, since time.Time) ([]Migration, error) {
	if isBucketCursor(after) || isBucketCursor(upTo) {
		return s.migrationsInBuckets(ctx, after, upTo, since)
	}
	rng := bson.D{{Key: "$gt", Value: after}}
	if upTo != "" {
		rng = append(rng, bson.E{Key: "$lte", Value: upTo})
	}
	out, err := findAll[Migration](ctx, s.db.Collection(colMigrations), "read migrations", bson.D{{Key: "_id", Value: rng}, {Key: "at", Value: bson.D{{Key: "$gt", Value: since}}}})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// migrationsInBuckets: moves are few (groups becoming supergroups), so all
// those after since are read and placed by their old key's bucket.
func (s *Store) migrationsInBuckets(ctx context.Context, after, upTo string, since time.Time) ([]Migration, error) {
	var from, to *pagePos
	for _, c := range []struct {
		cursor string
		pos    **pagePos
	}{{after, &from}, {upTo, &to}} {
		if c.cursor != "" {
			p, err := parsePagePos(c.cursor)
			if err != nil {
				return nil, err
			}
			*c.pos = &p
		}
	}
	all, err := findAll[Migration](ctx, s.db.Collection(colMigrations), "read migrations", bson.D{{Key: "at", Value: bson.D{{Key: "$gt", Value: since}}}})
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, m := range all {
		if (from == nil || !from.covers(m.OldKey)) && (to == nil || to.covers(m.OldKey)) {
			out = append(out, m)
		}
	}
	return out, nil
}

// MigrationOf returns where the subscription at oldKey moved, or nil.
func (s *Store) MigrationOf(ctx context.Context, oldKey string) (*Migration, error) {
	return findOne[Migration](ctx, s.db.Collection(colMigrations), "read migration", bson.D{{Key: "_id", Value: oldKey}})
}

// MigratedTwins returns the subscriptions that were migrated from any of
// the keys, by old key.
func (s *Store) MigratedTwins(ctx context.Context, oldKeys []string) (map[string]Subscriber, error) {
	out := map[string]Subscriber{}
	if len(oldKeys) == 0 {
		return out, nil
	}
	// By the migrated flag, an equality: FerretDB would decode every
	// subscription for the $in alone. Moves are rare.
	subs, err := findAll[Subscriber](ctx, s.subs(), "read migrated subscriptions",
		bson.D{{Key: "migrated", Value: true}, {Key: "migrated_from", Value: bson.D{{Key: "$in", Value: oldKeys}}}})
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		out[sub.MigratedFrom] = sub
	}
	return out, nil
}

// RemapComponentFilters replaces component IDs in subscribers' filters
// (old -> new) and returns how many subscriptions changed. One read and
// one bulk write, whatever the number of subscribers.
func (s *Store) RemapComponentFilters(ctx context.Context, renames map[string]string) (int, error) {
	if len(renames) == 0 {
		return 0, nil
	}
	old := make([]string, 0, len(renames))
	for id := range renames {
		old = append(old, id)
	}
	subs, err := findAll[Subscriber](ctx, s.subs(), "find component filters", bson.D{{Key: "components", Value: bson.D{{Key: "$in", Value: old}}}},
		options.Find().SetProjection(bson.D{{Key: "components", Value: 1}}))
	if err != nil {
		return 0, err
	}
	var models []mongo.WriteModel
	for _, sub := range subs {
		models = append(models, mongo.NewUpdateOneModel().
			SetFilter(bson.D{{Key: "_id", Value: sub.Key}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "components", Value: RemapFilter(sub.Components, renames)}}}}))
	}
	if len(models) == 0 {
		return 0, nil
	}
	if _, err := s.subs().BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
		return 0, fmt.Errorf("mongodb: remap component filters: %w", err)
	}
	return len(models), nil
}

// RemapFilter maps a filter's IDs, keeping its order and dropping repeats.
func RemapFilter(filter []string, renames map[string]string) []string {
	out := make([]string, 0, len(filter))
	seen := map[string]bool{}
	for _, id := range filter {
		if n, ok := renames[id]; ok {
			id = n
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
