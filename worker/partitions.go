package worker

import (
	"context"
	"log/slog"
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
// No public API tells a partition count, but polls are spread over every
// read partition: pollers seen on partition 1 mean there is more than one.
const (
	partitionCheckAfter = 20 * time.Second // the pollers have reached every partition
	partitionCheckEvery = 10 * time.Minute // the server re-reads its dynamic config
)

// SecondPartition is the name of a task queue's partition 1.
func SecondPartition(taskQueue string) string { return "/_sys/" + taskQueue + "/1" }

// HasSecondPartition reports whether the send queue's partition 1 has
// pollers: the queue has more than one read partition.
func HasSecondPartition(ctx context.Context, c client.Client, namespace, sendQueue string) (bool, error) {
	resp, err := c.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
		Namespace:     namespace,
		TaskQueue:     &taskqueuepb.TaskQueue{Name: SecondPartition(sendQueue), Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
		TaskQueueType: enumspb.TASK_QUEUE_TYPE_ACTIVITY,
	})
	if err != nil {
		return false, err
	}
	return len(resp.GetPollers()) > 0, nil
}

// watchPartitions warns, once per change, while the send queue has more
// than one partition.
func watchPartitions(ctx context.Context, c client.Client, namespace, sendQueue string, rateLimit float64, log *slog.Logger) {
	warned := false
	wait := partitionCheckAfter
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = partitionCheckEvery
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		many, err := HasSecondPartition(cctx, c, namespace, sendQueue)
		cancel()
		switch {
		case err != nil:
			log.Debug("send queue partitions: describe failed", "task_queue", sendQueue, "error", err)
		case many && !warned:
			log.Warn("the send queue has more than one partition: the server divides TELEGRAM_RATE_LIMIT among them, "+
				"so sends crawl at the tail of a fan-out and burst above the limit. Give it one partition: "+
				"matching.numTaskqueueReadPartitions and matching.numTaskqueueWritePartitions = 1 for this task queue "+
				"(deploy/temporal/dynamicconfig.yaml names it; it must match TEMPORAL_TASK_QUEUE + \"-telegram\")",
				"task_queue", sendQueue, "telegram_rate_limit", rateLimit)
			warned = true
		case !many && warned:
			log.Info("the send queue has one partition again", "task_queue", sendQueue)
			warned = false
		}
	}
}
