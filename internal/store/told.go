package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colTold holds, per chat and story (an incident, a maintenance, a
// component's trip away from operational: the event's order key), what
// the chat was told of it. One document per chat and order key (a new
// version at every step, the older deleted), so a chat has at most one per
// component and one per incident of the retention period.
const colTold = "told"

// ToldRetention is how long a story is remembered after its last step:
// longer than the ledger, so that a component down for weeks still brings
// its recovery to the chats that heard it go down.
const ToldRetention = HistoryRetention

// Told is what a chat was told of one story.
type Told struct {
	ID       string `bson:"_id"` // order_key|sub|<at> (order_key|sub before versions)
	OrderKey string `bson:"order_key"`
	Sub      string `bson:"sub"`
	// Open: the story goes on for the chat; false once it heard the end of
	// a component's episode (the next trip is another story). Incidents
	// stay open: their postmortem and corrections follow the resolution.
	Open bool `bson:"open"`
	// LastEvent and Seq are the last step the chat was told.
	LastEvent string    `bson:"last_event"`
	Seq       int       `bson:"seq,omitempty"`
	At        time.Time `bson:"at"`
	Buckets   Buckets   `bson:",inline" json:"-"`
}

func toldID(orderKey, sub string) string { return orderKey + "|" + sub }

func (s *Store) told() *mongo.Collection { return s.db.Collection(colTold) }

// ToldOf returns the records of one story for some chats: one round trip
// for a page (by order key and chat, an index: FerretDB is slow on long
// _id lists).
func (s *Store) ToldOf(ctx context.Context, orderKey string, subs []string) (map[string]Told, error) {
	out := map[string]Told{}
	if orderKey == "" || len(subs) == 0 {
		return out, nil
	}
	rows, err := findByKeys[Told](ctx, s.told(), "read what chats were told", bson.D{{Key: "order_key", Value: orderKey}}, "sub", subs)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		// A version written while the older was still there: the newest.
		if o, ok := out[r.Sub]; !ok || r.At.After(o.At) {
			out[r.Sub] = r
		}
	}
	return out, nil
}

// Step is one step of a story told to some chats.
type Step struct {
	OrderKey string `json:"order_key"`
	Event    string `json:"event"`
	Seq      int    `json:"seq,omitempty"`
	// Ends: the step ends the story for the chats (a component back to
	// operational).
	Ends bool `json:"ends,omitempty"`
}

// RecordTold records that the chats were told the step: a new version of
// each chat's record, then the older versions deleted (one insert, and a
// delete per bucket of the chats, as ToldOf reads them). FerretDB scans the collection for every
// update, even by _id or an index (a window's 50 replaces took seconds at
// a few thousand records); an insert it does not. Steps reach a chat in
// order, so the newest version is the newest step (ToldOf).
func (s *Store) RecordTold(ctx context.Context, step Step, subs []string, at time.Time) error {
	if step.OrderKey == "" || len(subs) == 0 {
		return nil
	}
	docs := make([]any, 0, len(subs))
	ids := make([]string, 0, len(subs))
	for _, sub := range subs {
		doc := Told{ID: toldVersionID(step.OrderKey, sub, at), OrderKey: step.OrderKey, Sub: sub, Open: !step.Ends, LastEvent: step.Event, Seq: step.Seq, At: at, Buckets: BucketsOf(sub)}
		docs, ids = append(docs, doc), append(ids, doc.ID)
	}
	if _, err := s.told().InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: record what chats were told: %w", err)
	}
	// The older versions, selected as ToldOf reads (by the story and the
	// chats' bucket, indexed): by the story alone the server would read
	// every chat's record of it (FerretDB on PostgreSQL: a 100,000 fan-out
	// slowed tenth by tenth).
	for _, f := range keyFilters(bson.D{{Key: "order_key", Value: step.OrderKey}}, "sub", subs) {
		f = append(f, bson.E{Key: "_id", Value: bson.D{{Key: "$nin", Value: ids}}})
		if _, err := s.told().DeleteMany(ctx, f); err != nil {
			return fmt.Errorf("mongodb: record what chats were told: %w", err)
		}
	}
	return nil
}

// toldVersionID names one version of a chat's record of a story.
func toldVersionID(orderKey, sub string, at time.Time) string {
	return toldID(orderKey, sub) + "|" + strconv.FormatInt(at.UnixNano(), 10)
}

// moveTold copies a chat's stories to the key it moved to (a group that
// became a supergroup keeps what it was told); the old ones expire.
func (s *Store) moveTold(ctx context.Context, oldKey, newKey string) error {
	rows, err := findAll[Told](ctx, s.told(), "read what a moving chat was told", bson.D{{Key: "sub", Value: oldKey}})
	if err != nil || len(rows) == 0 {
		return err
	}
	docs := make([]any, 0, len(rows))
	for _, r := range rows {
		r.Sub, r.ID, r.Buckets = newKey, toldVersionID(r.OrderKey, newKey, r.At), BucketsOf(newKey)
		docs = append(docs, r)
	}
	if _, err := s.told().InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: move what a chat was told: %w", err)
	}
	return nil
}
