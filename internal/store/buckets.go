package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Page buckets. FerretDB v1 hands its storage equality filters only: a
// range (`_id > cursor`), an $in or a sort is applied after it has read
// and decoded every document the equalities let through. Paging a
// fan-out by `_id` decoded the whole subscriptions collection for every
// page of 500, and a page's ledger read (`event` =, `sub` $in) every entry
// the delivery had written so far: a 100,000 fan-out slowed down as it
// went. So every per-subscriber document (subscription, ledger entry, what
// a chat was told, incident card) carries its key's bucket at four
// granularities, b16 ... b8192 (a hash of the key), and the delivery's
// reads are equalities on one of them: each decodes one bucket, whatever
// the number of subscribers. On MongoDB they are index lookups too.
var bucketLevels = []int{16, 128, 1024, 8192}

// Buckets are a key's buckets, stored inline in each document.
type Buckets struct {
	B16   int `bson:"b16"`
	B128  int `bson:"b128"`
	B1024 int `bson:"b1024"`
	B8192 int `bson:"b8192"`
}

// BucketsOf are the buckets of a subscriber key.
func BucketsOf(key string) Buckets {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	v := h.Sum32()
	return Buckets{B16: int(v % 16), B128: int(v % 128), B1024: int(v % 1024), B8192: int(v % 8192)}
}

// bucketOf is the key's bucket at a level (1: the single bucket).
func bucketOf(key string, level int) int {
	if level <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % uint32(level))
}

func bucketField(level int) string { return "b" + strconv.Itoa(level) }

// bucketIndexes are the indexes that serve the bucket reads: one per level
// on subscriptions (the pages), and one on prefix plus every level for a
// per-event collection (on FerretDB's PostgreSQL the GIN companion of such
// an index answers the prefix with any one level; MongoDB keeps using the
// (prefix, sub) index for the reads, which also name the keys).
func bucketIndexes(prefix string) []mongo.IndexModel {
	if prefix == "" {
		var out []mongo.IndexModel
		for _, l := range bucketLevels {
			out = append(out, mongo.IndexModel{Keys: bson.D{{Key: bucketField(l), Value: 1}, {Key: "_id", Value: 1}}})
		}
		return out
	}
	keys := bson.D{{Key: prefix, Value: 1}}
	for _, l := range bucketLevels {
		keys = append(keys, bson.E{Key: bucketField(l), Value: 1})
	}
	return []mongo.IndexModel{{Keys: keys}}
}

// maxGroups bounds the buckets a read by keys spans: a page's keys fall in
// a few buckets of its level; keys from all over (a retry round's) are
// read a few at a time at the finest level instead.
const maxGroups = 8

// denseGroup: keys that average this many a bucket are read a bucket at a
// time however many buckets they span (a read decodes one bucket, and
// there are at most a sixteenth as many reads as keys).
const denseGroup = 16

// groupKeys splits keys by bucket at the finest level where they fall in
// at most maxGroups buckets, or else at the finest level (about one key a
// read: each reads a bucket of N/8192 documents). A coarser level that
// takes a quarter of the reads or fewer wins: it decodes the same
// documents (a bucket holds the finer ones of its residue) in fewer trips.
func groupKeys(keys []string) (level int, groups map[int][]string) {
	at := func(level int) map[int][]string {
		g := map[int][]string{}
		for _, k := range keys {
			b := bucketOf(k, level)
			g[b] = append(g[b], k)
		}
		return g
	}
	i := len(bucketLevels) - 1
	groups = at(bucketLevels[i])
	for j := i; j >= 0; j-- {
		if g := at(bucketLevels[j]); len(g) <= maxGroups {
			i, groups = j, g
			break
		}
	}
	for i > 0 {
		g := at(bucketLevels[i-1])
		if len(g) > len(groups)/4 {
			break
		}
		i, groups = i-1, g
	}
	return bucketLevels[i], groups
}

