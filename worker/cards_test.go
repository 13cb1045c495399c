package worker_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// setSettings writes a chat's settings as /settings would.
func setSettings(t *testing.T, s *testenv.Stack, key string, settings store.Settings) {
	t.Helper()
	require.NoError(t, s.Store.ReplaceSettings(context.Background(), key, settings))
}

type chat struct {
	id     int64
	thread int
}

// An incident with three updates and a resolution: a private chat, a group
// (pinning) and a forum topic in cards mode get exactly one card each,
// edited to the final state, and three replies under it; a group that
// does not let the bot pin gets the same; a chat in messages mode gets
// four messages; a card deleted by users is replaced by a fresh one.
func TestIncidentCards(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const interval = time.Second
	s := testenv.NewStack(t, interval)
	ctx := context.Background()
	private, group, topic, noPin := chat{111, 0}, chat{-222, 0}, chat{-100333, 7}, chat{-100666, 0}
	messages, deleting, migrating := chat{444, 0}, chat{555, 0}, chat{-777, 0}
	supergroup := chat{-100777, 0}
	cardChats := []chat{private, group, topic, noPin}
	for _, c := range append(cardChats, messages, deleting, migrating) {
		_, err := s.Store.Subscribe(ctx, c.id, c.thread, time.Now())
		require.NoError(t, err)
	}
	setSettings(t, s, store.SubscriberKey(group.id, 0), store.Settings{Mode: store.ModeCards, PinCards: true})
	setSettings(t, s, store.SubscriberKey(noPin.id, 0), store.Settings{Mode: store.ModeCards, PinCards: true})
	setSettings(t, s, store.SubscriberKey(messages.id, 0), store.Settings{Mode: store.ModeMessages})
	s.Telegram.DenyPinning(noPin.id)
	s.StartWorker(t)
	s.WaitForBaseline(t)

	everyone := append(append([]chat{}, cardChats...), messages, deleting, migrating, supergroup)
	// expect is how many messages a chat has once update i reached it: the
	// group that migrates keeps its first card, the supergroup starts with
	// a fresh card at the second update.
	expect := func(c chat, i int) int {
		switch c {
		case migrating:
			return 1
		case supergroup:
			return i
		}
		return i + 1
	}
	reached := func(i int) func() bool {
		return func() bool {
			for _, c := range everyone {
				if len(s.Telegram.MessagesTo(c.id, c.thread)) < expect(c, i) {
					return false
				}
			}
			return true
		}
	}
	updates := []struct{ status, body string }{
		{"investigating", "We are investigating elevated errors."},
		{"identified", "The cause is a bad deploy."},
		{"monitoring", "A fix is deployed; we are monitoring."},
		{"resolved", "This incident has been resolved."},
	}
	for i, u := range updates {
		s.Page.AddIncidentUpdate("inc00001", "Elevated errors on the API", u.status, "major", "upd0000"+string(rune('1'+i)), u.body)
		testenv.WaitFor(t, time.Minute, u.status+" to reach every chat", reached(i))
		if i == 0 {
			card := s.Telegram.MessagesTo(group.id, 0)[0]
			testenv.WaitFor(t, 5*time.Second, "the group's card pinned", func() bool { return s.Telegram.Pinned(card.ID) })
			s.Telegram.DeleteMessage(deleting.id, s.Telegram.MessagesTo(deleting.id, 0)[0].ID)
			testenv.WaitFor(t, 5*time.Second, "the card in the group to migrate", func() bool { return len(s.Telegram.MessagesTo(migrating.id, 0)) == 1 })
			s.Telegram.FailChat(migrating.id, func(int) *fakes.APIError { return fakes.Upgraded(supergroup.id) })
		}
	}
	time.Sleep(4 * interval) // nothing more comes
	final := []string{"Incident resolved", "Investigating", "Identified", "Monitoring", "Resolved", "This incident has been resolved."}
	for _, c := range cardChats {
		msgs := s.Telegram.MessagesTo(c.id, c.thread)
		require.Len(t, msgs, 4, "chat %d: one card and three replies", c.id)
		card := msgs[0]
		require.Zero(t, card.ReplyTo)
		for _, want := range final {
			require.Contains(t, card.Text, want, "chat %d: the card shows the final state", c.id)
		}
		require.Equal(t, 3, s.Telegram.EditCount(card.ID), "chat %d: edited once per later update", c.id)
		require.False(t, s.Telegram.Pinned(card.ID), "chat %d: unpinned on resolve", c.id)
		for i, m := range msgs[1:] {
			require.Equal(t, card.ID, m.ReplyTo, "chat %d: update %d replies to the card", c.id, i+2)
			require.Contains(t, m.Text, updates[i+1].body)
		}
	}
	require.Contains(t, s.Telegram.MessagesTo(topic.id, topic.thread)[1].Text, "Identified")

	msgs := s.Telegram.MessagesTo(messages.id, 0)
	require.Len(t, msgs, 4, "messages mode: one message per update")
	for i, m := range msgs {
		require.Zero(t, m.ReplyTo)
		require.Contains(t, m.Text, "Incident update")
		require.Contains(t, m.Text, updates[i].body)
	}

	msgs = s.Telegram.MessagesTo(deleting.id, 0)
	require.Len(t, msgs, 4, "the deleted card, a fresh one, two replies")
	fresh := msgs[1]
	require.Zero(t, fresh.ReplyTo, "a fresh card replaces the deleted one")
	for _, want := range final {
		require.Contains(t, fresh.Text, want)
	}
	require.Equal(t, fresh.ID, msgs[2].ReplyTo)
	require.Equal(t, fresh.ID, msgs[3].ReplyTo)
	require.Len(t, s.Telegram.MessagesTo(migrating.id, 0), 1, "the old group keeps its first card")
	msgs = s.Telegram.MessagesTo(supergroup.id, 0)
	require.Len(t, msgs, 3, "a fresh card in the supergroup, two replies")
	require.Zero(t, msgs[0].ReplyTo)
	for _, want := range final {
		require.Contains(t, msgs[0].Text, want)
	}
	require.Equal(t, msgs[0].ID, msgs[2].ReplyTo)
	require.Zero(t, s.Telegram.TooManyCount())
	t.Logf("final card:\n%s\nreply:\n%s", s.Telegram.MessagesTo(private.id, 0)[0].Text, s.Telegram.MessagesTo(private.id, 0)[3].Text)
}

