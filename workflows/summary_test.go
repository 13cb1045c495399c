package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/workflows"
)

// The summary goes once, when the window ends, not before.
func TestSummaryWorkflowSendsOnceAtWindowEnd(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2026, 3, 8, 23, 10, 0, 0, time.UTC)
	env.SetStartTime(start)
	a := &activities.Activities{}
	env.RegisterActivity(a)
	in := activities.SummaryInput{Sub: "42", Window: start.Add(7*time.Hour + 50*time.Minute)}
	var calls []time.Time
	env.OnActivity(a.SendMorningSummary, mock.Anything, in).Return(func(ctx context.Context, got activities.SummaryInput) (bool, error) {
		calls = append(calls, env.Now())
		return true, nil
	})
	env.ExecuteWorkflow(workflows.SummaryWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res workflows.SummaryResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Sent)
	require.Len(t, calls, 1)
	require.False(t, calls[0].Before(in.Window), "summary at %v, before the window's end %v", calls[0], in.Window)
	require.Less(t, calls[0].Sub(in.Window), time.Second)
}

// A window already over (the first held notice came at its last second,
// or the worker was down past its end) is summarized at once.
func TestSummaryWorkflowWindowOverSendsAtOnce(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2026, 3, 9, 7, 5, 0, 0, time.UTC)
	env.SetStartTime(start)
	a := &activities.Activities{}
	env.RegisterActivity(a)
	in := activities.SummaryInput{Sub: "42", Window: start.Add(-5 * time.Minute)}
	n := 0
	env.OnActivity(a.SendMorningSummary, mock.Anything, in).Return(func(context.Context, activities.SummaryInput) (bool, error) {
		n++
		require.Less(t, env.Now().Sub(start), time.Second)
		return true, nil
	})
	env.ExecuteWorkflow(workflows.SummaryWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 1, n)
}

// Telegram's retry_after is waited on a retry; a refused message is not retried.
func TestSummaryWorkflowRetriesRateLimitNotRefusal(t *testing.T) {
	for _, tc := range []struct {
		errType   string
		wantCalls int
		wantErr   bool
	}{{activities.ErrTypeRateLimited, 2, false}, {activities.ErrTypePermanentMessage, 1, true}} {
		t.Run(tc.errType, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			a := &activities.Activities{}
			env.RegisterActivity(a)
			in := activities.SummaryInput{Sub: "42", Window: env.Now().UTC().Add(time.Hour).Truncate(time.Second)}
			n := 0
			env.OnActivity(a.SendMorningSummary, mock.Anything, mock.Anything).Return(func(context.Context, activities.SummaryInput) (bool, error) {
				n++
				if n == 1 {
					return false, temporal.NewApplicationErrorWithOptions("Too Many Requests", tc.errType,
						temporal.ApplicationErrorOptions{NextRetryDelay: 3 * time.Second, NonRetryable: tc.errType == activities.ErrTypePermanentMessage})
				}
				return true, nil
			})
			env.ExecuteWorkflow(workflows.SummaryWorkflow, in)
			require.Equal(t, tc.wantCalls, n)
			require.Equal(t, tc.wantErr, env.GetWorkflowError() != nil)
		})
	}
}

// Workflow IDs carry no chat ID; one per chat and window.
func TestSummaryWorkflowIDHasNoChatID(t *testing.T) {
	w := time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)
	id := workflows.SummaryWorkflowID(activities.SummaryInput{Sub: "-1001234567890:7", Window: w})
	require.NotContains(t, id, "1234567890")
	require.True(t, strings.HasPrefix(id, "morning-summary/"))
	require.NotEqual(t, id, workflows.SummaryWorkflowID(activities.SummaryInput{Sub: "-1001234567890:7", Window: w.Add(24 * time.Hour)}))
	require.NotEqual(t, id, workflows.SummaryWorkflowID(activities.SummaryInput{Sub: "-1001234567890:8", Window: w}))
}
