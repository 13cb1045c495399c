package worker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A fan-out to 1,000 chats costs at most 0.1 activities, 1 history event
// and 0.5 MongoDB round trips a message (issue 29, items 1 and 6): its
// sends go out in batches, one SendBatch activity each, whose sends claim
// their chats' turns and write their /why records together. On the build
// before (a Send activity per message, a claim and a /why insert each),
// the same fan-out cost 1.03 activities, 5.8 history events and 2.3 round
// trips a message (docs/benchmarks.md). Every chat gets the notice once.
// Counts, not times: the rate is high and the fake's limits are off so
// that the test is short, and nothing here depends on the machine's speed.
func TestFanOutOfAThousandChatsCostsLittlePerMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const n, first = 1000, 3_000_000
	s := testenv.NewStack(t, time.Hour)
	s.Config.TelegramRateLimit = 200
	seedSubscribers(t, s, first, n)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	counted := map[string]bool{}
	_ = countHistories(t, s, counted, "")
	before, trips0 := s.Telegram.MessageCount(), s.Store.RoundTrips()

	s.Page.SetComponent("api0000001", "API", "major_outage")
	s.TriggerPoll(t)
	testenv.WaitFor(t, 5*time.Minute, "every chat told", func() bool { return s.Telegram.MessageCount()-before >= n })
	waitDeliveriesClosed(t, s)
	msgs := s.Telegram.Messages()[before:]
	lost, dups := tally(msgs, first, n)
	require.Zero(t, lost, "chats not told")
	require.Zero(t, dups, "chats told twice")

	c := countHistories(t, s, counted, "")
	trips := s.Store.RoundTrips() - trips0
	m := float64(len(msgs))
	t.Logf("RESULT %d messages: %.3f activities, %.3f history events, %.3f MongoDB round trips a message (%d workflow runs)",
		len(msgs), float64(c.activities)/m, float64(c.events)/m, float64(trips)/m, c.runs)
	require.LessOrEqual(t, float64(c.activities)/m, 0.1, "activities a message")
	require.LessOrEqual(t, float64(c.events)/m, 1.0, "history events a message")
	require.LessOrEqual(t, float64(trips)/m, 0.5, "MongoDB round trips a message (the poll's, the page reads and the ledger included)")
}
