package worker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/workflows"
)

// Issue 29 item 7: the server divides the send queue's limit among its
// partitions (four by default, and on Temporal Cloud, where an operator
// cannot set it to one). At the fan-out's tail every send may sit in one
// partition: that one alone must still feed the whole rate. On the old code
// the queue's limit was the rate itself, so one partition fed a quarter of
// it (a 200-chat fan-out at 30/s reached 0.77 of the limit); the limit
// itself is the send budget's (store.SendBudget), not the queue's.
func TestSendQueueFeedsTheRateFromAnyOnePartition(t *testing.T) {
	for _, rate := range []float64{1, 20, 25, 30, 1000} {
		o := sendWorkerOptions(rate)
		require.GreaterOrEqual(t, o.TaskQueueActivitiesPerSecond/defaultPartitions, rate, "one of four partitions at TELEGRAM_RATE_LIMIT=%g", rate)
		require.Equal(t, rate, o.WorkerActivitiesPerSecond, "a worker takes its sends evenly, at the rate")
		require.Equal(t, DrainTimeout, o.WorkerStopTimeout)
	}
}

// The worker says how many partitions the send queue has once it knows:
// a first check that fails (the server restarting, as in an upgrade with
// the bot running) is not the end of it. On the old code only the first
// check could say "one partition": after a failed first check nothing
// was ever said (make test-production timed out waiting for the line).
func TestPartitionsAreSaidAfterAFailedCheck(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	answers := []error{errors.New("connection refused"), nil, nil}
	var calls atomic.Int32
	check := func(context.Context) (bool, error) {
		n := int(calls.Add(1)) - 1
		return false, answers[min(n, len(answers)-1)]
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		sayPartitions(ctx, check, []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond}, time.Hour, "q-telegram", log)
		close(done)
	}()
	require.Eventually(t, func() bool { return calls.Load() >= 3 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	require.Contains(t, buf.String(), "describe failed")
	require.Equal(t, 1, strings.Count(buf.String(), "the send queue has one partition"), "said once, after the failed check:\n%s", buf.String())
	require.NotContains(t, buf.String(), "more than one partition")
}

// Both workers send an activity's heartbeat within a second of its
// record: a batch of sends runs for seconds under a 5 s heartbeat
// time-out, and the SDK's default (0.8 of the time-out) left it a second
// of slack, so that on a loaded machine the server timed a live batch out
// and its retry sent again what had gone out since the heartbeat before.
func TestWorkersSendHeartbeatsWithinASecond(t *testing.T) {
	require.Equal(t, time.Second, sendWorkerOptions(25).MaxHeartbeatThrottleInterval)
	require.Less(t, HeartbeatFlush, workflows.DefaultTuning().SendHeartbeat/2, "room for a late heartbeat")
}
