// Package store keeps the bot's durable state in MongoDB: subscriptions,
// the poll checkpoint, the latest page snapshot, component history and the
// per-(event, subscriber) delivery ledger.
//
// Everything here works on real MongoDB and on FerretDB v1 (used locally and
// in CI): no transactions, no TTL indexes, no conditional $pull.
package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/config"
)

const (
	colCheckpoints   = "checkpoints"
	colSnapshots     = "snapshots"
	colSubscriptions = "subscriptions"
	colDeliveries    = "deliveries"
	colHistory       = "component_history"
	colBotState      = "bot_state"
	colMessages      = "messages"
	colRetries       = "delivery_retries"
	colMigrations    = "chat_migrations"

	checkpointID = "page"
	snapshotID   = "latest"

	// LedgerRetention is how long a delivery is remembered. Far longer than
	// any delivery can take to finish, so a late retry still finds it.
	LedgerRetention = 30 * 24 * time.Hour
	// HistoryRetention bounds component history; /uptime reads 30 days.
	HistoryRetention = 90 * 24 * time.Hour
)

// Store is safe for concurrent use.
type Store struct {
	client     *mongo.Client
	db         *mongo.Database
	roundTrips atomic.Int64
	tripsMu    sync.Mutex
	tripsBy    map[string]int64 // "command collection"
	chats      chatMemory       // chat_calls versions (chatcalls.go)
	// chatInserts and fateInserts write concurrent inserts into chat_calls
	// and fates together (groupinsert.go).
	chatInserts, fateInserts groupInsert
	// defaultPage is the page new chats follow (follows.go).
	defaultPage string
	// offered is the pages on offer (follows.go; nil: not set).
	offered []string
}

