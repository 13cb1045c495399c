package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func TestReminderLeadOf(t *testing.T) {
	noMaintenance := []event.Kind{event.KindIncident, event.KindComponent}
	for _, tc := range []struct {
		name     string
		kinds    []event.Kind
		settings store.Settings
		want     int
	}{
		{"defaults: 60 minutes", nil, store.Settings{}, 60},
		{"a chosen lead", event.DefaultKinds, store.Settings{ReminderMinutes: 15}, 15},
		{"only maintenance notices", []event.Kind{event.KindMaintenance}, store.Settings{ReminderMinutes: 240}, 240},
		{"reminders off", nil, store.Settings{NoReminders: true, ReminderMinutes: 15}, 0},
		{"no maintenance notices", noMaintenance, store.Settings{ReminderMinutes: 15}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, store.ReminderLeadOf(tc.kinds, tc.settings))
		})
	}
}

// storedLead reads a subscription's reminder_lead as stored; -1: none.
func storedLead(t *testing.T, db *mongo.Database, key string) int {
	t.Helper()
	var doc bson.M
	require.NoError(t, db.Collection("subscriptions").FindOne(context.Background(), bson.D{{Key: "_id", Value: key}}).Decode(&doc))
	v, ok := doc["reminder_lead"]
	if !ok {
		return -1
	}
	switch n := v.(type) {
	case int32:
		return int(n)
	case int64:
		return int(n)
	}
	t.Fatalf("reminder_lead of %s is %T", key, v)
	return 0
}

// reopen opens the store again on the same database, as a restarted
// process does.
func reopen(t *testing.T, db *mongo.Database) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), testenv.MongoURI(t), db.Name())
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(5 * time.Second) })
	return st
}

// The next reminder of a maintenance is the longest lead shorter than the
// time left, among the chats that would get it: chats without a settings
// document and chats that never chose a lead count as 60 minutes (filled
// in at start-up for subscriptions older than stored leads); chats that
// hear no maintenance notices, or whose filter the maintenance does not
// pass, do not count; a maintenance naming no component concerns all.
func TestNextReminderLead(t *testing.T) {
	ctx := context.Background()
	_, db := testenv.StoreAndDatabase(t)
	// Subscriptions as the bot wrote them before leads were stored: from
	// before settings existed, and one with a lead chosen.
	if _, err := db.Collection("subscriptions").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "1"}, {Key: "chat_id", Value: int64(1)}, {Key: "kinds", Value: bson.A{"maintenance"}},
			{Key: "components", Value: bson.A{}}, {Key: "created_at", Value: time.Now()}},
		bson.D{{Key: "_id", Value: "5"}, {Key: "chat_id", Value: int64(5)}, {Key: "kinds", Value: bson.A{}},
			{Key: "components", Value: bson.A{}}, {Key: "created_at", Value: time.Now()},
			{Key: "settings", Value: bson.D{{Key: "reminder_minutes", Value: 90}}}},
	}); err != nil {
		t.Fatal(err)
	}
	st := reopen(t, db)
	require.Equal(t, 60, storedLead(t, db, "1"), "filled in at start-up")
	require.Equal(t, 90, storedLead(t, db, "5"), "filled in at start-up")

	for chat, c := range map[int64]store.SettingChange{2: must(store.SetReminders(true, 120)), 3: must(store.SetReminders(true, 15)),
		4: must(store.SetReminders(false, 0)), 6: must(store.SetReminders(true, 600)), 7: must(store.SetReminders(true, 300))} {
		_, err := st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		_, err = st.ChangeSettings(ctx, store.SubscriberKey(chat, 0), c)
		require.NoError(t, err)
	}
	require.NoError(t, st.SetKinds(ctx, "6", []event.Kind{event.KindIncident})) // 600: no maintenance notices
	require.NoError(t, st.SetComponents(ctx, "7", []string{"files"}))           // 300: only of Files
	lead := func(below time.Duration, components ...string) time.Duration {
		t.Helper()
		got, err := st.NextReminderLead(ctx, "", below, components)
		require.NoError(t, err)
		return got
	}
	for _, tc := range []struct{ below, want time.Duration }{
		{24 * time.Hour, 120 * time.Minute},
		{120 * time.Minute, 90 * time.Minute}, // strictly shorter: 120 is due now or past
		{90 * time.Minute, 60 * time.Minute},
		{60 * time.Minute, 15 * time.Minute},
		{15 * time.Minute, 0},
	} {
		require.Equal(t, tc.want, lead(tc.below, "api"), "below %s, a maintenance of the API", tc.below)
	}
	require.Equal(t, 300*time.Minute, lead(24*time.Hour), "a maintenance naming no component")
	require.Equal(t, 300*time.Minute, lead(24*time.Hour, "files", "api"), "a maintenance of Files too")
}

