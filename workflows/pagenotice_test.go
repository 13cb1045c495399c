package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/workflows"
)

// The workflow calls TellPageNotice until every follower was told,
// sleeping until a chat's turn when one has not come; its input is the
// notice's ID alone, whatever the number of followers.
func TestPageNoticeWorkflowTellsUntilDone(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	env.SetStartTime(start)
	a := &activities.Activities{}
	env.RegisterActivity(a)
	in := activities.PageNoticeInput{Notice: "removed/github/2"}
	var calls []time.Time
	env.OnActivity(a.TellPageNotice, mock.Anything, in).Return(func(context.Context, activities.PageNoticeInput) (*activities.PageNoticeResult, error) {
		calls = append(calls, env.Now())
		switch len(calls) {
		case 1:
			return &activities.PageNoticeResult{}, nil // a batch told, more to come
		case 2:
			return &activities.PageNoticeResult{RetryAt: env.Now().Add(40 * time.Second)}, nil
		}
		return &activities.PageNoticeResult{Done: true}, nil
	})
	env.ExecuteWorkflow(workflows.PageNoticeWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, calls, 3)
	require.GreaterOrEqual(t, calls[2].Sub(calls[1]), 40*time.Second, "slept until the chat's turn")
}

// A long walk continues as new with the same input (its history bounded).
func TestPageNoticeWorkflowContinuesAsNew(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	a := &activities.Activities{}
	env.RegisterActivity(a)
	in := activities.PageNoticeInput{Notice: "repointed/github/3"}
	n := 0
	env.OnActivity(a.TellPageNotice, mock.Anything, in).Return(func(context.Context, activities.PageNoticeInput) (*activities.PageNoticeResult, error) {
		n++
		return &activities.PageNoticeResult{}, nil
	})
	env.ExecuteWorkflow(workflows.PageNoticeWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	require.True(t, workflow.IsContinueAsNewError(env.GetWorkflowError()), "%v", env.GetWorkflowError())
	require.Equal(t, 100, n)
}