// Open connects, checks the server answers and creates collections and
// indexes (idempotently). The URI never appears in a returned error.
func Open(ctx context.Context, uri, database string) (*Store, error) {
	s := &Store{tripsBy: map[string]int64{}}
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) { s.countTrip(e) }}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetMonitor(mon).
		SetServerSelectionTimeout(10 * time.Second).SetAppName("openai-status-bot"))
	if err != nil {
		// The driver's error names hosts (a mongodb+srv name that does not
		// resolve) and what it could not read; credentials are cut out.
		return nil, errors.New("mongodb: MONGODB_URI: " + config.MongoURIError(err, uri))
	}
	s.client, s.db = client, client.Database(database)
	if err := s.Ping(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	if err := s.ensureIndexes(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("mongodb: create indexes: %w", err)
	}
	if err := s.fillReminderLeads(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	if err := s.fillPageBuckets(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	if err := s.fillFollows(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	return s, nil
}

// RoundTrips counts commands sent to the server since Open.
func (s *Store) RoundTrips() int64 { return s.roundTrips.Load() }

// RoundTripsBy counts the round trips so far by command and collection
// ("find chat_calls"): what a benchmark's per-message cost is made of.
func (s *Store) RoundTripsBy() map[string]int64 {
	s.tripsMu.Lock()
	defer s.tripsMu.Unlock()
	return maps.Clone(s.tripsBy)
}

func (s *Store) countTrip(e *event.CommandStartedEvent) {
	s.roundTrips.Add(1)
	name := e.CommandName
	if v, err := e.Command.IndexErr(0); err == nil {
		if coll, ok := v.Value().StringValueOK(); ok {
			name += " " + coll
		}
	}
	s.tripsMu.Lock()
	s.tripsBy[name]++
	s.tripsMu.Unlock()
}

// Ping checks that the server answers.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.client.Ping(ctx, nil); err != nil {
		return fmt.Errorf("mongodb: ping: %w", err)
	}
	return nil
}

// Close disconnects, waiting at most timeout.
func (s *Store) Close(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return s.client.Disconnect(ctx)
}

func (s *Store) ensureIndexes(ctx context.Context) error {
	idx := map[string][]mongo.IndexModel{
		colDeliveries: append([]mongo.IndexModel{
			{Keys: bson.D{{Key: "event", Value: 1}, {Key: "sub", Value: 1}}},
			{Keys: bson.D{{Key: "at", Value: 1}}},
		}, bucketIndexes("event")...),
		colHistory: {
			{Keys: bson.D{{Key: "component_id", Value: 1}, {Key: "at", Value: 1}}},
		},
		colSubscriptions: append([]mongo.IndexModel{
			{Keys: bson.D{{Key: "chat_id", Value: 1}}},
			{Keys: bson.D{{Key: "migrated_from", Value: 1}}},
			{Keys: bson.D{{Key: "migrated", Value: 1}}},
			// Reminders read only the chats whose lead they are for.
			{Keys: bson.D{{Key: "reminder_lead", Value: 1}, {Key: "_id", Value: 1}}},
		}, append(bucketIndexes(""), followerIndexes()...)...),
		colRetries: {
			{Keys: bson.D{{Key: "event", Value: 1}, {Key: "next_at", Value: 1}}},
			{Keys: bson.D{{Key: "order_key", Value: 1}, {Key: "sub", Value: 1}}},
			{Keys: bson.D{{Key: "at", Value: 1}}},
		},
		colMigrations: {
			{Keys: bson.D{{Key: "at", Value: 1}}},
		},
		colCards: append([]mongo.IndexModel{
			{Keys: bson.D{{Key: "at", Value: 1}}},
		}, bucketIndexes("incident")...),
		colCleanup: {
			{Keys: bson.D{{Key: "due", Value: 1}}},
		},
		colChannelAdmins: {
			{Keys: bson.D{{Key: "user_id", Value: 1}, {Key: "at", Value: 1}}},
		},
		colFates: {
			{Keys: bson.D{{Key: "sub", Value: 1}, {Key: "at", Value: 1}}},
			{Keys: bson.D{{Key: "at", Value: 1}}},
		},
		colHeld: heldIndexes,
		colCardNotes: {
			{Keys: bson.D{{Key: "incident", Value: 1}, {Key: "sub", Value: 1}}},
			{Keys: bson.D{{Key: "at", Value: 1}}},
		},
		colChatCalls: {
			{Keys: bson.D{{Key: "at", Value: 1}}},
			{Keys: bson.D{{Key: "chat", Value: 1}, {Key: "v", Value: -1}}},
		},
		colCallSlots: {
			{Keys: bson.D{{Key: "at", Value: 1}}},
		},
		colTold: append([]mongo.IndexModel{
			{Keys: bson.D{{Key: "order_key", Value: 1}, {Key: "sub", Value: 1}}},
			{Keys: bson.D{{Key: "sub", Value: 1}}},
			{Keys: bson.D{{Key: "at", Value: 1}}},
		}, bucketIndexes("order_key")...),
		colPageNotices: {
			{Keys: bson.D{{Key: "sub", Value: 1}}},
			{Keys: bson.D{{Key: "at", Value: 1}}},
		},
	}
	for _, name := range []string{colDeliveries, colHistory, colSubscriptions, colRetries, colMigrations, colCards, colCardNotes, colFates, colHeld, colTold, colCleanup, colChannelAdmins, colChatCalls, colCallSlots, colPageNotices} {
		iv := s.db.Collection(name).Indexes()
		specs, err := iv.ListSpecifications(ctx)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, sp := range specs {
			have[sp.Name] = true
		}
		// Create only the missing ones: FerretDB v1 drops the connection
		// when asked to create an index that exists.
		var missing []mongo.IndexModel
		for _, m := range idx[name] {
			if !have[indexName(m.Keys.(bson.D))] {
				missing = append(missing, m)
			}
		}
		if len(missing) > 0 {
			if _, err := iv.CreateMany(ctx, missing); err != nil {
				return err
			}
		}
	}
	return nil
}

// indexName is the server's default name: field_1_other_1.
func indexName(keys bson.D) string {
	name := ""
	for i, k := range keys {
		if i > 0 {
			name += "_"
		}
		name += fmt.Sprintf("%s_%v", k.Key, k.Value)
	}
	return name
}

// SubscriberKey is "chatID" or "chatID:threadID" for a forum topic.
func SubscriberKey(chatID int64, threadID int) string {
	if threadID == 0 {
		return strconv.FormatInt(chatID, 10)
	}
	return strconv.FormatInt(chatID, 10) + ":" + strconv.Itoa(threadID)
}

func asBulk(err error, target *mongo.BulkWriteException) bool { return errors.As(err, target) }

// findOne reads the one document of filter; nil when there is none.
func findOne[T any](ctx context.Context, c *mongo.Collection, what string, filter any) (*T, error) {
	var out T
	err := c.FindOne(ctx, filter).Decode(&out)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: %s: %w", what, err)
	}
	return &out, nil
}

// findAll runs a find and reads every document; what names the read in
// the error ("mongodb: <what>: ...").
func findAll[T any](ctx context.Context, c *mongo.Collection, what string, filter any, opts ...options.Lister[options.FindOptions]) ([]T, error) {
	cur, err := c.Find(ctx, filter, opts...)
	if err != nil {
		return nil, fmt.Errorf("mongodb: %s: %w", what, err)
	}
	var out []T
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("mongodb: %s: %w", what, err)
	}
	return out, nil
}