// A later update of an incident in cards mode is two Bot API calls per
// chat (an edit of the card and a reply under it), and Telegram counts
// both: the fan-out to a few hundred chats at the default
// TELEGRAM_RATE_LIMIT must keep the token's calls under Telegram's limits
// (the fake enforces 30 a second overall, one a second per chat) and get
// no 429, every chat its edit and its reply, once; with two workers as
// with one (each with its own pacing, the limits are the token's).
func TestCardsFanOutKeepsTelegramLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) { cardsFanOutKeepsTelegramLimits(t, workers) })
	}
}

func cardsFanOutKeepsTelegramLimits(t *testing.T, workers int) {
	s := testenv.NewStack(t, time.Hour)
	s.Config.TelegramRateLimit = 20 // the default
	s.Telegram.RealLimits()
	const n, firstChat = 300, 8_000_000
	seedSubscribersWith(t, s, firstChat, n, store.Settings{Mode: store.ModeCards})
	for range workers {
		s.StartWorker(t)
	}
	s.WaitForBaseline(t)
	update := func(i int, status string) {
		s.Page.AddIncidentUpdate("inc00001", "Elevated errors on the API", status, "major", fmt.Sprintf("upd%05d", i), fmt.Sprintf("Update %d of the incident.", i))
		s.TriggerPoll(t)
	}
	update(1, "investigating")
	testenv.WaitFor(t, 3*time.Minute, "the cards", func() bool { return len(s.Telegram.Messages()) >= n })
	waitDeliveriesClosed(t, s)
	cards, edits0 := len(s.Telegram.Messages()), len(s.Telegram.Edits())

	update(2, "identified")
	lastLog := time.Now()
	testenv.WaitFor(t, 3*time.Minute, "the replies", func() bool {
		if time.Since(lastLog) > 10*time.Second {
			lastLog = time.Now()
			t.Logf("progress: replies %d, edits %d, 429s %d", len(s.Telegram.Messages())-cards, len(s.Telegram.Edits())-edits0, s.Telegram.TooManyCount())
		}
		return len(s.Telegram.Messages())-cards >= n
	})
	waitDeliveriesClosed(t, s)
	replies, edits := s.Telegram.Messages()[cards:], s.Telegram.Edits()[edits0:]
	var at []time.Time
	for _, m := range replies {
		at = append(at, m.At)
	}
	for _, e := range edits {
		at = append(at, e.At)
	}
	slices.SortFunc(at, time.Time.Compare)
	t.Logf("update to %d cards: %d edits + %d replies in %v; busiest second of the token: %d calls; 429s: %d",
		n, len(edits), len(replies), at[len(at)-1].Sub(at[0]).Round(time.Millisecond), s.Telegram.BusiestSecond(), s.Telegram.TooManyCount())

	if lost, dups := tally(replies, firstChat, n); lost != 0 || dups != 0 {
		t.Errorf("replies: %d lost, %d duplicate(s)", lost, dups)
	}
	edited := map[int64]int{}
	for _, e := range edits {
		edited[e.ChatID]++
	}
	require.Len(t, edited, n, "every card edited")
	require.Zero(t, s.Telegram.TooManyCount(), "429s from Telegram")
	require.LessOrEqual(t, s.Telegram.BusiestSecond(), 30, "Bot API calls (messages and edits) in the busiest second")
}
