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
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Twenty-five components change at once: a group subscribed to all of
// them gets 25 notices, each in its own delivery, on two workers. Telegram
// allows a group about 20 messages a minute (the fake enforces it, and one
// a second per chat, 30 a second overall): every notice arrives, at the
// group's pace, and Telegram never has to refuse one (on main: 20 sent at
// a second apart, then a 429 with retry_after 40 for the rest).
func TestGroupGetsANoticeBurstAtItsPace(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Hour)
	s.Telegram.RealLimits()
	const group, n = int64(-100500), 25
	_, err := s.Store.Subscribe(context.Background(), group, 0, time.Now())
	require.NoError(t, err)
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
	testenv.WaitFor(t, 4*time.Minute, "25 notices in the group", func() bool { return len(s.Telegram.MessagesTo(group, 0)) >= n })
	time.Sleep(3 * time.Second) // nothing more comes
	msgs := s.Telegram.MessagesTo(group, 0)
	require.Len(t, msgs, n)
	var at []time.Time
	var order []int
	for _, m := range msgs {
		at = append(at, m.At)
		for i := range n {
			if strings.Contains(m.Text, name(i)) {
				order = append(order, i)
			}
		}
	}
	minGap := time.Hour
	for i := 1; i < len(at); i++ {
		minGap = min(minGap, at[i].Sub(at[i-1]))
	}
	t.Logf("RESULT group burst: %d notices in %v, closest two %v apart, most in a minute %d, 429s %d; components in the order %v",
		len(msgs), at[len(at)-1].Sub(at[0]).Round(time.Millisecond), minGap.Round(time.Millisecond), fakes.Busiest(at, time.Minute), s.Telegram.TooManyCount(), order)
	require.Len(t, order, n, "each notice names its component")
	// The changes came in the order of the components (one poll, their
	// events in that order): the group gets them so.
	require.True(t, slices.IsSorted(order), "the notices in the order of their events: %v", order)
	require.Zero(t, s.Telegram.TooManyCount(), "429s from Telegram")
	require.GreaterOrEqual(t, minGap, time.Second)
	require.LessOrEqual(t, fakes.Busiest(at, time.Minute), 20)
}