// Every write of kinds or settings keeps the stored lead, and a group
// that becomes a supergroup takes it along.
func TestReminderLeadFollowsEveryWrite(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	const key = "-100"
	_, err := st.Subscribe(ctx, -100, 0, time.Now())
	require.NoError(t, err)
	require.Equal(t, 60, storedLead(t, db, key), "a new chat: the default lead")
	steps := []struct {
		name  string
		write func() error
		want  int
	}{
		{"lead chosen", func() error { return change(st, key, must(store.SetReminders(true, 15))) }, 15},
		{"another setting", func() error { return change(st, key, must(store.SetTimeZone("Europe/Berlin"))) }, 15},
		{"no maintenance notices", func() error { return st.SetKinds(ctx, key, []event.Kind{event.KindIncident}) }, 0},
		{"maintenance notices again", func() error { return st.SetKinds(ctx, key, event.DefaultKinds) }, 15},
		{"reminders off", func() error { return change(st, key, must(store.SetReminders(false, 0))) }, 0},
		{"on again, the lead kept", func() error { return change(st, key, must(store.SetReminders(true, 0))) }, 15},
	}
	for _, step := range steps {
		require.NoError(t, step.write(), step.name)
		require.Equal(t, step.want, storedLead(t, db, key), step.name)
	}
	require.NoError(t, st.MigrateChat(ctx, -100, -1001))
	require.Equal(t, 15, storedLead(t, db, store.SubscriberKey(-1001, 0)), "moved to a supergroup")
	require.True(t, errors.Is(st.SetKinds(ctx, "nobody", event.DefaultKinds), store.ErrNotSubscribed))
}

func change(st *store.Store, key string, c store.SettingChange) error {
	_, err := st.ChangeSettings(context.Background(), key, c)
	return err
}

