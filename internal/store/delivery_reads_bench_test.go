package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// BenchmarkDeliveryReads times every read and write the delivery path makes
// per page of 500 (or per window of 50 sends) at a given number of
// subscribers, late in a fan-out: the ledger and the story records hold an
// entry for every other subscriber, every subscriber has a card of the
// incident. Each query reports its time per call, MongoDB round trips and,
// from FerretDB's explain, whether its filter reached the storage and what
// PostgreSQL made of it. "before" rows are the shapes the store used before
// page buckets (key order, $in over the whole event). Sizes: BENCH_READS
// (default 10000,100000); run it on FerretDB's PostgreSQL:
//
//	DEVDB_HANDLER=postgresql go test -count=1 -run '^$' -bench DeliveryReads -benchtime 1x -timeout 60m ./internal/store/
func BenchmarkDeliveryReads(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if v := os.Getenv("BENCH_READS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("BENCH_READS: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) { deliveryReads(b, n) })
	}
}

const (
	benchEvent    = "component:api:major_outage:1"
	benchOrderKey = "component:api"
	benchIncident = "inc00001"
)

func deliveryReads(b *testing.B, n int) {
	st, db := testenv.StoreAndDatabase(b)
	ctx := context.Background()
	seedStart := time.Now()
	keys := seedDeliveryWorld(b, db, n)
	b.Logf("seeded %d subscriptions, ledger entries, story records and cards in %v", n, time.Since(seedStart).Round(time.Second))

	// A page in the middle of the fan-out (bucket order) and its keys.
	cursor := ""
	var page []store.Subscriber
	var next string
	for read := 0; read*500 < n/2; read++ {
		var err error
		if page, next, err = st.ListSubscribers(ctx, cursor, 500); err != nil {
			b.Fatal(err)
		}
		if next == "" {
			break
		}
		if (read+1)*500 < n/2 {
			cursor = next
		}
	}
	pageKeys := make([]string, len(page))
	for i, s := range page {
		pageKeys[i] = s.Key
	}
	// 500 keys from all over: a retry round's.
	rnd := rand.New(rand.NewPCG(1, 2))
	var scattered []string
	for _, i := range rnd.Perm(n)[:500] {
		scattered = append(scattered, keys[i])
	}
	window := pageKeys[:50]

	type query struct {
		name, collection string
		explain          bson.D // a representative filter, for explain
		run              func() (int, error)
	}
	sortedKeys := slices.Sorted(slices.Values(keys))
	mid := sortedKeys[n/2]
	bucketField := func(level int) string { return "b" + strconv.Itoa(level) }
	level := pageLevelOf(cursor)
	firstBucket := bucketOfKey(pageKeys[0], level)
	queries := []query{
		{"page of subscribers", "subscriptions", bson.D{{Key: bucketField(level), Value: firstBucket}}, func() (int, error) {
			p, _, err := st.ListSubscribers(ctx, cursor, 500)
			return len(p), err
		}},
		{"page of the legacy page's followers", "subscriptions", bson.D{{Key: "pages", Value: ""}, {Key: bucketField(level), Value: firstBucket}}, func() (int, error) {
			p, _, err := st.ListFollowers(ctx, "", cursor, 500)
			return len(p), err
		}},
		{"first page of another page's followers (1 chat in 100)", "subscriptions", bson.D{{Key: "pages", Value: "github"}, {Key: "b128", Value: 0}}, func() (int, error) {
			p, _, err := st.ListFollowers(ctx, "github", "", 500)
			return len(p), err
		}},
		{"page of subscribers, before (key order)", "subscriptions", bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: mid}}}}, func() (int, error) {
			p, _, err := st.ListSubscribers(ctx, mid, 500)
			return len(p), err
		}},
		{"moved groups' twins", "subscriptions", bson.D{{Key: "migrated", Value: true}}, func() (int, error) {
			m, err := st.MigratedTwins(ctx, pageKeys)
			return len(m), err
		}},
		{"moves in the page", "chat_migrations", bson.D{{Key: "at", Value: bson.D{{Key: "$gt", Value: time.Now().Add(-time.Hour)}}}}, func() (int, error) {
			m, err := st.MigrationsBetween(ctx, cursor, next, time.Now().Add(-time.Hour))
			return len(m), err
		}},
		{"ledger of the page", "deliveries", bson.D{{Key: "event", Value: benchEvent}, {Key: bucketField(level), Value: firstBucket}}, func() (int, error) {
			m, err := st.Delivered(ctx, benchEvent, pageKeys)
			return len(m), err
		}},
		{"ledger of the page, before ($in over the event)", "deliveries", bson.D{{Key: "event", Value: benchEvent}}, func() (int, error) {
			return countFind(ctx, db.Collection("deliveries"), bson.D{{Key: "event", Value: benchEvent}, {Key: "sub", Value: bson.D{{Key: "$in", Value: pageKeys}}}})
		}},
		{"story records of the page", "told", bson.D{{Key: "order_key", Value: benchOrderKey}, {Key: bucketField(level), Value: firstBucket}}, func() (int, error) {
			m, err := st.ToldOf(ctx, benchOrderKey, pageKeys)
			return len(m), err
		}},
		{"story records of the page, before", "told", bson.D{{Key: "order_key", Value: benchOrderKey}}, func() (int, error) {
			return countFind(ctx, db.Collection("told"), bson.D{{Key: "order_key", Value: benchOrderKey}, {Key: "sub", Value: bson.D{{Key: "$in", Value: pageKeys}}}})
		}},
		{"earlier updates' retries (blockers)", "delivery_retries", bson.D{{Key: "order_key", Value: benchOrderKey}}, func() (int, error) {
			r, err := st.EarlierRetries(ctx, benchOrderKey, benchEvent, 2, time.Now(), pageKeys)
			return len(r), err
		}},
		{"cards of the page", "incident_cards", bson.D{{Key: "incident", Value: benchIncident}, {Key: bucketField(level), Value: firstBucket}}, func() (int, error) {
			m, err := st.Cards(ctx, benchIncident, pageKeys)
			return len(m), err
		}},
		{"cards of the page, before ($in on _id)", "incident_cards", bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: []string{benchIncident + "|" + pageKeys[0]}}}}}, func() (int, error) {
			ids := make([]string, len(pageKeys))
			for i, k := range pageKeys {
				ids[i] = benchIncident + "|" + k
			}
			return countFind(ctx, db.Collection("incident_cards"), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
		}},
		{"subscriptions of a retry round (500 from all over)", "subscriptions", bson.D{{Key: "b8192", Value: 0}, {Key: "_id", Value: bson.D{{Key: "$in", Value: scattered[:1]}}}}, func() (int, error) {
			s, err := st.Subscriptions(ctx, scattered)
			return len(s), err
		}},
		{"subscriptions of a retry round, before ($in on _id)", "subscriptions", bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: scattered}}}}, func() (int, error) {
			return countFind(ctx, db.Collection("subscriptions"), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: scattered}}}})
		}},
		{"one subscription", "subscriptions", bson.D{{Key: "_id", Value: mid}}, func() (int, error) {
			_, err := st.Subscription(ctx, mid)
			return 1, err
		}},
		{"ledger write, a window of 50", "deliveries", nil, func() (int, error) {
			return 50, st.RecordDelivered(ctx, "component:api:operational:2", window, time.Now())
		}},
		{"story records write, a window of 50", "told", bson.D{{Key: "order_key", Value: benchOrderKey}, {Key: "sub", Value: window[0]}}, func() (int, error) {
			return 50, st.RecordTold(ctx, store.Step{OrderKey: benchOrderKey, Event: "component:api:operational:2", Seq: 2, Ends: true}, window, time.Now())
		}},
		{"one card write", "incident_cards", bson.D{{Key: "_id", Value: benchIncident + "|" + mid}}, func() (int, error) {
			return 1, st.SaveCard(ctx, store.IncidentCard{Incident: benchIncident, Sub: mid, MessageID: 7, At: time.Now()})
		}},
	}
	for _, q := range queries {
		b.Run(strings.ReplaceAll(q.name, " ", "_"), func(b *testing.B) {
			rt0 := st.RoundTrips()
			start := time.Now()
			var docs int
			for i := 0; i < b.N; i++ {
				var err error
				if docs, err = q.run(); err != nil {
					b.Fatal(err)
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			trips := float64(st.RoundTrips()-rt0) / float64(b.N)
			b.ReportMetric(float64(per.Microseconds())/1000, "ms/op")
			b.ReportMetric(trips, "roundtrips/op")
			plan := "-"
			if q.explain != nil {
				plan = explainFind(ctx, db, q.collection, q.explain)
			}
			b.Logf("RESULT reads subscribers=%d %-52s %9.1f ms %5.1f round trips %4d found; explain: %s", n, q.name, float64(per.Microseconds())/1000, trips, docs, plan)
		})
	}
}

// seedDeliveryWorld writes n subscriptions, a ledger entry and a story
// record for each (but for a page's worth, which stays unread), a card
// each, and 1,000 retries of an earlier update: what a collection holds
// late in a 100,000 fan-out. Raw inserts, with the buckets the store
// writes.
func seedDeliveryWorld(b *testing.B, db *mongo.Database, n int) []string {
	ctx := context.Background()
	now := time.Now().UTC()
	keys := make([]string, n)
	for i := range keys {
		// Chat IDs as Telegram gives them: users and groups, sparse.
		if i%3 == 0 {
			keys[i] = strconv.FormatInt(-1001000000000-int64(i)*7919, 10)
		} else {
			keys[i] = strconv.FormatInt(100000000+int64(i)*48611, 10)
		}
	}
	insert := func(coll string, doc func(k string, i int) any) {
		for i := 0; i < n; i += 1000 {
			var docs []any
			for j := i; j < min(i+1000, n); j++ {
				if d := doc(keys[j], j); d != nil {
					docs = append(docs, d)
				}
			}
			if len(docs) == 0 {
				continue
			}
			if _, err := db.Collection(coll).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
				b.Fatalf("seed %s: %v", coll, err)
			}
		}
	}
	insert("subscriptions", func(k string, i int) any {
		chat, _ := strconv.ParseInt(k, 10, 64)
		// Every chat follows the legacy page, one in a hundred another too.
		ps := []string{""}
		if i%100 == 0 {
			ps = append(ps, "github")
		}
		return store.Subscriber{Key: k, ChatID: chat, Kinds: event.DefaultKinds, Components: []string{}, CreatedAt: now, LeadMinutes: 60,
			Pages: ps, Buckets: store.BucketsOf(k)}
	})
	insert("deliveries", func(k string, i int) any {
		return bson.D{{Key: "_id", Value: benchEvent + "|" + k}, {Key: "event", Value: benchEvent}, {Key: "sub", Value: k}, {Key: "at", Value: now},
			{Key: "b16", Value: store.BucketsOf(k).B16}, {Key: "b128", Value: store.BucketsOf(k).B128},
			{Key: "b1024", Value: store.BucketsOf(k).B1024}, {Key: "b8192", Value: store.BucketsOf(k).B8192}}
	})
	insert("told", func(k string, i int) any {
		return store.Told{ID: benchOrderKey + "|" + k, OrderKey: benchOrderKey, Sub: k, Open: true, LastEvent: benchEvent, Seq: 1, At: now, Buckets: store.BucketsOf(k)}
	})
	insert("incident_cards", func(k string, i int) any {
		return store.IncidentCard{ID: benchIncident + "|" + k, Incident: benchIncident, Sub: k, MessageID: i + 1, At: now, Buckets: store.BucketsOf(k)}
	})
	insert("delivery_retries", func(k string, i int) any {
		if i%(n/1000) != 0 {
			return nil
		}
		return store.Retry{ID: "component:api:degraded:0|" + k, Event: "component:api:degraded:0", OrderKey: benchOrderKey, EventAt: now.Add(-time.Hour),
			Seq: 1, Sub: k, Bursts: 1, NextAt: now, At: now}
	})
	return keys
}

