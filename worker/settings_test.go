package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A chat's settings apply where notices are sent: in quiet hours a notice
// goes out with disable_notification, a severity threshold skips a
// degraded-performance change (and lets the outage after it through), and
// a chat without settings hears both with sound.
func TestSettingsApplyToDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	now := time.Now()
	const quiet, outagesOnly, plain = 111, -222, 333
	for _, chat := range []int64{quiet, outagesOnly, plain} {
		_, err := s.Store.Subscribe(ctx, chat, 0, now)
		require.NoError(t, err)
	}
	// Quiet hours around now, in the chat's zone (Tokyo: not UTC, so a
	// window read in the wrong zone would miss).
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	local := now.In(tokyo)
	c, err := store.SetQuietHours(local.Add(-time.Hour).Format("15:04"), local.Add(2*time.Hour).Format("15:04"))
	require.NoError(t, err)
	_, err = s.Store.ChangeSettings(ctx, store.SubscriberKey(quiet, 0), c)
	require.NoError(t, err)
	c, err = store.SetTimeZone("Asia/Tokyo")
	require.NoError(t, err)
	_, err = s.Store.ChangeSettings(ctx, store.SubscriberKey(quiet, 0), c)
	require.NoError(t, err)
	c, err = store.SetSeverity(store.SeverityOutage, false)
	require.NoError(t, err)
	_, err = s.Store.ChangeSettings(ctx, store.SubscriberKey(outagesOnly, 0), c)
	require.NoError(t, err)

	s.StartWorker(t)
	s.WaitForBaseline(t)

	s.Page.SetComponent("api0000001", "API", "degraded_performance")
	testenv.WaitFor(t, 60*time.Second, "the degraded notice", func() bool {
		return len(s.Telegram.MessagesTo(plain, 0)) == 1 && len(s.Telegram.MessagesTo(quiet, 0)) == 1
	})
	s.Page.SetComponent("api0000001", "API", "major_outage")
	testenv.WaitFor(t, 60*time.Second, "the outage notice", func() bool {
		return len(s.Telegram.MessagesTo(plain, 0)) == 2 && len(s.Telegram.MessagesTo(quiet, 0)) == 2 &&
			len(s.Telegram.MessagesTo(outagesOnly, 0)) == 1
	})
	time.Sleep(4 * time.Second) // later polls send nothing more

	got := s.Telegram.MessagesTo(outagesOnly, 0)
	require.Len(t, got, 1, "the threshold skips the degraded change")
	require.Contains(t, got[0].Text, "Major Outage")
	require.False(t, got[0].Silent)
	for _, m := range s.Telegram.MessagesTo(quiet, 0) {
		require.True(t, m.Silent, "quiet hours send silently: %q", m.Text)
	}
	plainMsgs := s.Telegram.MessagesTo(plain, 0)
	require.Len(t, plainMsgs, 2)
	require.Contains(t, plainMsgs[0].Text, "Degraded Performance")
	for _, m := range plainMsgs {
		require.False(t, m.Silent)
	}
}

// Notices show their times in the chat's zone: a maintenance window reads
// in Berlin time in a chat set to Europe/Berlin and in UTC in a chat
// without a zone; so does an incident card's timeline.
func TestSettingsZoneAppliesToNotices(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	const berlin, utc = 555, -666
	for _, chat := range []int64{berlin, utc} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	c, err := store.SetTimeZone("Europe/Berlin")
	require.NoError(t, err)
	_, err = s.Store.ChangeSettings(ctx, store.SubscriberKey(berlin, 0), c)
	require.NoError(t, err)

	s.StartWorker(t)
	s.WaitForBaseline(t)

	// 23:00-01:00 in Berlin (summer time): the window crosses midnight
	// there, not in UTC.
	const id = "01MNT00000000000000000000Z"
	s.Page.SetMaintenanceWindow(id, time.Date(2026, 7, 18, 21, 0, 0, 0, time.UTC), time.Date(2026, 7, 18, 23, 0, 0, 0, time.UTC))
	s.Page.AddMaintenanceUpdate(id, "Database upgrade", "scheduled", "01UPDZ0000000000000000001Z", "We will upgrade the database.")
	testenv.WaitFor(t, 60*time.Second, "the maintenance notices", func() bool {
		return len(s.Telegram.MessagesTo(berlin, 0)) == 1 && len(s.Telegram.MessagesTo(utc, 0)) == 1
	})
	// The times are date-time entities; the text behind them is in the chat's zone.
	require.Len(t, s.Telegram.MessagesTo(berlin, 0)[0].Times, 2)
	b, u := timeTags.ReplaceAllString(s.Telegram.MessagesTo(berlin, 0)[0].Text, ""), timeTags.ReplaceAllString(s.Telegram.MessagesTo(utc, 0)[0].Text, "")
	require.Contains(t, b, "Window: 2026-07-18 23:00 – 2026-07-19 01:00 CEST", "the Berlin chat reads Berlin time")
	require.NotContains(t, b, "UTC")
	require.Contains(t, u, "Window: 2026-07-18 21:00 – 23:00 UTC", "the chat without a zone reads UTC")
	require.Contains(t, b, "We will upgrade the database.")

	// New chats get incident cards: the timeline reads in the chat's zone.
	s.Page.AddIncidentUpdate("01INCZ0000000000000000000Z", "Elevated errors", "investigating", "minor", "01UPDZ0000000000000000002Z", "Looking.")
	testenv.WaitFor(t, 60*time.Second, "the incident cards", func() bool {
		return len(s.Telegram.MessagesTo(berlin, 0)) == 2 && len(s.Telegram.MessagesTo(utc, 0)) == 2
	})
	// The fake page's clock reads 2026-03-08 09:0x UTC.
	require.Contains(t, timeTags.ReplaceAllString(s.Telegram.MessagesTo(berlin, 0)[1].Text, ""), "<b>Timeline (Europe/Berlin)</b>\n• Mar 8 10:0")
	require.Contains(t, timeTags.ReplaceAllString(s.Telegram.MessagesTo(utc, 0)[1].Text, ""), "<b>Timeline (UTC)</b>\n• Mar 8 09:0")
}
