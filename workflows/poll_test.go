package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/workflows"
)

func componentEvent(id, status string, at time.Time) event.Event {
	return event.Event{
		Key: "component:" + id + ":" + status + ":" + at.Format(time.RFC3339), OrderKey: "component:" + id,
		Kind: event.KindComponent, At: at, Notify: true, ComponentID: id, ComponentName: "API",
		OldStatus: "operational", NewStatus: status, StatusSince: at,
	}
}

// legacy is the input of a run started before STATUS_PAGES: none.
var legacy *workflows.PollInput

func newPollEnv(t *testing.T) (*testsuite.TestWorkflowEnvironment, *activities.Activities) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	a := &activities.Activities{}
	env.RegisterActivity(a)
	env.RegisterWorkflow(workflows.DeliveryWorkflow)
	// A poll's fetch or commit lost with a killed worker is retried after
	// its heartbeat time-out, so the page is read again within the minute.
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.HeartbeatTimeout <= 0 || info.HeartbeatTimeout > 15*time.Second {
			t.Errorf("%s started with a heartbeat time-out of %v: lost with a killed worker, the page goes unread for its %v", info.ActivityType.Name, info.HeartbeatTimeout, info.StartToCloseTimeout)
		}
	})
	return env, a
}

func TestPollBaselineNotifiesNoOne(t *testing.T) {
	env, a := newPollEnv(t)
	env.OnActivity(a.DetectEvents, mock.Anything, mock.Anything).Return(&activities.Detection{Baseline: true}, nil).Once()
	env.ExecuteWorkflow(workflows.PollWorkflow, legacy)
	require.NoError(t, env.GetWorkflowError())
	var res workflows.PollResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Baseline)
	require.Empty(t, res.Started)
	env.AssertNotCalled(t, "CommitCheckpoint", mock.Anything, mock.Anything)
}

func TestPollIdleDoesNothingElse(t *testing.T) {
	env, a := newPollEnv(t)
	env.OnActivity(a.DetectEvents, mock.Anything, mock.Anything).Return(&activities.Detection{}, nil).Once()
	env.ExecuteWorkflow(workflows.PollWorkflow, legacy)
	require.NoError(t, env.GetWorkflowError())
	env.AssertNotCalled(t, "CommitCheckpoint", mock.Anything, mock.Anything)
}

// Each event gets its own delivery, started before its checkpoint commit;
// a silent event is committed without a delivery.
func TestPollFansOutThenCommitsInOrder(t *testing.T) {
	env, a := newPollEnv(t)
	t0 := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	e1 := componentEvent("c1", "degraded_performance", t0)
	e2 := componentEvent("c2", "major_outage", t0.Add(time.Minute))
	silent := componentEvent("c3", "operational", t0.Add(2*time.Minute))
	silent.Notify = false
	env.OnActivity(a.DetectEvents, mock.Anything, mock.Anything).Return(&activities.Detection{Events: []event.Event{e1, e2, silent}, Prune: []string{"old"}}, nil)

	var order []string
	env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).Return(
		func(_ workflow.Context, in workflows.DeliveryInput) (*workflows.Progress, error) {
			order = append(order, "start "+in.Event.ComponentID)
			return &workflows.Progress{}, nil
		})
	env.OnActivity(a.CommitCheckpoint, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CommitInput) error {
			order = append(order, "commit")
			require.Len(t, in.Events, 3)
			require.Equal(t, []string{"old"}, in.Prune)
			return nil
		}).Once()
	var started []string
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		started = append(started, info.WorkflowExecution.ID)
	})
	env.ExecuteWorkflow(workflows.PollWorkflow, legacy)
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{workflows.DeliveryWorkflowID(e1.Key), workflows.DeliveryWorkflowID(e2.Key)}, started)
	require.Equal(t, []string{"start c1", "start c2", "commit"}, order)
}

// A second poll of an event whose delivery is running finds it started and
// commits it, without a second delivery.
func TestPollAlreadyStartedDeliveryCountsAsStarted(t *testing.T) {
	env, a := newPollEnv(t)
	e := componentEvent("c1", "major_outage", time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC))
	env.OnActivity(a.DetectEvents, mock.Anything, mock.Anything).Return(&activities.Detection{Events: []event.Event{e, e}}, nil)
	runs := 0
	env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).After(time.Hour).Return(
		func(workflow.Context, workflows.DeliveryInput) (*workflows.Progress, error) {
			runs++
			return &workflows.Progress{}, nil
		})
	env.OnActivity(a.CommitCheckpoint, mock.Anything, mock.Anything).Return(nil).Once()
	env.ExecuteWorkflow(workflows.PollWorkflow, legacy)
	require.NoError(t, env.GetWorkflowError())
	var res workflows.PollResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 2, res.Committed)
	require.Len(t, res.Started, 2)
	require.Equal(t, res.Started[0], res.Started[1])
}

