package store_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// followersOf pages every follower of an event page, checking each is
// read once.
func followersOf(t *testing.T, st *store.Store, page string, limit int) []string {
	t.Helper()
	var keys []string
	seen := map[string]bool{}
	cursor := ""
	for reads := 0; ; reads++ {
		subs, next, err := st.ListFollowers(context.Background(), page, cursor, limit)
		require.NoError(t, err)
		for _, s := range subs {
			require.False(t, seen[s.Key], "%s read twice", s.Key)
			seen[s.Key] = true
			require.True(t, pages.Follows(s.Pages, page), "%s does not follow %q: %v", s.Key, page, s.Pages)
			keys = append(keys, s.Key)
		}
		if next == "" {
			return keys
		}
		require.Less(t, reads, 10_000, "paging does not end")
		cursor = next
	}
}

// A page's fan-out reads its followers, and only them: chats recorded
// before pages follow the legacy page (filled in at start-up), new chats the
// default page, and a chat follows and leaves pages one at a time.
func TestFollowersOfEachPage(t *testing.T) {
	ctx := context.Background()
	_, db := testenv.StoreAndDatabase(t)
	// Two chats as an older bot wrote them: no pages field.
	for _, k := range []string{"11", "12"} {
		chat, _ := strconv.ParseInt(k, 10, 64)
		_, err := db.Collection("subscriptions").InsertOne(ctx, bson.D{{Key: "_id", Value: k}, {Key: "chat_id", Value: chat},
			{Key: "kinds", Value: event.DefaultKinds}, {Key: "components", Value: bson.A{"api"}}, {Key: "created_at", Value: time.Now()}})
		require.NoError(t, err)
	}
	st := reopen(t, db)
	sub, err := st.Subscription(ctx, "11")
	require.NoError(t, err)
	require.Equal(t, []string{""}, sub.Pages, "filled in at start-up: the legacy page")

	// New chats: the default page, legacy here.
	for chat := int64(1); chat <= 3; chat++ {
		_, err := st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	// A deployment whose default page is not the legacy one.
	st.SetDefaultPage("github")
	_, err = st.Subscribe(ctx, 4, 0, time.Now())
	require.NoError(t, err)
	st.SetDefaultPage("")

	list, added, err := st.FollowPage(ctx, "1", "github")
	require.NoError(t, err)
	require.True(t, added)
	require.Equal(t, []string{"", "github"}, list)
	_, added, err = st.FollowPage(ctx, "1", "github")
	require.NoError(t, err)
	require.False(t, added, "followed already")
	_, _, err = st.FollowPage(ctx, "12", "github")
	require.NoError(t, err)
	require.NoError(t, st.SetComponents(ctx, "12", []string{"api", "github/git01"}))
	_, removed, err := st.UnfollowPage(ctx, "12", "")
	require.NoError(t, err)
	require.True(t, removed)
	sub, err = st.Subscription(ctx, "12")
	require.NoError(t, err)
	require.Equal(t, []string{"github"}, sub.Pages)
	require.Equal(t, []string{"github/git01"}, sub.Components, "the legacy page's filter entries left with it")

	_, _, err = st.UnfollowPage(ctx, "12", "github")
	require.True(t, errors.Is(err, pages.ErrLastPage), "the last page: %v", err)
	_, _, err = st.FollowPage(ctx, "99", "github")
	require.True(t, errors.Is(err, store.ErrNotSubscribed))

	require.ElementsMatch(t, []string{"1", "2", "3", "11"}, followersOf(t, st, "", 2))
	require.ElementsMatch(t, []string{"1", "4", "12"}, followersOf(t, st, "github", 2))
	require.Empty(t, followersOf(t, st, "other", 2))
}

// A chat's pages survive a stop and a restart, and a group's move to a
// supergroup; a chat kept from before pages comes back following the
// legacy page, as a field the fan-out reads.
func TestPagesKeptAcrossRestartAndMigration(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	now := time.Now()
	_, err := st.Subscribe(ctx, -100, 0, now)
	require.NoError(t, err)
	_, _, err = st.FollowPage(ctx, "-100", "github")
	require.NoError(t, err)
	require.NoError(t, st.MigrateChat(ctx, -100, -1001))
	sub, err := st.Subscription(ctx, "-1001")
	require.NoError(t, err)
	require.Equal(t, []string{"", "github"}, sub.Pages)

	_, err = st.StopChat(ctx, -1001, now)
	require.NoError(t, err)
	_, restored, err := st.Restart(ctx, -1001, 0, now)
	require.NoError(t, err)
	require.NotNil(t, restored)
	require.ElementsMatch(t, []string{"-1001"}, followersOf(t, st, "github", 10))
	require.ElementsMatch(t, []string{"-1001"}, followersOf(t, st, "", 10))
}

// Many followers: every page's fan-out reaches each of its followers once,
// in pages of buckets, at the level its own followers make (a small page
// among many chats pages in few reads).
func TestFollowersPagedByBuckets(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	const n = 3000
	var docs []any
	var github []string
	for i := 0; i < n; i++ {
		k := strconv.Itoa(300_000_000 + i*7_919)
		ps := []string{""}
		if i%100 == 0 {
			ps = []string{"", "github"}
			github = append(github, k)
		}
		docs = append(docs, store.Subscriber{Key: k, ChatID: int64(300_000_000 + i*7_919), Kinds: event.DefaultKinds, Components: []string{},
			Pages: ps, Buckets: store.BucketsOf(k)})
	}
	_, err := db.Collection("subscriptions").InsertMany(ctx, docs)
	require.NoError(t, err)
	require.Len(t, followersOf(t, st, "", 500), n)

	rt := st.RoundTrips()
	require.ElementsMatch(t, github, followersOf(t, st, "github", 500))
	require.LessOrEqual(t, st.RoundTrips()-rt, int64(3), "30 followers of 3,000 chats: one sample and one page")
}

// On FerretDB's PostgreSQL a page's follower read reaches the storage as
// equalities (pushdown: `_jsonb->'pages' @> v` holds for an array with v),
// as the bucket reads do; on MongoDB it is a scan of its index. On SQLite,
// what FerretDB makes of it is logged.
func TestFollowerReadIsAnEquality(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	_, err := st.Subscribe(ctx, 1, 0, time.Now())
	require.NoError(t, err)
	filter := bson.D{{Key: "pages", Value: "github"}, {Key: "b1024", Value: 3}}
	var out bson.M
	require.NoError(t, db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "subscriptions"}, {Key: "filter", Value: filter}}}}).Decode(&out))
	raw, err := bson.MarshalExtJSON(bson.M{"plan": out["queryPlanner"]}, false, false)
	require.NoError(t, err)
	if pushdown, ferret := out["filterPushdown"]; ferret {
		if testenv.DevDBHandler() == "postgresql" {
			require.Equal(t, true, pushdown, "FerretDB reads only the page's bucket: %s", raw)
		}
		t.Logf("FerretDB (%s): filterPushdown=%v plan=%s", testenv.DevDBHandler(), pushdown, raw)
		return
	}
	require.Contains(t, string(raw), `"IXSCAN"`)
	require.True(t, strings.Contains(string(raw), "pages_1_b1024_1__id_1"), "plan %s", raw)
}

