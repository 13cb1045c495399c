package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
)

// MaintenanceScheduleID is the Schedule that starts MaintenanceWorkflow.
const MaintenanceScheduleID = "statusbot-maintenance"

// MaintenanceWorkflowID prefixes the Schedule's runs.
const MaintenanceWorkflowID = "statusbot-maintenance-run"

// MaintenanceInput bounds one run; zero fields take the defaults.
type MaintenanceInput struct {
	Batch     int           `json:"batch,omitempty"`
	Budget    time.Duration `json:"budget,omitempty"`
	MaxRounds int           `json:"max_rounds,omitempty"`
}

// MaintenanceResult says what one run pruned.
type MaintenanceResult struct {
	Deleted int64 `json:"deleted"`
	More    bool  `json:"more"`
}

// MaintenanceWorkflow prunes what is past retention in bounded steps of its
// own, apart from the poll: a month of expired ledger rows never makes a
// checkpoint commit time out. What one run leaves, the next continues.
func MaintenanceWorkflow(ctx workflow.Context, in MaintenanceInput) (*MaintenanceResult, error) {
	in = in.withDefaults()
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: in.Budget + time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: 5},
		Summary:     "Prune expired ledger entries, messages, retries and history",
	})
	res := &MaintenanceResult{More: true}
	for round := 0; round < in.MaxRounds && res.More; round++ {
		var r activities.PruneResult
		if err := workflow.ExecuteActivity(actx, a.PruneExpired, activities.PruneInput{Batch: in.Batch, Budget: in.Budget}).Get(ctx, &r); err != nil {
			return res, err
		}
		res.Deleted += r.Deleted
		res.More = r.More
	}
	workflow.GetLogger(ctx).Info("maintenance done", "deleted", res.Deleted, "more", res.More)
	return res, nil
}

func (in MaintenanceInput) withDefaults() MaintenanceInput {
	if in.Batch <= 0 {
		in.Batch = 1000
	}
	if in.Budget <= 0 {
		in.Budget = 20 * time.Second
	}
	if in.MaxRounds <= 0 {
		in.MaxRounds = 30
	}
	return in
}
