package worker_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// One component change reaches a private chat, a group and a forum topic
// exactly once, and the latency from the change to the last delivery is
// reported.
func TestChangeReachesEverySubscriberOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const interval = 2 * time.Second
	s := testenv.NewStack(t, interval)
	ctx := context.Background()
	now := time.Now()
	for _, sub := range []struct {
		chat   int64
		thread int
	}{{111, 0}, {-222, 0}, {-100333, 7}} {
		_, err := s.Store.Subscribe(ctx, sub.chat, sub.thread, now)
		require.NoError(t, err)
	}
	s.StartWorker(t)
	s.WaitForBaseline(t)
	require.Empty(t, s.Telegram.Messages(), "the baseline notifies no one")

	changed := time.Now()
	s.Page.SetComponent("api0000001", "API", "major_outage")
	testenv.WaitFor(t, 60*time.Second, "three deliveries", func() bool { return len(s.Telegram.Messages()) >= 3 })
	msgs := s.Telegram.Messages()
	last := msgs[len(msgs)-1].At
	t.Logf("change-to-delivery latency: first %v, last %v (poll interval %v)", msgs[0].At.Sub(changed).Round(time.Millisecond),
		last.Sub(changed).Round(time.Millisecond), interval)

	// Several more polls must not send anything again.
	time.Sleep(3 * interval)
	msgs = s.Telegram.Messages()
	require.Len(t, msgs, 3)
	require.Len(t, s.Telegram.MessagesTo(111, 0), 1)
	require.Len(t, s.Telegram.MessagesTo(-222, 0), 1)
	require.Len(t, s.Telegram.MessagesTo(-100333, 7), 1)
	for _, m := range msgs {
		require.Equal(t, "HTML", m.ParseMode)
		require.True(t, m.NoPreview, "link previews are off")
		require.Contains(t, m.Text, "API")
		require.Contains(t, m.Text, "Major Outage")
	}
}

// A worker killed with SIGKILL in the middle of a fan-out is restarted; every
// subscriber still gets the notification, and duplicates can only come from
// the sends in flight at the kill.
func TestWorkerKilledMidFanOutStillDeliversToEveryone(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const subscribers = 120
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	for i := 0; i < subscribers; i++ {
		_, err := s.Store.Subscribe(ctx, int64(10000+i), 0, time.Now())
		require.NoError(t, err)
	}
	var logs testenv.LogBuffer
	w1 := s.StartWorkerProcess(t, &logs)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker logs:\n%s", logs.String())
		}
	})
	s.WaitForBaseline(t)
	// Slow sends so that the kill lands mid-fan-out.
	s.Telegram.Hang(40 * time.Millisecond)
	s.Page.SetComponent("chatgpt001", "ChatGPT", "partial_outage")
	testenv.WaitFor(t, 60*time.Second, "the fan-out to be under way", func() bool { return len(s.Telegram.Messages()) >= 20 })
	require.NoError(t, w1.Process.Signal(syscall.SIGKILL))
	_, _ = w1.Process.Wait()
	atKill := len(s.Telegram.Messages())
	require.Less(t, atKill, subscribers, "the kill must land before the fan-out ends")

	s.StartWorkerProcess(t, &logs)
	testenv.WaitFor(t, 3*time.Minute, "every subscriber", func() bool {
		seen := map[int64]bool{}
		for _, m := range s.Telegram.Messages() {
			seen[m.ChatID] = true
		}
		return len(seen) == subscribers
	})
	time.Sleep(2 * time.Second)
	counts := map[int64]int{}
	for _, m := range s.Telegram.Messages() {
		counts[m.ChatID]++
	}
	dups := 0
	for _, n := range counts {
		dups += n - 1
	}
	t.Logf("killed after %d of %d sends; %d duplicate(s) after restart", atKill, subscribers, dups)
	require.Len(t, counts, subscribers, "no subscriber lost")
	// At most one window of sends can be in flight when the worker dies.
	require.LessOrEqual(t, dups, 50, "duplicates only from sends in flight at the kill")
	require.NotContains(t, logs.String(), testenv.TestToken[strings.IndexByte(testenv.TestToken, ':')+1:], "the token never reaches a log")
}
