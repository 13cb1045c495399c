package workflows_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/workflows"
)

// reminderPage fakes PlanReminder: the chats' leads and the maintenance as
// the page has it (gone, or moved to another start).
type reminderPage struct {
	leads []time.Duration
	gone  bool
	moved *event.Upcoming
}

func (p *reminderPage) plan(_ context.Context, in activities.ReminderPlanInput) (*activities.ReminderPlan, error) {
	if p.gone {
		return &activities.ReminderPlan{Gone: true}, nil
	}
	if p.moved != nil && !p.moved.Start.Equal(in.Start) {
		return &activities.ReminderPlan{Window: p.moved}, nil
	}
	plan := &activities.ReminderPlan{}
	for _, l := range p.leads {
		if l < in.Start.Sub(in.Boundary) && l > plan.Lead {
			plan.Lead = l
		}
	}
	return plan, nil
}

// sentReminder is a reminder delivery the workflow started, and when.
type sentReminder struct {
	at     time.Time
	e      event.Event
	window int // the delivery's sends in flight
}

func newReminderEnv(t *testing.T, page *reminderPage) (*testsuite.TestWorkflowEnvironment, *[]sentReminder) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	a := &activities.Activities{}
	env.RegisterActivity(a)
	env.RegisterWorkflow(workflows.DeliveryWorkflow)
	env.OnActivity(a.PlanReminder, mock.Anything, mock.Anything).Return(page.plan)
	var sent []sentReminder
	env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in workflows.DeliveryInput) (*workflows.Progress, error) {
			sent = append(sent, sentReminder{at: workflow.Now(ctx), e: in.Event, window: in.Tuning.WindowSize})
			return &workflows.Progress{}, nil
		})
	return env, &sent
}

func upcoming(start time.Time) event.Upcoming {
	return event.Upcoming{Start: start, Template: event.Event{Kind: event.KindMaintenance, OrderKey: "incident:m1",
		IncidentID: "m1", IncidentName: "Database upgrade", WindowStart: &start}}
}

func runReminders(t *testing.T, env *testsuite.TestWorkflowEnvironment, in workflows.ReminderInput) workflows.ReminderResult {
	t.Helper()
	env.ExecuteWorkflow(workflows.ReminderWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res workflows.ReminderResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return res
}

// One reminder per lead the chats chose, each at its time, each for the
// chats between its lead and the previous one's; then the workflow ends
// when the maintenance starts.
func TestReminderFiresOncePerLeadAtItsTime(t *testing.T) {
	page := &reminderPage{leads: []time.Duration{15 * time.Minute, time.Hour, 2 * time.Hour}}
	env, sent := newReminderEnv(t, page)
	t0 := env.Now().UTC()
	start := t0.Add(3 * time.Hour)
	res := runReminders(t, env, workflows.ReminderInput{Window: upcoming(start), Boundary: t0})

	require.Equal(t, "the maintenance started", res.Ended)
	require.Len(t, *sent, 3)
	for i, want := range []struct{ lead, until time.Duration }{{2 * time.Hour, 3 * time.Hour}, {time.Hour, 2 * time.Hour}, {15 * time.Minute, time.Hour}} {
		got := (*sent)[i]
		require.Equal(t, start.Add(-want.lead), got.at.UTC(), "reminder %d sent at its time", i)
		require.Equal(t, want.lead, got.e.Reminder.Lead)
		require.Equal(t, want.until, got.e.Reminder.Until)
		require.True(t, got.e.Notify)
		require.Equal(t, event.KindMaintenance, got.e.Kind)
	}
	require.Len(t, res.Sent, 3)
}

// A reminder's delivery keeps the send window its input carries (the
// rate's, as the worker starts it); one started before keeps the default.
func TestReminderDeliveriesKeepTheSendWindowOfItsInput(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{504, 504}, {0, workflows.DefaultTuning().WindowSize}} {
		env, sent := newReminderEnv(t, &reminderPage{leads: []time.Duration{time.Hour}})
		t0 := env.Now().UTC()
		runReminders(t, env, workflows.ReminderInput{Window: upcoming(t0.Add(2 * time.Hour)), Boundary: t0, SendWindow: tc.in})
		require.Len(t, *sent, 1)
		require.Equal(t, tc.want, (*sent)[0].window, "input window %d", tc.in)
	}
}

// A lead whose time passed before the bot knew of the window gets nothing.
func TestReminderNotSentForALeadAlreadyPast(t *testing.T) {
	page := &reminderPage{leads: []time.Duration{time.Hour}}
	env, sent := newReminderEnv(t, page)
	t0 := env.Now().UTC()
	res := runReminders(t, env, workflows.ReminderInput{Window: upcoming(t0.Add(30 * time.Minute)), Boundary: t0})
	require.Empty(t, *sent)
	require.Equal(t, "the maintenance started", res.Ended)
}

// Cancelled by the poll before the reminder is due: nothing is sent, and
// the workflow ends at once.
func TestReminderNotSentAfterACancellation(t *testing.T) {
	page := &reminderPage{leads: []time.Duration{time.Hour}}
	env, sent := newReminderEnv(t, page)
	t0 := env.Now().UTC()
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalReminderCancel, "the page cancelled it") }, 30*time.Minute)
	res := runReminders(t, env, workflows.ReminderInput{Window: upcoming(t0.Add(2 * time.Hour)), Boundary: t0})
	require.Empty(t, *sent)
	require.Equal(t, "cancelled: the page cancelled it", res.Ended)
	require.Equal(t, t0.Add(30*time.Minute), env.Now().UTC(), "ended when cancelled, not at the start")
}

