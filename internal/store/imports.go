package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// An import of the previous bot's subscribers (internal/importer) must
// never undo what a chat did here: a chat that sent /stop, that removed
// the bot (or was removed after a 403) or that moved to a supergroup is
// not subscribed again. Kept settings and recorded moves expire, so every
// key an import has handled is also remembered in imported_subscribers,
// for good: a later run leaves such a key alone whatever became of it.
const colImported = "imported_subscribers"

// ImportState is what the bot knows of subscriber keys, for an import.
// Every map is keyed by subscriber key.
type ImportState struct {
	Subscribed map[string]bool
	Stopped    map[string]time.Time // settings kept: /stop, or the bot removed from the chat
	Moved      map[string]string    // to the new key: a group that became a supergroup
	Imported   map[string]time.Time // handled by an earlier import, at
}

// ImportState reads the keys of every subscription, kept subscription,
// recorded move and earlier import: one full read of each, keys only
// (an import reads all previous subscribers at once too).
func (s *Store) ImportState(ctx context.Context) (ImportState, error) {
	st := ImportState{Subscribed: map[string]bool{}, Stopped: map[string]time.Time{}, Moved: map[string]string{}, Imported: map[string]time.Time{}}
	subs, err := findAll[struct {
		Key          string `bson:"_id"`
		MigratedFrom string `bson:"migrated_from"`
	}](ctx, s.subs(), "import: read subscriptions", bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "migrated_from", Value: 1}}))
	if err != nil {
		return st, err
	}
	for _, sub := range subs {
		st.Subscribed[sub.Key] = true
		if sub.MigratedFrom != "" {
			st.Moved[sub.MigratedFrom] = sub.Key
		}
	}
	kept, err := findAll[struct {
		Key string    `bson:"_id"`
		At  time.Time `bson:"stopped_at"`
	}](ctx, s.kept(), "import: read kept subscriptions", bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "stopped_at", Value: 1}}))
	if err != nil {
		return st, err
	}
	for _, k := range kept {
		st.Stopped[k.Key] = k.At
	}
	moves, err := findAll[Migration](ctx, s.db.Collection(colMigrations), "import: read migrations", bson.D{})
	if err != nil {
		return st, err
	}
	for _, m := range moves {
		st.Moved[m.OldKey] = m.NewKey
	}
	done, err := findAll[importedKey](ctx, s.db.Collection(colImported), "import: read imported keys", bson.D{})
	if err != nil {
		return st, err
	}
	for _, d := range done {
		st.Imported[d.Key] = d.At
	}
	return st, nil
}

type importedKey struct {
	Key string    `bson:"_id"`
	At  time.Time `bson:"at"`
}

// ImportWrite is what ImportSubscribers did with a batch.
type ImportWrite struct {
	Written []string // created now
	Present []string // subscribed meanwhile (a /start during the import): left as it is
	Left    []string // stopped or moved meanwhile: not written
}

// ImportSubscribers writes a batch of imported subscriptions in one
// unordered insert. Keys stopped or moved since ImportState was read are
// left out, and a key subscribed meanwhile keeps its subscription.
func (s *Store) ImportSubscribers(ctx context.Context, subs []Subscriber) (ImportWrite, error) {
	var w ImportWrite
	if len(subs) == 0 {
		return w, nil
	}
	keys := make([]any, len(subs))
	for i, sub := range subs {
		keys[i] = sub.Key
	}
	// Both collections are small (stops of the last 30 days, moves): an
	// $in on _id is cheap even on FerretDB.
	left := map[string]bool{}
	for _, c := range []*mongo.Collection{s.kept(), s.db.Collection(colMigrations)} {
		ids, err := findAll[struct {
			Key string `bson:"_id"`
		}](ctx, c, "import: re-read stops and moves", bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return w, err
		}
		for _, id := range ids {
			left[id.Key] = true
		}
	}
	var docs []any
	var order []string
	for _, sub := range subs {
		if left[sub.Key] {
			w.Left = append(w.Left, sub.Key)
			continue
		}
		docs = append(docs, importDoc(sub))
		order = append(order, sub.Key)
	}
	if len(docs) == 0 {
		return w, nil
	}
	dup := map[int]bool{}
	if _, err := s.subs().InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
		var bwe mongo.BulkWriteException
		if !asBulk(err, &bwe) || !onlyDuplicates(err) {
			return w, fmt.Errorf("mongodb: import subscribers: %w", err)
		}
		for _, we := range bwe.WriteErrors {
			dup[we.Index] = true
		}
	}
	for i, key := range order {
		if dup[i] {
			w.Present = append(w.Present, key)
		} else {
			w.Written = append(w.Written, key)
		}
	}
	return w, nil
}

// importDoc is the subscription as Subscribe writes one (thread_id 0
// included), with the import's kinds, filter and settings.
func importDoc(sub Subscriber) bson.D {
	if sub.Kinds == nil {
		sub.Kinds = event.DefaultKinds
	}
	if sub.Components == nil {
		sub.Components = []string{}
	}
	doc := bson.D{
		{Key: "_id", Value: sub.Key},
		{Key: "chat_id", Value: sub.ChatID}, {Key: "thread_id", Value: sub.ThreadID},
		{Key: "kinds", Value: sub.Kinds}, {Key: "components", Value: sub.Components},
		{Key: "created_at", Value: sub.CreatedAt}, {Key: "settings", Value: sub.Settings},
		{Key: fieldReminderLead, Value: ReminderLeadOf(sub.Kinds, sub.Settings)},
		{Key: fieldPages, Value: pages.Followed(sub.Pages)},
	}
	b := BucketsOf(sub.Key)
	return append(doc, bson.E{Key: "b16", Value: b.B16}, bson.E{Key: "b128", Value: b.B128},
		bson.E{Key: "b1024", Value: b.B1024}, bson.E{Key: "b8192", Value: b.B8192})
}

// MarkImported records keys an import has handled (created, found here,
// or left alone because the chat left): a later import never creates them.
func (s *Store) MarkImported(ctx context.Context, keys []string, now time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	docs := make([]any, len(keys))
	for i, k := range keys {
		docs[i] = importedKey{Key: k, At: now}
	}
	if _, err := s.db.Collection(colImported).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: record imported keys: %w", err)
	}
	return nil
}
