package worker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A card opened in the evening and resolved during the chat's held quiet
// hours is resolved and unpinned by morning, with no ringing message at
// night: the card's edit and unpin are silent and go at once, the reply
// waits for the morning summary, which tells the resolution. Before, the
// hold came before any card code: the card stayed pinned showing the
// incident open, after the summary too.
func TestCardResolvedInHeldHoursIsEndedByMorning(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	ctx := context.Background()
	const group = int64(-3101)
	key := store.SubscriberKey(group, 0)
	_, err := s.Store.Subscribe(ctx, group, 0, time.Now())
	require.NoError(t, err)
	setSettings(t, s, key, store.Settings{Mode: store.ModeCards, PinCards: true})
	s.StartWorker(t)
	s.WaitForBaseline(t)

	// The evening: the card, pinned.
	s.Page.AddIncidentUpdate("inc03101", "Elevated errors on the API", "investigating", "major", "upd03101", "We are investigating elevated errors.")
	testenv.WaitFor(t, time.Minute, "the card", func() bool { return len(s.Telegram.MessagesTo(group, 0)) == 1 })
	card := s.Telegram.MessagesTo(group, 0)[0]
	testenv.WaitFor(t, 10*time.Second, "the card pinned", func() bool { return s.Telegram.Pinned(card.ID) })
	waitDeliveriesClosed(t, s)

	// The night: held quiet hours, ending 1-2 minutes from now.
	now := time.Now().UTC()
	clock := func(t time.Time) string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) }
	end := now.Truncate(time.Minute).Add(2 * time.Minute)
	if end.Sub(now) < 90*time.Second {
		end = end.Add(time.Minute)
	}
	setSettings(t, s, key, store.Settings{Mode: store.ModeCards, PinCards: true,
		QuietStart: clock(now.Add(-time.Minute)), QuietEnd: clock(end), QuietHold: true})
	s.Page.AddIncidentUpdate("inc03101", "Elevated errors on the API", "resolved", "major", "upd03102", "This incident has been resolved.")
	resolved := func() bool {
		m, ok := s.Telegram.Message(group, card.ID)
		return ok && strings.Contains(m.Text, "Incident resolved") && !s.Telegram.Pinned(card.ID)
	}
	testenv.WaitFor(t, time.Minute, "the card resolved and unpinned at night", resolved)
	waitDeliveriesClosed(t, s)
	require.True(t, time.Now().Before(end), "the resolution must come before the window's end")
	require.Len(t, s.Telegram.MessagesTo(group, 0), 1, "no ringing message at night: the reply is held")

	// The morning: the summary tells the resolution; the card stays ended.
	testenv.WaitFor(t, time.Until(end)+time.Minute, "the morning summary", func() bool { return len(s.Telegram.MessagesTo(group, 0)) == 2 })
	time.Sleep(3 * time.Second)
	msgs := s.Telegram.MessagesTo(group, 0)
	require.Len(t, msgs, 2, "the card and one summary")
	require.False(t, msgs[1].At.Before(end), "the summary at the window's end")
	require.Contains(t, msgs[1].Text, "Morning summary")
	require.Contains(t, msgs[1].Text, "Elevated errors on the API")
	require.True(t, resolved(), "the card still resolved and unpinned")
	m, _ := s.Telegram.Message(group, card.ID)
	t.Logf("card by morning:\n%s\nsummary:\n%s", m.Text, msgs[1].Text)
}