func TestPollDetectFailureRetriesThenFails(t *testing.T) {
	env, a := newPollEnv(t)
	env.OnActivity(a.DetectEvents, mock.Anything, mock.Anything).Return(nil, errors.New("fetch status page: HTTP 500")).Times(3)
	env.ExecuteWorkflow(workflows.PollWorkflow, legacy)
	require.Error(t, env.GetWorkflowError())
	env.AssertExpectations(t)
}

// A page other than the legacy one: its poll tells its activities which
// page it reads and commits, and its deliveries' IDs follow from its
// scoped keys, apart from the legacy page's.
func TestPollOfAnotherPage(t *testing.T) {
	env, a := newPollEnv(t)
	t0 := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	e := componentEvent("c1", "major_outage", t0).Scoped("github")
	env.OnActivity(a.DetectEvents, mock.Anything, activities.DetectInput{Page: "github"}).
		Return(&activities.Detection{Events: []event.Event{e}}, nil).Once()
	env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).Return(&workflows.Progress{}, nil)
	var committed activities.CommitInput
	env.OnActivity(a.CommitCheckpoint, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CommitInput) error { committed = in; return nil }).Once()
	var started []string
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		started = append(started, info.WorkflowExecution.ID)
	})
	env.ExecuteWorkflow(workflows.PollWorkflow, &workflows.PollInput{Page: "github"})
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)
	require.Equal(t, []string{"delivery/github/component:c1:major_outage:" + t0.Format(time.RFC3339)}, started)
	require.Equal(t, "github", committed.Page)
	require.Equal(t, []event.Event{e}, committed.Events, "handed over as detected: scoped")
}

// A run without input (started by the Schedule before STATUS_PAGES, or
// replayed from then) reads and commits the legacy page.
func TestPollWithoutInputReadsTheLegacyPage(t *testing.T) {
	env, a := newPollEnv(t)
	e := componentEvent("c1", "major_outage", time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC))
	env.OnActivity(a.DetectEvents, mock.Anything, activities.DetectInput{}).Return(&activities.Detection{Events: []event.Event{e}}, nil).Once()
	env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).Return(&workflows.Progress{}, nil)
	env.OnActivity(a.CommitCheckpoint, mock.Anything, activities.CommitInput{Events: []event.Event{e}}).Return(nil).Once()
	env.ExecuteWorkflow(workflows.PollWorkflow, legacy)
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)
}

// A poll's deliveries keep the window its input carries (the rate's, as
// the worker writes it into the Schedule's action); a run from before
// windows grew with the rate keeps the default.
func TestPollDeliveriesKeepTheSendWindowOfItsInput(t *testing.T) {
	t0 := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		in   *workflows.PollInput
		want int
	}{
		{"the rate's window", &workflows.PollInput{Page: "github", SendWindow: 504}, 504},
		{"no window: the default", &workflows.PollInput{Page: "github"}, workflows.DefaultTuning().WindowSize},
		{"no input: the default", legacy, workflows.DefaultTuning().WindowSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, a := newPollEnv(t)
			e := componentEvent("c1", "major_outage", t0)
			env.OnActivity(a.DetectEvents, mock.Anything, mock.Anything).Return(&activities.Detection{Events: []event.Event{e}}, nil).Once()
			var got []workflows.Tuning
			env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).Return(
				func(_ workflow.Context, in workflows.DeliveryInput) (*workflows.Progress, error) {
					got = append(got, in.Tuning)
					return &workflows.Progress{}, nil
				})
			env.OnActivity(a.CommitCheckpoint, mock.Anything, mock.Anything).Return(nil).Once()
			env.ExecuteWorkflow(workflows.PollWorkflow, tc.in)
			require.NoError(t, env.GetWorkflowError())
			require.Len(t, got, 1)
			want := workflows.DefaultTuning()
			want.WindowSize = tc.want
			require.Equal(t, want, got[0], "only the window differs from the defaults")
		})
	}
}

func TestSendWindowForTheRate(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want int
	}{
		{0, 48}, {1, 48}, {25, 48}, {30, 48}, {48, 48}, {96, 48}, {97, 72}, {100, 72}, {250, 144}, {1000, 504},
	} {
		require.Equal(t, tc.want, workflows.SendWindowFor(tc.rate), "rate %g", tc.rate)
	}
}
