package worker_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/worker"
	"github.com/openai-status-bot/statusbot/workflows"
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

// A worker killed with SIGKILL in the middle of a fan-out (300 subscribers,
// killed after 100, as a new user would try it) is restarted; every
// subscriber still gets the notification, the rest arrive within about
// HTTP_TIMEOUT of the kill plus the time their sends take at the rate
// limit (the sends lost with the worker miss their heartbeat: retried after
// a few seconds, not 90s), and duplicates can only come from the sends in flight at the kill.
func TestWorkerKilledMidFanOutStillDeliversToEveryone(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const subscribers = 300
	s, logs := fanOutWithWorkerProcess(t, subscribers)
	w1 := s.StartWorkerProcess(t, logs)
	startChange(t, s, 100)
	require.NoError(t, w1.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	_, _ = w1.Process.Wait()
	atKill := len(s.Telegram.Messages())
	require.Less(t, atKill, subscribers, "the kill must land before the fan-out ends")

	s.StartWorkerProcess(t, logs)
	waitEveryone(t, s, subscribers)
	msgs := s.Telegram.Messages()
	last := msgs[len(msgs)-1].At.Sub(killed)
	atRate := time.Duration(float64(subscribers-atKill) / s.Config.TelegramRateLimit * float64(time.Second))
	stall := last - atRate
	time.Sleep(2 * time.Second)
	dups := duplicates(s)
	t.Logf("killed after %d of %d sends; the last arrived %v after the kill (%v of it sending at the rate limit: stalled %v); %d duplicate(s)",
		atKill, subscribers, last.Round(time.Millisecond), atRate.Round(time.Millisecond), stall.Round(time.Millisecond), dups)
	// At most one window of sends can be in flight when the worker dies.
	require.LessOrEqual(t, dups, 50, "duplicates only from sends in flight at the kill")
	require.Less(t, stall, s.Config.HTTPTimeout+workflows.DefaultTuning().SendHeartbeat+10*time.Second,
		"the sends lost with the worker are retried after the heartbeat time-out, not the 90s StartToCloseTimeout")
	require.NotContains(t, logs.String(), testenv.TestToken[strings.IndexByte(testenv.TestToken, ':')+1:], "the token never reaches a log")
}

// A worker stopped with SIGTERM in the middle of a fan-out (a deploy)
// drains: its sends finish and report, and the next worker goes on without
// a single duplicate.
func TestWorkerStoppedMidFanOutDrainsWithoutDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const subscribers = 300
	s, logs := fanOutWithWorkerProcess(t, subscribers)
	w1 := s.StartWorkerProcess(t, logs)
	startChange(t, s, 100)
	// Telegram accepts at once and answers a second later: a send cut by
	// the stop would be retried and arrive twice.
	s.Telegram.Hang(0)
	s.Telegram.AnswerDelay(time.Second)
	time.Sleep(2 * time.Second)
	require.NoError(t, w1.Process.Signal(syscall.SIGTERM))
	stopping := time.Now()
	_, _ = w1.Process.Wait()
	drained := time.Since(stopping)
	atStop := len(s.Telegram.Messages())
	require.Less(t, atStop, subscribers, "the stop must land before the fan-out ends")
	require.Less(t, drained, worker.DrainTimeout+5*time.Second)
	s.Telegram.AnswerDelay(0)

	s.StartWorkerProcess(t, logs)
	waitEveryone(t, s, subscribers)
	time.Sleep(2 * time.Second)
	dups := duplicates(s)
	t.Logf("stopped (SIGTERM) after %d of %d sends, drained in %v; %d duplicate(s)", atStop, subscribers, drained.Round(time.Millisecond), dups)
	require.Zero(t, dups, "a drained worker leaves no send with an unknown outcome")
}

func fanOutWithWorkerProcess(t *testing.T, subscribers int) (*testenv.Stack, *testenv.LogBuffer) {
	s := testenv.NewStack(t, 2*time.Second)
	seedSubscribers(t, s, 10000, subscribers)
	logs := &testenv.LogBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker logs:\n%s", logs.String())
		}
	})
	return s, logs
}

// startChange waits for the baseline, changes a component with slow sends
// (so that the fan-out takes a while) and returns after `after` sends.
func startChange(t *testing.T, s *testenv.Stack, after int) {
	s.WaitForBaseline(t)
	s.Telegram.Hang(40 * time.Millisecond)
	s.Page.SetComponent("chatgpt001", "ChatGPT", "partial_outage")
	testenv.WaitFor(t, 60*time.Second, "the fan-out to be under way", func() bool { return len(s.Telegram.Messages()) >= after })
}

func waitEveryone(t *testing.T, s *testenv.Stack, subscribers int) {
	testenv.WaitFor(t, 3*time.Minute, "every subscriber", func() bool {
		seen := map[int64]bool{}
		for _, m := range s.Telegram.Messages() {
			seen[m.ChatID] = true
		}
		return len(seen) == subscribers
	})
}

func duplicates(s *testenv.Stack) int {
	counts := map[int64]int{}
	for _, m := range s.Telegram.Messages() {
		counts[m.ChatID]++
	}
	dups := 0
	for _, n := range counts {
		dups += n - 1
	}
	return dups
}
