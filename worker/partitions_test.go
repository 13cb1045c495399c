package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/worker"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Issue 29 item 7: a Temporal server nobody configured for the bot (four
// partitions of every task queue, as on Temporal Cloud). Two workers fan a
// component change out to 200 chats at TELEGRAM_RATE_LIMIT=25 against a
// fake Telegram at Telegram's limits: every chat gets it once, no second
// holds more than the rate, Telegram refuses nothing. How near the rate the
// fan-out runs is a benchmark's figure (BenchmarkFanOutWorkers with BENCH_PARTITIONS=default,
// docs/benchmarks.md), not this test's.
func TestFanOutAtDefaultPartitionsKeepsTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	tmp := testenv.StartOwnTemporalAtDefaults(t)
	s := testenv.NewStackWith(t, time.Hour, testenv.StackOptions{TemporalAddress: tmp.Addr, TemporalNamespace: tmp.Namespace})
	s.Config.TelegramRateLimit = 25
	s.Telegram.RealLimits()
	const n, first = 200, 9_100_000
	seedSubscribersWith(t, s, first, n, store.Settings{Mode: store.ModeMessages})
	s.StartWorker(t)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	s.Page.SetComponent("api0000001", "API", "major_outage")
	s.TriggerPoll(t)
	testenv.WaitFor(t, 5*time.Minute, "every chat told", func() bool { return chatsWith(s.Telegram.Messages(), "component", first, n) == n })
	waitDeliveriesClosed(t, s)

	msgs := s.Telegram.Messages()
	span := msgs[len(msgs)-1].At.Sub(msgs[0].At)
	t.Logf("%d chats in %v (%.2f of the rate) at four partitions; busiest second %d; 429s %d",
		n, span.Round(time.Millisecond), float64(n-1)/span.Seconds()/25, s.Telegram.BusiestSecond(), s.Telegram.TooManyCount())
	lost, dups := tally(msgs, first, n)
	require.Zero(t, lost, "lost")
	require.Zero(t, dups, "duplicates")
	require.Zero(t, s.Telegram.TooManyCount(), "429s from Telegram")
	// The budget spaces the calls' starts; the fake counts arrivals, which a
	// loaded machine's HTTP jitter can bring one slot closer.
	require.LessOrEqual(t, s.Telegram.BusiestSecond(), 25+1, "Bot API calls in the busiest second")

	// The server did have more than one partition of the send queue.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	more, err := worker.HasMorePartitions(ctx, s.Temporal, tmp.Namespace, workflows.SendTaskQueue(s.Config.TemporalTaskQueue))
	require.NoError(t, err)
	require.True(t, more, "pollers on partitions 1-3 of the send queue")
}