// The cancel signal was lost (the worker that saw it died): the check of
// the page right before the reminder stops it.
func TestReminderChecksThePageBeforeSending(t *testing.T) {
	page := &reminderPage{leads: []time.Duration{time.Hour}}
	env, sent := newReminderEnv(t, page)
	t0 := env.Now().UTC()
	env.RegisterDelayedCallback(func() { page.gone = true }, 30*time.Minute)
	res := runReminders(t, env, workflows.ReminderInput{Window: upcoming(t0.Add(2 * time.Hour)), Boundary: t0})
	require.Empty(t, *sent)
	require.Equal(t, "the page no longer schedules it", res.Ended)
}

// A window moved later (by signal, or found moved on the page) is reminded
// of at the new time, under a key of its own; nothing at the old time.
func TestReminderFollowsARescheduledWindow(t *testing.T) {
	for _, how := range []string{"signal", "page"} {
		t.Run(how, func(t *testing.T) {
			page := &reminderPage{leads: []time.Duration{time.Hour}}
			env, sent := newReminderEnv(t, page)
			t0 := env.Now().UTC()
			moved := upcoming(t0.Add(4 * time.Hour))
			moved.Template.IncidentName = "Database upgrade (moved)"
			env.RegisterDelayedCallback(func() {
				page.moved = &moved
				if how == "signal" {
					env.SignalWorkflow(workflows.SignalReminderWindow, moved)
				}
			}, 30*time.Minute)
			res := runReminders(t, env, workflows.ReminderInput{Window: upcoming(t0.Add(2 * time.Hour)), Boundary: t0, Replan: 20 * time.Minute})
			require.Len(t, *sent, 1)
			got := (*sent)[0]
			require.Equal(t, t0.Add(3*time.Hour), got.at.UTC())
			require.Equal(t, "Database upgrade (moved)", got.e.IncidentName)
			require.True(t, strings.Contains(got.e.Key, ":"+strconv.FormatInt(moved.Start.Unix(), 10)+":"), got.e.Key)
			require.Equal(t, "the maintenance started", res.Ended)
			require.Equal(t, moved.Start, env.Now().UTC())
		})
	}
}

// A chat that chooses a longer lead after the plan was made is reminded
// at the next re-plan, late but not never.
func TestReminderPicksUpALeadChosenLater(t *testing.T) {
	page := &reminderPage{leads: []time.Duration{15 * time.Minute}}
	env, sent := newReminderEnv(t, page)
	t0 := env.Now().UTC()
	start := t0.Add(3 * time.Hour)
	env.RegisterDelayedCallback(func() { page.leads = append(page.leads, 2*time.Hour) }, 10*time.Minute)
	runReminders(t, env, workflows.ReminderInput{Window: upcoming(start), Boundary: t0, Replan: time.Hour})
	require.Len(t, *sent, 2)
	require.Equal(t, start.Add(-2*time.Hour), (*sent)[0].at.UTC())
	require.Equal(t, start.Add(-15*time.Minute), (*sent)[1].at.UTC())
}

// A window far ahead is re-planned many times: the workflow continues as
// new with the window and the boundary, never an ever-growing history.
func TestReminderContinuesAsNewWithItsWindow(t *testing.T) {
	page := &reminderPage{leads: []time.Duration{time.Hour}}
	env, sent := newReminderEnv(t, page)
	t0 := env.Now().UTC()
	start := t0.Add(14 * 24 * time.Hour)
	env.RegisterDelayedCallback(func() { env.SetCurrentHistoryLength(61) }, 3*24*time.Hour+time.Minute)
	env.ExecuteWorkflow(workflows.ReminderWorkflow, workflows.ReminderInput{Window: upcoming(start), Boundary: t0, Replan: time.Hour, MaxHistory: 60})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next workflows.ReminderInput
	require.NoError(t, convertPayload(can, &next))
	require.True(t, next.Window.Start.Equal(start))
	require.True(t, next.Boundary.Equal(t0))
	require.Equal(t, 60, next.MaxHistory)
	require.Empty(t, *sent)
	require.Equal(t, t0.Add(3*24*time.Hour+time.Hour), env.Now().UTC(), "at the first re-plan after the history filled")
}

// A reminder overdue by more than a minute (no worker ran at its time)
// says how long is really left and covers the leads it passed; one a few
// seconds late keeps its own lead.
func TestReminderOverdueSaysWhatIsLeft(t *testing.T) {
	for _, tc := range []struct {
		late, want time.Duration
	}{{5 * time.Second, time.Hour}, {10 * time.Minute, 50 * time.Minute}} {
		t.Run(tc.late.String(), func(t *testing.T) {
			page := &reminderPage{leads: []time.Duration{time.Hour}}
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			a := &activities.Activities{}
			env.RegisterActivity(a)
			env.RegisterWorkflow(workflows.DeliveryWorkflow)
			// Every plan takes this long: the one right before the
			// reminder makes it late.
			env.OnActivity(a.PlanReminder, mock.Anything, mock.Anything).After(tc.late).Return(page.plan)
			var sent []event.Event
			env.OnWorkflow(workflows.DeliveryWorkflow, mock.Anything, mock.Anything).Return(
				func(_ workflow.Context, in workflows.DeliveryInput) (*workflows.Progress, error) {
					sent = append(sent, in.Event)
					return &workflows.Progress{}, nil
				})
			t0 := env.Now().UTC()
			start := t0.Add(90 * time.Minute)
			runReminders(t, env, workflows.ReminderInput{Window: upcoming(start), Boundary: t0})
			require.Len(t, sent, 1)
			require.Equal(t, tc.want, sent[0].Reminder.Lead)
			require.True(t, sent[0].Reminder.Matches(time.Hour), "the chat with a 60-minute lead gets it")
			require.True(t, strings.HasSuffix(sent[0].Key, ":"+strconv.Itoa(int(tc.want/time.Minute))), sent[0].Key)
		})
	}
}