// A reminder's pages hold only the chats it is for, in key order, and
// read only them: 1,500 chats on the defaults, a handful reminded 15
// minutes ahead.
func TestListReminderSubscribers(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	docs := make([]any, 0, 1500)
	for chat := 1; chat <= 1500; chat++ {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprint(chat)}, {Key: "chat_id", Value: int64(chat)},
			{Key: "kinds", Value: event.DefaultKinds}, {Key: "components", Value: bson.A{}}, {Key: "created_at", Value: time.Now()},
			{Key: "reminder_lead", Value: 60}, {Key: "pages", Value: bson.A{""}}})
	}
	_, err := db.Collection("subscriptions").InsertMany(ctx, docs) // as Subscribe writes them, at once
	require.NoError(t, err)
	var want []string
	for _, chat := range []string{"1499", "17", "250", "3", "901"} {
		require.NoError(t, change(st, chat, must(store.SetReminders(true, 15))))
		want = append(want, chat)
	}
	require.NoError(t, change(st, "30", must(store.SetReminders(true, 20))))
	want = append(want, "30")
	require.NoError(t, change(st, "40", must(store.SetReminders(true, 30)))) // its own reminder
	require.NoError(t, change(st, "41", must(store.SetReminders(true, 15))))
	require.NoError(t, st.SetComponents(ctx, "41", []string{"files"}))
	require.NoError(t, change(st, "42", must(store.SetReminders(true, 15))))
	require.NoError(t, st.SetComponents(ctx, "42", []string{"files", "api"}))
	want = append(want, "42")

	r := event.Reminder{Lead: 15 * time.Minute, Until: 30 * time.Minute}
	var got []string
	cursor, pages := "", 0
	for {
		subs, next, err := st.ListReminderSubscribers(ctx, "", r, []string{"api"}, cursor, 3)
		require.NoError(t, err)
		pages++
		for _, s := range subs {
			got = append(got, s.Key)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	require.Equal(t, []string{"1499", "17", "250", "3", "30", "42", "901"}, got, "in key order")
	require.ElementsMatch(t, want, got)
	require.Equal(t, 3, pages, "7 chats, 3 a page")

	subs, next, err := st.ListReminderSubscribers(ctx, "", event.Reminder{Lead: 5 * time.Minute, Until: 15 * time.Minute}, nil, "", 100)
	require.NoError(t, err)
	require.Empty(t, subs, "nobody is reminded 5 to 15 minutes ahead")
	require.Empty(t, next)
}

func must(c store.SettingChange, err error) store.SettingChange {
	if err != nil {
		panic(err)
	}
	return c
}

// The reminder queries have their index: reminder_lead then _id, so a
// page of one lead is an index range in key order (and several leads a
// merge of such ranges). MongoDB's explain must show that index scanned
// and no sort; FerretDB v1 (SQLite) pushes no filter but _id down to its
// storage and says so, so there the test checks the index exists and
// logs the plan.
func TestReminderQueriesUseTheirIndex(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	_, err := st.Subscribe(ctx, 1, 0, time.Now())
	require.NoError(t, err)
	specs, err := db.Collection("subscriptions").Indexes().ListSpecifications(ctx)
	require.NoError(t, err)
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	require.Contains(t, names, "pages_1_reminder_lead_1__id_1")

	var out bson.M
	require.NoError(t, db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "subscriptions"},
		{Key: "filter", Value: bson.D{{Key: "pages", Value: ""}, {Key: "reminder_lead", Value: bson.D{{Key: "$in", Value: bson.A{15, 20}}}}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: "1"}}}}},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "limit", Value: 100}, {Key: "hint", Value: "pages_1_reminder_lead_1__id_1"}}}}).Decode(&out))
	raw, err := bson.MarshalExtJSON(bson.M{"plan": out["queryPlanner"]}, false, false)
	require.NoError(t, err)
	plan := string(raw)
	if strings.Contains(fmt.Sprint(out["serverInfo"]), "ferretdbVersion") {
		t.Logf("FerretDB: filterPushdown=%v sortPushdown=%v plan=%s", out["filterPushdown"], out["sortPushdown"], plan)
		return
	}
	require.Contains(t, plan, `"IXSCAN"`)
	require.Contains(t, plan, `"pages_1_reminder_lead_1__id_1"`)
	require.NotContains(t, plan, `"stage":"SORT"`, "leads as points: merged in key order (SORT_MERGE), not sorted")
}

// ReplaceSettings keeps the reminder lead the new settings make.
func TestReplaceSettingsKeepsTheReminderLead(t *testing.T) {
	s := testenv.Store(t)
	ctx := context.Background()
	_, err := s.Subscribe(ctx, 77, 0, time.Now())
	require.NoError(t, err)
	require.NoError(t, s.ReplaceSettings(ctx, "77", store.Settings{ReminderMinutes: 15}))
	sub, err := s.Subscription(ctx, "77")
	require.NoError(t, err)
	require.Equal(t, 15, sub.LeadMinutes)
	require.NoError(t, s.ReplaceSettings(ctx, "77", store.Settings{NoReminders: true}))
	sub, err = s.Subscription(ctx, "77")
	require.NoError(t, err)
	require.Zero(t, sub.LeadMinutes)
}
