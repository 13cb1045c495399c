package worker

import (
	"testing"

	"github.com/stretchr/testify/require"
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
