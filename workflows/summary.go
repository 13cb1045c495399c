package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
)

// SummaryWorkflowID is the one summary workflow of a chat's quiet window:
// the subscription's key hashed (chat IDs stay out of workflow IDs) and
// the window's end.
func SummaryWorkflowID(in activities.SummaryInput) string {
	h := sha256.Sum256([]byte(in.Sub))
	return "morning-summary/" + hex.EncodeToString(h[:8]) + "/" + strconv.FormatInt(in.Window.Unix(), 10)
}

// SummaryResult says whether the summary went out.
type SummaryResult struct {
	Sent bool `json:"sent"`
}

// summaryRetry: Telegram's retry_after comes as the next delay
// (activities.sendFailure); a refused message is not retried.
var summaryRetry = &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 5 * time.Minute,
	NonRetryableErrorTypes: []string{activities.ErrTypePermanentMessage}}

// SummaryWorkflow is the durable timer of one held quiet window: the
// first notice held in the window starts it (activities.Activities.hold);
// it sleeps until the window ends, whatever happens to workers meanwhile,
// then sends the one summary of what was held.
func SummaryWorkflow(ctx workflow.Context, in activities.SummaryInput) (*SummaryResult, error) {
	if d := in.Window.Sub(workflow.Now(ctx)); d > 0 {
		if err := workflow.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
	var a *activities.Activities
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// On the send queue: its rate limit counts every Bot API call.
		TaskQueue:           SendTaskQueue(workflow.GetInfo(ctx).TaskQueueName),
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         summaryRetry,
		Summary:             "Morning summary",
	})
	var sent bool
	if err := workflow.ExecuteActivity(actx, a.SendMorningSummary, in).Get(ctx, &sent); err != nil {
		return nil, err
	}
	return &SummaryResult{Sent: sent}, nil
}
