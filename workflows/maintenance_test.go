package workflows_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Pruning runs in bounded activities until nothing expired is left, and
// stops after MaxRounds: the next scheduled run goes on.
func TestMaintenancePrunesInBoundedRounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		maxRounds int
		wantCalls int
		wantMore  bool
	}{{"until done", 10, 3, false}, {"bounded", 2, 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			a := &activities.Activities{}
			env.RegisterActivity(a)
			calls := 0
			env.OnActivity(a.PruneExpired, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PruneInput) (*activities.PruneResult, error) {
				calls++
				require.Equal(t, 1000, in.Batch)
				return &activities.PruneResult{Deleted: 1000, More: calls < 3}, nil
			})
			env.ExecuteWorkflow(workflows.MaintenanceWorkflow, workflows.MaintenanceInput{MaxRounds: tc.maxRounds})
			require.NoError(t, env.GetWorkflowError())
			var res workflows.MaintenanceResult
			require.NoError(t, env.GetWorkflowResult(&res))
			require.Equal(t, tc.wantCalls, calls)
			require.Equal(t, int64(1000*tc.wantCalls), res.Deleted)
			require.Equal(t, tc.wantMore, res.More)
		})
	}
}
