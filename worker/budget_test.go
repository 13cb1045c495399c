package worker_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Twenty-five components change at once: a group subscribed to all of
// them hears of 25 changes, each in its own delivery, on two workers.
// Telegram allows a group about 20 messages a minute (the fake enforces it,
// and one a second per chat, 30 a second overall): every change arrives,
// in order, at the group's pace, and Telegram never has to refuse a call
// (on main before one call per Send: 20 sent at a second apart, then a 429
// with retry_after 40 for the rest). In messages mode that is 25 messages;
// in cards mode (the default) the changes waiting in the group's queue are
// folded into the message whose turn comes: a few messages, all 25 told.
func TestGroupGetsANoticeBurstAtItsPace(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	for _, mode := range []string{store.ModeMessages, store.ModeCards} {
		t.Run(mode, func(t *testing.T) { groupBurst(t, mode) })
	}
}

func groupBurst(t *testing.T, mode string) {
	s := testenv.NewStack(t, time.Hour)
	s.Telegram.RealLimits()
	const group, n = int64(-100500), 25
	_, err := s.Store.Subscribe(context.Background(), group, 0, time.Now())
	require.NoError(t, err)
	setSettings(t, s, store.SubscriberKey(group, 0), store.Settings{Mode: mode})
	name := func(i int) string { return fmt.Sprintf("Component %02d", i) }
	for i := range n {
		s.Page.SetComponent(fmt.Sprintf("cmp%07d", i), name(i), "operational")
	}
	s.StartWorker(t)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	for i := range n {
		s.Page.SetComponent(fmt.Sprintf("cmp%07d", i), name(i), "major_outage")
	}
	s.TriggerPoll(t)
	told := func() []int { // the components named, in the order the group got them
		var order []int
		for _, m := range s.Telegram.MessagesTo(group, 0) {
			var in []int // by where each is first named in the message
			for i := range n {
				if strings.Contains(m.Text, name(i)) {
					in = append(in, i)
				}
			}
			slices.SortFunc(in, func(a, b int) int { return strings.Index(m.Text, name(a)) - strings.Index(m.Text, name(b)) })
			order = append(order, in...)
		}
		return order
	}
	testenv.WaitFor(t, 4*time.Minute, "25 changes told in the group", func() bool { return len(told()) >= n })
	waitDeliveriesClosed(t, s)
	time.Sleep(3 * time.Second) // nothing more comes
	msgs := s.Telegram.MessagesTo(group, 0)
	order := told()
	var at []time.Time
	for _, m := range msgs {
		at = append(at, m.At)
	}
	for _, m := range msgs {
		t.Logf("message at +%v: %d lines", m.At.Sub(msgs[0].At).Round(time.Millisecond), strings.Count(m.Text, "\n")+1)
	}
	minGap := time.Hour
	for i := 1; i < len(at); i++ {
		minGap = min(minGap, at[i].Sub(at[i-1]))
	}
	t.Logf("RESULT group burst (%s): %d changes in %d messages over %v, closest two %v apart, most in a minute %d, 429s %d; components in the order %v",
		mode, len(order), len(msgs), at[len(at)-1].Sub(at[0]).Round(time.Millisecond), minGap.Round(time.Millisecond), fakes.Busiest(at, time.Minute),
		s.Telegram.TooManyCount(), order)
	require.Len(t, order, n, "each change told once")
	// The changes came in the order of the components (one poll, their
	// events in that order): the group gets them so.
	require.True(t, slices.IsSorted(order), "the changes in the order of their events: %v", order)
	require.Zero(t, s.Telegram.TooManyCount(), "429s from Telegram")
	if len(at) > 1 {
		require.GreaterOrEqual(t, minGap, time.Second)
	}
	require.LessOrEqual(t, fakes.Busiest(at, time.Minute), 20)
	if mode == store.ModeMessages {
		require.Len(t, msgs, n, "a message each")
	} else {
		require.Less(t, len(msgs), n/2, "cards mode folds the changes waiting in the queue")
	}
}