// findByKeys reads the documents of filter whose keyField is one of keys,
// one bucket at a time (equalities FerretDB hands its storage), the $in
// bounded to the bucket's keys. One key: one equality on keyField itself,
// which finds documents written before buckets too.
func findByKeys[T any](ctx context.Context, c *mongo.Collection, what string, filter bson.D, keyField string, keys []string, opts ...options.Lister[options.FindOptions]) ([]T, error) {
	var out []T
	for _, f := range keyFilters(filter, keyField, keys) {
		rows, err := findAll[T](ctx, c, what, f, opts...)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// keyFilters are the filters that select keys (with filter) the way
// findByKeys reads them: one per bucket of the keys, so the server reads
// by the bucket's index, not the whole collection.
func keyFilters(filter bson.D, keyField string, keys []string) []bson.D {
	if len(keys) == 0 {
		return nil
	}
	if len(keys) == 1 {
		return []bson.D{append(slices.Clone(filter), bson.E{Key: keyField, Value: keys[0]})}
	}
	level, groups := groupKeys(keys)
	if len(groups) > maxGroups && len(keys) < denseGroup*len(groups) {
		// Keys from all over (a retry round, a small audience's page): one
		// $in, as before buckets. A read per key made SQLite scan the
		// collection once per key. Many keys in each of more buckets (the
		// ledger's flush of two windows of sends at a high rate: a few
		// pages) are still read bucket by bucket: in one $in, FerretDB
		// decoded every record of the story, 100,000 at a fan-out's end.
		return []bson.D{append(slices.Clone(filter), bson.E{Key: keyField, Value: bson.D{{Key: "$in", Value: keys}}})}
	}
	buckets := make([]int, 0, len(groups))
	for b := range groups {
		buckets = append(buckets, b)
	}
	slices.Sort(buckets)
	out := make([]bson.D, 0, len(buckets))
	for _, b := range buckets {
		out = append(out, append(slices.Clone(filter), bson.E{Key: bucketField(level), Value: b}, bson.E{Key: keyField, Value: bson.D{{Key: "$in", Value: groups[b]}}}))
	}
	return out
}

// A page cursor in bucket order: "~level/bucket/after-key". A cursor
// without the tilde is a key (paging in key order, as deliveries started
// before buckets do to their end).
type pagePos struct {
	level, bucket int
	after         string
}

func (p pagePos) String() string { return fmt.Sprintf("~%d/%d/%s", p.level, p.bucket, p.after) }

func isBucketCursor(c string) bool { return strings.HasPrefix(c, "~") }

func parsePagePos(c string) (pagePos, error) {
	parts := strings.SplitN(strings.TrimPrefix(c, "~"), "/", 3)
	if len(parts) != 3 {
		return pagePos{}, fmt.Errorf("store: bad page cursor %q", c)
	}
	level, err1 := strconv.Atoi(parts[0])
	bucket, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || level < 1 || bucket < 0 || bucket >= level {
		return pagePos{}, fmt.Errorf("store: bad page cursor %q", c)
	}
	return pagePos{level: level, bucket: bucket, after: parts[2]}, nil
}

// before reports whether the key lies at or before the position in the
// bucket order of its level.
func (p pagePos) covers(key string) bool {
	b := bucketOf(key, p.level)
	return b < p.bucket || b == p.bucket && key <= p.after
}

// bucketPageSize is the bucket size a delivery's level aims at: a bucket
// is read whole (decoded) whenever a page touches it.
const bucketPageSize = 500

// maxBucketsPerPage bounds the reads of one page (sparse buckets).
const maxBucketsPerPage = maxGroups

// pageLevel picks the level for a delivery starting now, from the size of
// one sample bucket of the subscriptions base selects (bucket 0 of 128: one
// equality read; a page's followers, not every chat): the coarsest
// whose buckets hold about bucketPageSize subscribers at most.
func (s *Store) pageLevel(ctx context.Context, base bson.D) (int, error) {
	n, err := s.subs().CountDocuments(ctx, append(slices.Clone(base), bson.E{Key: bucketField(128), Value: 0}))
	if err != nil {
		return 0, fmt.Errorf("mongodb: sample subscriptions: %w", err)
	}
	estimate := int(n) * 128
	for _, l := range append([]int{1}, bucketLevels...) {
		if estimate/l <= bucketPageSize {
			return l, nil
		}
	}
	return bucketLevels[len(bucketLevels)-1], nil
}

// pageByBuckets reads up to limit subscribers from the cursor on, in bucket
// order (bucket, then key), at most maxBucketsPerPage buckets; "" starts a
// paging (choosing its level). The next cursor is "" when done.
func (s *Store) pageByBuckets(ctx context.Context, cursor string, limit int) ([]Subscriber, string, error) {
	return s.pageByBucketsOf(ctx, bson.D{}, cursor, limit)
}

// pageByBucketsOf pages, as pageByBuckets, the subscriptions base selects
// (equalities: a page's followers).
func (s *Store) pageByBucketsOf(ctx context.Context, base bson.D, cursor string, limit int) ([]Subscriber, string, error) {
	var pos pagePos
	if cursor == "" {
		level, err := s.pageLevel(ctx, base)
		if err != nil {
			return nil, "", err
		}
		pos = pagePos{level: level}
	} else {
		var err error
		if pos, err = parsePagePos(cursor); err != nil {
			return nil, "", err
		}
	}
	var out []Subscriber
	for read := 0; read < maxBucketsPerPage && len(out) < limit; read++ {
		filter := slices.Clone(base)
		if pos.level > 1 {
			filter = append(filter, bson.E{Key: bucketField(pos.level), Value: pos.bucket})
		}
		if pos.after != "" {
			filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$gt", Value: pos.after}}})
		}
		want := limit - len(out)
		rows, err := findAll[Subscriber](ctx, s.subs(), "list subscribers", filter,
			options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(want)))
		if err != nil {
			return nil, "", err
		}
		out = append(out, rows...)
		if len(rows) == want { // the bucket may hold more
			pos.after = rows[len(rows)-1].Key
			return out, pos.String(), nil
		}
		if pos.bucket+1 >= pos.level {
			return out, "", nil
		}
		pos = pagePos{level: pos.level, bucket: pos.bucket + 1}
	}
	return out, pos.String(), nil
}

// fillBuckets stores the buckets of documents written before they were
// kept: at start-up, idempotent, in batches, one bulk of updates by _id
// each. keyField names the subscriber key ("_id" for subscriptions).
func (s *Store) fillBuckets(ctx context.Context, coll, keyField string) error {
	const batch = 1000
	missing := bson.D{{Key: "b16", Value: bson.D{{Key: "$exists", Value: false}}}}
	c := s.db.Collection(coll)
	for {
		rows, err := findAll[bson.M](ctx, c, "find documents without buckets", missing,
			options.Find().SetLimit(batch).SetProjection(bson.D{{Key: keyField, Value: 1}}))
		if err != nil || len(rows) == 0 {
			return err
		}
		models := make([]mongo.WriteModel, 0, len(rows))
		for _, r := range rows {
			key, _ := r[keyField].(string)
			models = append(models, mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: r["_id"]}}).
				SetUpdate(bson.D{{Key: "$set", Value: BucketsOf(key)}}))
		}
		if _, err := c.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
			return fmt.Errorf("mongodb: fill in buckets of %s: %w", coll, err)
		}
		if len(rows) < batch {
			return nil
		}
	}
}

// fillPageBuckets fills in the buckets of subscriptions, story records and
// cards written before buckets were kept, and the migrated flag of
// subscriptions moved before it was kept. Ledger entries are left: a
// delivery reads its own, written with buckets; one begun before pages in
// key order and reads single keys by equality.
func (s *Store) fillPageBuckets(ctx context.Context) error {
	for _, c := range []struct{ coll, key string }{{colSubscriptions, "_id"}, {colTold, "sub"}, {colCards, "sub"}} {
		if err := s.fillBuckets(ctx, c.coll, c.key); err != nil {
			return err
		}
	}
	_, err := s.subs().UpdateMany(ctx, bson.D{{Key: "migrated_from", Value: bson.D{{Key: "$exists", Value: true}}}, {Key: "migrated", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "migrated", Value: true}}}})
	if err != nil {
		return fmt.Errorf("mongodb: fill in migrated flags: %w", err)
	}
	return nil
}
