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
)

// The server enforces TaskQueueActivitiesPerSecond per partition of the
// send queue: with the default four, each gets a quarter of
// TELEGRAM_RATE_LIMIT (docs/deploy.md). deploy/temporal/dynamicconfig.yaml
// gives the queue one partition, by name, so a changed TEMPORAL_TASK_QUEUE
// (or a server without that file) quietly brings the four back.
//
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

// watchPartitions warns, once per change, while the send queue has more
// than one partition; the first check's all-clear is logged too.
func watchPartitions(ctx context.Context, c client.Client, namespace, sendQueue string, rateLimit float64, log *slog.Logger) {
	warned := false
	for i := 0; ; i++ {
		wait := partitionCheckEvery
		if i < len(partitionChecks) {
			wait = partitionChecks[i]
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		many, err := HasMorePartitions(cctx, c, namespace, sendQueue)
		cancel()
		switch {
		case err != nil:
			log.Info("send queue partitions: describe failed", "task_queue", sendQueue, "error", err)
		case many && !warned:
			log.Warn("the send queue has more than one partition: the server divides TELEGRAM_RATE_LIMIT among them, "+
				"so sends crawl at the tail of a fan-out and burst above the limit. Give it one partition: "+
				"matching.numTaskqueueReadPartitions and matching.numTaskqueueWritePartitions = 1 for this task queue "+
				"(deploy/temporal/dynamicconfig.yaml names it; it must match TEMPORAL_TASK_QUEUE + \"-telegram\")",
				"task_queue", sendQueue, "telegram_rate_limit", rateLimit)
			warned = true
		case !many && (warned || i == 0):
			log.Info("the send queue has one partition: TELEGRAM_RATE_LIMIT holds exactly", "task_queue", sendQueue)
			warned = false
		}
	}
}
