package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Issue 30, item 6, end to end: a group in hold mode becomes a supergroup
// during its quiet window. Telegram answers the morning summary's send to
// the old group with "upgraded to a supergroup": the chat moves (held
// notices, fates with it) and the summary goes to the supergroup, once;
// /why there tells the night. On the old code the held notices stayed at
// the old key and the "migrated" answer failed the summary for good.
func TestMovedInTheNightGetsItsSummaryInTheSupergroup(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	now := time.Now().UTC()
	clock := func(t time.Time) string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) }
	end := now.Truncate(time.Minute).Add(2 * time.Minute)
	if end.Sub(now) < 75*time.Second {
		end = end.Add(time.Minute)
	}
	const group, super = -9810, -1009810
	held := storyChat{id: group, kinds: []event.Kind{event.KindComponent}, settings: store.Settings{Mode: store.ModeMessages,
		QuietStart: clock(now.Add(-time.Minute)), QuietEnd: clock(end), QuietHold: true}}
	plain := storyChat{id: 9811, kinds: []event.Kind{event.KindComponent}, settings: store.Settings{Mode: store.ModeMessages}}
	subscribeStoryChats(t, s, held, plain)
	s.StartWorker(t)
	s.WaitForBaseline(t)

	plainBox, oldBox, newBox := newInbox(s, plain.id), newInbox(s, group), newInbox(s, super)
	s.Page.SetComponent("api0000001", "API", "major_outage")
	plainBox.wait(t, 1, "the outage")
	waitDeliveriesClosed(t, s)
	require.Empty(t, oldBox.messages(), "held")

	// The group becomes a supergroup: from now on Telegram answers every
	// call to it so.
	s.Telegram.FailChat(group, func(int) *fakes.APIError { return fakes.Upgraded(super) })
	require.True(t, time.Now().Before(end))

	got := newBox.wait2(t, 1, time.Until(end)+time.Minute, "the morning summary in the supergroup")
	require.Contains(t, got[0].Text, "Morning summary")
	require.Contains(t, got[0].Text, "API")
	time.Sleep(3 * time.Second)
	require.Len(t, newBox.messages(), 1, "one summary")
	require.Empty(t, oldBox.messages())
	why, err := notice.WhyAnswer(context.Background(), s.Store, store.SubscriberKey(super, 0), time.UTC, notice.OnePage)
	require.NoError(t, err)
	require.Contains(t, why, "told in the morning summary", "/why in the supergroup")
	sub, err := s.Store.Subscription(context.Background(), store.SubscriberKey(super, 0))
	require.NoError(t, err)
	require.True(t, sub.Settings.QuietHold, "the settings moved")
}
