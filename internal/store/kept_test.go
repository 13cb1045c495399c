package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/stretchr/testify/require"
)

// /stop keeps the settings for KeepFor; /start within that time brings
// them back, later it starts afresh; removing the bot keeps every topic's.
func TestStoppedSettingsAreKept(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	if _, err := st.Subscribe(ctx, 5, 0, now); err != nil {
		t.Fatal(err)
	}
	c, _ := store.SetTimeZone("Europe/Berlin")
	if _, err := st.ChangeSettings(ctx, "5", c); err != nil {
		t.Fatal(err)
	}
	if err := st.SetComponents(ctx, "5", []string{"api1"}); err != nil {
		t.Fatal(err)
	}
	if err := st.StopSubscription(ctx, "5", now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Subscription(ctx, "5"); !errors.Is(err, store.ErrNotSubscribed) {
		t.Fatalf("still subscribed after stop: %v", err)
	}
	if err := st.StopSubscription(ctx, "5", now); !errors.Is(err, store.ErrNotSubscribed) {
		t.Fatalf("second stop: %v", err)
	}
	created, restored, err := st.Restart(ctx, 5, 0, now.Add(29*24*time.Hour))
	if err != nil || !created || restored == nil || !restored.StoppedAt.Equal(now) {
		t.Fatalf("restart: %v %+v %v", created, restored, err)
	}
	sub, err := st.Subscription(ctx, "5")
	if err != nil || sub.Settings.TimeZone != "Europe/Berlin" || !slices.Equal(sub.Components, []string{"api1"}) {
		t.Fatalf("restored %+v %v", sub, err)
	}
	if created, _, _ := st.Restart(ctx, 5, 0, now); created {
		t.Fatal("restart of a subscribed chat created one")
	}

	// Past KeepFor: a fresh subscription.
	if err := st.StopSubscription(ctx, "5", now); err != nil {
		t.Fatal(err)
	}
	created, restored, err = st.Restart(ctx, 5, 0, now.Add(store.KeepFor+time.Hour))
	if err != nil || !created || restored != nil {
		t.Fatalf("restart after KeepFor: %v %+v %v", created, restored, err)
	}
	if sub, _ := st.Subscription(ctx, "5"); sub.Settings.TimeZone != "" || len(sub.Components) != 0 {
		t.Fatalf("old settings came back after KeepFor: %+v", sub)
	}

	// The bot removed from a group: the group's and its topics' kept.
	for _, th := range []int{0, 9} {
		if _, err := st.Subscribe(ctx, -100, th, now); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.StopChat(ctx, -100, now); err != nil || n != 2 {
		t.Fatalf("stop chat: %d %v", n, err)
	}
	for _, th := range []int{0, 9} {
		if k, err := st.KeptSettings(ctx, store.SubscriberKey(-100, th), now); err != nil || k == nil {
			t.Fatalf("topic %d not kept: %v", th, err)
		}
	}
}

// A restored subscription gets its reminder lead back: reminder
// deliveries page chats by it.
func TestRestartRestoresTheReminderLead(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	_, err := st.Subscribe(ctx, 6, 0, now)
	require.NoError(t, err)
	require.NoError(t, st.ReplaceSettings(ctx, "6", store.Settings{ReminderMinutes: 30}))
	require.NoError(t, st.StopSubscription(ctx, "6", now))
	_, err = st.Subscription(ctx, "6") // stopped: gone until /start
	require.ErrorIs(t, err, store.ErrNotSubscribed)
	_, _, err = st.Restart(ctx, 6, 0, now)
	require.NoError(t, err)
	sub, err := st.Subscription(ctx, "6")
	require.NoError(t, err)
	require.Equal(t, 30, sub.LeadMinutes)
}
