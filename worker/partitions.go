package worker

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// The cluster's Bot API budget is the send budget leased from MongoDB
// (store.SendBudget): it holds TELEGRAM_RATE_LIMIT whatever the send
// queue's partitions. The queue's own limit only keeps the workers from
// taking many more sends than the budget serves. The server divides
// TaskQueueActivitiesPerSecond among the queue's read partitions (four by
// default, as on Temporal Cloud, where dynamic config is not the user's),
// and at a fan-out's tail the sends may all sit in one of them: so the
// queue's limit is the rate times that default, and any one partition
// alone still feeds the whole rate. One partition
// (deploy/temporal/dynamicconfig.yaml) only spares the empty polls.
const defaultPartitions = 4

// sendWorkerOptions are the send queue worker's: the queue's limit above,
// and this worker's sends spaced evenly at the rate (a bucket of one), so
// that it does not take a second's sends at once and leave them waiting
// for slots.
func sendWorkerOptions(rate float64) worker.Options {
	return worker.Options{
		TaskQueueActivitiesPerSecond:       rate * defaultPartitions,
		WorkerActivitiesPerSecond:          rate,
		MaxConcurrentActivityExecutionSize: 200,
		MaxConcurrentActivityTaskPollers:   2 * defaultPartitions,
		WorkerStopTimeout:                  DrainTimeout,
		MaxHeartbeatThrottleInterval:       HeartbeatFlush,
	}
}

// HeartbeatFlush is the longest a worker holds an activity's heartbeat
// before sending it. The SDK's default, 0.8 of the heartbeat time-out (4
// of a send's 5 s), left a batch of sends a second of slack: on a loaded
// machine a heartbeat came late, the server timed the batch out and its
// retry sent again what the first attempt had sent since the heartbeat
// before.
const HeartbeatFlush = time.Second

// No public API tells a partition count, but the server spreads polls
// over every read partition: pollers seen on a partition other than the
// root mean there is more than one. A long poll waits up to a minute, so
// the first checks come often; the server remembers pollers for minutes.
var partitionChecks = []time.Duration{20 * time.Second, 40 * time.Second, time.Minute, time.Minute, 2 * time.Minute}

// partitionCheckEvery: the server re-reads its dynamic config every minute.
const partitionCheckEvery = 10 * time.Minute

// Partition is the name of partition n of a task queue (0 is the queue).
func Partition(taskQueue string, n int) string {
	if n == 0 {
		return taskQueue
	}
	return "/_sys/" + taskQueue + "/" + strconv.Itoa(n)
}

// HasMorePartitions reports whether partitions 1-3 of the send queue have
// pollers: the queue has more than one read partition.
func HasMorePartitions(ctx context.Context, c client.Client, namespace, sendQueue string) (bool, error) {
	// Activity pollers only: the sends are what the limit holds back.
	for n := 1; n <= 3; n++ {
		resp, err := c.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
			Namespace:     namespace,
			TaskQueue:     &taskqueuepb.TaskQueue{Name: Partition(sendQueue, n), Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
			TaskQueueType: enumspb.TASK_QUEUE_TYPE_ACTIVITY,
		})
		if err != nil {
			return false, err
		}
		if len(resp.GetPollers()) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// watchPartitions says, once per change, how many partitions the send
// queue has: for an operator reading the log, not a fault (the budget
// holds either way).
func watchPartitions(ctx context.Context, c client.Client, namespace, sendQueue string, log *slog.Logger) {
	check := func(ctx context.Context) (bool, error) { return HasMorePartitions(ctx, c, namespace, sendQueue) }
	sayPartitions(ctx, check, partitionChecks, partitionCheckEvery, sendQueue, log)
}

// sayPartitions runs check after each of waits, then every every, and
// logs its answer when it is the first or a change. A check that fails
// (the server restarting) is not an answer: the next one's is said.
func sayPartitions(ctx context.Context, check func(context.Context) (bool, error), waits []time.Duration, every time.Duration, sendQueue string, log *slog.Logger) {
	said, many := false, false
	for i := 0; ; i++ {
		wait := every
		if i < len(waits) {
			wait = waits[i]
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		more, err := check(cctx)
		cancel()
		switch {
		case err != nil:
			log.Info("send queue partitions: describe failed", "task_queue", sendQueue, "error", err)
			continue
		case said && more == many:
		case more:
			log.Info("the send queue has more than one partition (the server's default, as on Temporal Cloud): "+
				"the send budget in MongoDB holds TELEGRAM_RATE_LIMIT all the same, and each partition may feed the whole rate",
				"task_queue", sendQueue)
		default:
			log.Info("the send queue has one partition", "task_queue", sendQueue)
		}
		said, many = true, more
	}
}