// A page's maintenance reminds its followers only; a chat of several pages
// whose filter holds none of this page's components is read (the query
// cannot tell) and left to notice.Decide.
func TestRemindersOfAPage(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	for chat := int64(1); chat <= 4; chat++ {
		_, err := st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	_, _, err := st.FollowPage(ctx, "2", "github")
	require.NoError(t, err)
	_, _, err = st.UnfollowPage(ctx, "2", "")
	require.NoError(t, err)
	_, _, err = st.FollowPage(ctx, "3", "github")
	require.NoError(t, err)
	require.NoError(t, st.SetComponents(ctx, "3", []string{"api"})) // a legacy filter, nothing of github's
	require.NoError(t, st.SetComponents(ctx, "4", []string{"api"}))

	r := event.Reminder{Lead: 60 * time.Minute, Until: 24 * time.Hour}
	keys := func(page string, comps ...string) []string {
		subs, _, err := st.ListReminderSubscribers(ctx, page, r, comps, "", 100)
		require.NoError(t, err)
		var out []string
		for _, s := range subs {
			out = append(out, s.Key)
		}
		return out
	}
	require.Equal(t, []string{"2", "3"}, keys("github", "github/git01"))
	require.Equal(t, []string{"1", "3"}, keys("", "files"), "4 filters api alone; 3 follows two pages: read, decided later")
	require.Equal(t, []string{"1", "3", "4"}, keys("", "api"))
	lead, err := st.NextReminderLead(ctx, "github", 24*time.Hour, []string{"github/git01"})
	require.NoError(t, err)
	require.Equal(t, 60*time.Minute, lead)
	lead, err = st.NextReminderLead(ctx, "other", 24*time.Hour, nil)
	require.NoError(t, err)
	require.Zero(t, lead, "nobody follows it")
}
