package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Settings changes on FerretDB: a chat from before settings existed (no
// settings sub-document) gets one field set and keeps messages mode;
// choices made at the same time from two places are all kept.
func TestChangeSettings(t *testing.T) {
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(t)
	// A subscription as the bot wrote it before settings existed.
	if _, err := db.Collection("subscriptions").InsertOne(ctx, bson.D{
		{Key: "_id", Value: "7"}, {Key: "chat_id", Value: int64(7)}, {Key: "kinds", Value: bson.A{"incident"}},
		{Key: "components", Value: bson.A{}}, {Key: "created_at", Value: time.Now()},
	}); err != nil {
		t.Fatal(err)
	}
	c, err := store.SetTimeZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := st.ChangeSettings(ctx, "7", c)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Settings != (store.Settings{TimeZone: "Europe/Berlin"}) || sub.Settings.Cards() {
		t.Fatalf("old chat after a change: %+v", sub.Settings)
	}

	// Choices of different settings made one after the other from places
	// that each read the settings before the others wrote (two open
	// keyboards, a typed command) are all kept: each writes only its
	// fields. (Not at the same instant: FerretDB v1 applies an update by
	// reading and rewriting the document, so two updates of one document
	// at once can lose one; the bot handles a chat's updates one at a
	// time, and real MongoDB applies each $set atomically.)
	changes := []store.SettingChange{store.SetPinCards(true), store.SetQuietResolutions(true)}
	for _, f := range []func() (store.SettingChange, error){
		func() (store.SettingChange, error) { return store.SetMode(store.ModeCards) },
		func() (store.SettingChange, error) { return store.SetSeverity(store.SeverityOutage, true) },
		func() (store.SettingChange, error) { return store.SetQuietHours("22:00", "07:00") },
		func() (store.SettingChange, error) { return store.SetReminders(true, 30) },
	} {
		c, err := f()
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c)
	}
	for _, c := range changes {
		if _, err := st.ChangeSettings(ctx, "7", c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Subscription(ctx, "7")
	if err != nil {
		t.Fatal(err)
	}
	want := store.Settings{Mode: store.ModeCards, PinCards: true, MinSeverity: store.SeverityOutage, BelowSilent: true,
		QuietStart: "22:00", QuietEnd: "07:00", QuietResolutions: true, TimeZone: "Europe/Berlin", ReminderMinutes: 30}
	if got.Settings != want {
		t.Fatalf("after concurrent changes\n got %+v\nwant %+v", got.Settings, want)
	}
	if _, err := st.ChangeSettings(ctx, "nobody", store.SetPinCards(true)); !errors.Is(err, store.ErrNotSubscribed) {
		t.Fatalf("unknown chat: %v", err)
	}
}
