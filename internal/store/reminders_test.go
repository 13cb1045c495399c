package store_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// The next reminder of a maintenance is the longest lead shorter than the
// time left, among chats with reminders on: chats without a settings
// document and chats that never chose a lead count as 60 minutes.
func TestNextReminderLead(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	lead := func(below time.Duration) time.Duration {
		t.Helper()
		got, err := st.NextReminderLead(ctx, below)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := lead(24 * time.Hour); got != 0 {
		t.Fatalf("no subscribers: lead %s, want none", got)
	}
	// A subscription from before settings existed: reminded 60 minutes ahead.
	if _, err := db.Collection("subscriptions").InsertOne(ctx, bson.D{
		{Key: "_id", Value: "1"}, {Key: "chat_id", Value: int64(1)}, {Key: "kinds", Value: bson.A{"maintenance"}},
		{Key: "components", Value: bson.A{}}, {Key: "created_at", Value: time.Now()},
	}); err != nil {
		t.Fatal(err)
	}
	for chat, c := range map[int64]store.SettingChange{2: must(store.SetReminders(true, 120)), 3: must(store.SetReminders(true, 15)), 4: must(store.SetReminders(false, 0))} {
		if _, err := st.Subscribe(ctx, chat, 0, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ChangeSettings(ctx, store.SubscriberKey(chat, 0), c); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ below, want time.Duration }{
		{24 * time.Hour, 120 * time.Minute},
		{120 * time.Minute, 60 * time.Minute}, // strictly shorter: 120 is due now or past
		{90 * time.Minute, 60 * time.Minute},
		{60 * time.Minute, 15 * time.Minute},
		{15 * time.Minute, 0},
	} {
		if got := lead(tc.below); got != tc.want {
			t.Errorf("below %s: lead %s, want %s", tc.below, got, tc.want)
		}
	}
}

func must(c store.SettingChange, err error) store.SettingChange {
	if err != nil {
		panic(err)
	}
	return c
}