func countFind(ctx context.Context, c *mongo.Collection, filter bson.D) (int, error) {
	cur, err := c.Find(ctx, filter)
	if err != nil {
		return 0, err
	}
	var rows []bson.Raw
	err = cur.All(ctx, &rows)
	return len(rows), err
}

// explainFind is what FerretDB says of a find: whether the filter reached
// the storage (filterPushdown) and PostgreSQL's plan nodes and indexes, in
// plan order.
func explainFind(ctx context.Context, db *mongo.Database, coll string, filter bson.D) string {
	var res bson.Raw
	err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter}}}}).Decode(&res)
	if err != nil {
		return "explain: " + err.Error()
	}
	out := "pushdown=" + res.Lookup("filterPushdown").String()
	js, err := bson.MarshalExtJSON(res.Lookup("queryPlanner").Document(), false, false)
	if err != nil {
		return out
	}
	for _, m := range planPart.FindAllStringSubmatch(string(js), -1) {
		out += " " + m[1] + "=" + m[2]
	}
	return out
}

var planPart = regexp.MustCompile(`"(Node Type|Index Name)":"([^"]*)"`)

// pageLevelOf reads the level of a bucket cursor ("~level/bucket/key").
func pageLevelOf(cursor string) int {
	parts := strings.SplitN(strings.TrimPrefix(cursor, "~"), "/", 3)
	l, err := strconv.Atoi(parts[0])
	if err != nil {
		return 1
	}
	return l
}

func bucketOfKey(key string, level int) int {
	b := store.BucketsOf(key)
	switch level {
	case 16:
		return b.B16
	case 128:
		return b.B128
	case 1024:
		return b.B1024
	case 8192:
		return b.B8192
	}
	return 0
}
