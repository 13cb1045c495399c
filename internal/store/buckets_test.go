package store_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A fan-out pages subscribers in bucket order: every subscriber exactly
// once, each page's keys in a few buckets of its level (what the page's
// ledger and story reads select by), at every size a level is chosen for.
func TestPagesReachEverySubscriberOnceInBuckets(t *testing.T) {
	for _, n := range []int{300, 1500} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			st, db := testenv.StoreAndDatabase(t)
			ctx := context.Background()
			var docs []any
			for i := 0; i < n; i++ {
				k := strconv.Itoa(200_000_000 + i*7_919)
				docs = append(docs, store.Subscriber{Key: k, ChatID: int64(200_000_000 + i*7_919), Kinds: event.DefaultKinds, Components: []string{}, Buckets: store.BucketsOf(k)})
			}
			_, err := db.Collection("subscriptions").InsertMany(ctx, docs)
			require.NoError(t, err)

			seen := map[string]int{}
			cursor, pages := "", 0
			for {
				page, next, err := st.ListSubscribers(ctx, cursor, 500)
				require.NoError(t, err)
				pages++
				require.LessOrEqual(t, len(page), 500)
				for _, s := range page {
					seen[s.Key]++
				}
				if next == "" {
					break
				}
				require.True(t, strings.HasPrefix(next, "~"), "a bucket cursor: %q", next)
				require.Less(t, pages, n, "paging does not end")
				cursor = next
			}
			require.Len(t, seen, n)
			for k, c := range seen {
				require.Equal(t, 1, c, "subscriber %s read %d times", k, c)
			}
			t.Logf("%d subscribers in %d pages", n, pages)
		})
	}
}

// A paging begun in key order (before buckets) goes on in key order.
func TestKeyCursorPagesInKeyOrder(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	for chat := int64(10); chat < 40; chat++ {
		_, err := st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	page, next, err := st.ListSubscribers(ctx, "20", 5)
	require.NoError(t, err)
	var keys []string
	for _, s := range page {
		keys = append(keys, s.Key)
	}
	require.Equal(t, []string{"21", "22", "23", "24", "25"}, keys)
	require.Equal(t, "25", next)
}

// A group that moved to a supergroup is found by its old key's place in
// the bucket order: in exactly one page's moves.
func TestMovesFoundInTheirOldKeysPage(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	for chat := int64(-1); chat > -60; chat-- {
		_, err := st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	since := time.Now()
	_, err := st.MigrateChatAt(ctx, -17, -1_001_700, since.Add(time.Second))
	require.NoError(t, err)
	found, cursor := 0, ""
	for {
		_, next, err := st.ListSubscribers(ctx, cursor, 7)
		require.NoError(t, err)
		moves, err := st.MigrationsBetween(ctx, cursor, next, since)
		require.NoError(t, err)
		for _, m := range moves {
			require.Equal(t, "-17", m.OldKey)
			found++
		}
		if next == "" {
			break
		}
		cursor = next
	}
	require.Equal(t, 1, found)
	twins, err := st.MigratedTwins(ctx, []string{"-17", "-18"})
	require.NoError(t, err)
	require.Equal(t, "-1001700", twins["-17"].Key)
}

// A story's next step replaces a window of 50 records at once. FerretDB v1
// on PostgreSQL held a connection for each replaced record until the bulk
// ended and waited forever for one to write with (devdb's pool was 50).
func TestStoryStepReplacesAWindowOfRecords(t *testing.T) {
	st := testenv.Store(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var keys []string
	for i := 0; i < 60; i++ {
		keys = append(keys, strconv.Itoa(5_000+i))
	}
	require.NoError(t, st.RecordTold(ctx, store.Step{OrderKey: "component:api", Event: "e1", Seq: 1}, keys, time.Now()))
	require.NoError(t, st.RecordTold(ctx, store.Step{OrderKey: "component:api", Event: "e2", Seq: 2, Ends: true}, keys, time.Now()))
	told, err := st.ToldOf(ctx, "component:api", keys)
	require.NoError(t, err)
	require.Len(t, told, 60)
	for _, k := range keys {
		require.Equal(t, "e2", told[k].LastEvent)
		require.False(t, told[k].Open)
	}
}

// Documents written before buckets get them at start-up: their chats are
// paged, their story records and cards found.
func TestOpenFillsInBuckets(t *testing.T) {
	uri, name := testenv.MongoURI(t), testenv.DatabaseName(t)
	ctx := context.Background()
	st, err := store.Open(ctx, uri, name)
	require.NoError(t, err)
	_ = st.Close(time.Second)
	_, db := testenv.StoreAndDatabase(t)
	db = db.Client().Database(name)
	var subs, told []any
	var keys []string
	for i := 0; i < 30; i++ {
		k := strconv.Itoa(700 + i)
		keys = append(keys, k)
		subs = append(subs, bson.D{{Key: "_id", Value: k}, {Key: "chat_id", Value: int64(700 + i)}, {Key: "kinds", Value: event.DefaultKinds}, {Key: "components", Value: bson.A{}}})
		told = append(told, bson.D{{Key: "_id", Value: "incident:x|" + k}, {Key: "order_key", Value: "incident:x"}, {Key: "sub", Value: k}, {Key: "open", Value: true}, {Key: "last_event", Value: "e1"}})
	}
	_, err = db.Collection("subscriptions").InsertMany(ctx, subs)
	require.NoError(t, err)
	_, err = db.Collection("told").InsertMany(ctx, told)
	require.NoError(t, err)
	_, err = db.Collection("subscriptions").UpdateOne(ctx, bson.D{{Key: "_id", Value: "701"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "migrated_from", Value: "-5"}}}}, options.UpdateOne())
	require.NoError(t, err)

	st, err = store.Open(ctx, uri, name)
	require.NoError(t, err)
	defer func() { _ = st.Close(time.Second) }()
	page, next, err := st.ListSubscribers(ctx, "", 100)
	require.NoError(t, err)
	require.Empty(t, next)
	require.Len(t, page, 30)
	rec, err := st.ToldOf(ctx, "incident:x", keys)
	require.NoError(t, err)
	require.Len(t, rec, 30)
	twins, err := st.MigratedTwins(ctx, []string{"-5"})
	require.NoError(t, err)
	require.Equal(t, "701", twins["-5"].Key)
}
