package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
)

// ReminderWorkflowID is the one reminder workflow of a maintenance.
func ReminderWorkflowID(maintenanceID string) string { return "reminder/" + maintenanceID }

// Signals of ReminderWorkflow: the poll sends the window whenever the page
// announces or moves it (SignalWithStart), and cancel when the page no
// longer schedules it.
const (
	SignalReminderWindow = "window" // event.Upcoming
	SignalReminderCancel = "cancel" // reason, a string
)

// ReminderInput is a maintenance to remind chats of.
type ReminderInput struct {
	Window event.Upcoming `json:"window"`
	// Boundary: reminders due at or before it are not sent (when the bot
	// learned of the window, or the last reminder sent).
	Boundary time.Time `json:"boundary"`
	// Replan is how often the plan is read again while no reminder is
	// due, so chats that choose a longer lead meanwhile are not forgotten.
	Replan time.Duration `json:"replan,omitempty"`
	// MaxHistory: beyond this many events the workflow continues as new.
	MaxHistory int `json:"max_history,omitempty"`
	// SendWindow is the sends its deliveries keep in flight (as PollInput's).
	SendWindow int `json:"send_window,omitempty"`
}

// ReminderResult says how the reminders of a maintenance ended.
type ReminderResult struct {
	Sent  []string `json:"sent,omitempty"`
	Ended string   `json:"ended"`
}

// reminderGrace: a reminder this late (the timer's wake-up, the page
// check) still says its own lead.
const reminderGrace = time.Minute

// Default tuning of ReminderInput.
const (
	DefaultReminderReplan     = time.Hour
	DefaultReminderMaxHistory = 2000
)

// ReminderWorkflow is the durable timer of one scheduled maintenance: it
// sleeps until the next reminder is due, checks the page still schedules
// the window, and hands the reminder to an ordinary delivery (which
// filters chats by their reminder setting). A moved window is planned
// afresh; a cancelled one ends it.
func ReminderWorkflow(ctx workflow.Context, in ReminderInput) (*ReminderResult, error) {
	r := newReminders(ctx, in)
	return r.run(ctx)
}

// versionReminderClock: the clock is read after the plan, and a reminder
// late by less than reminderGrace keeps its lead.
const versionReminderClock = "reminder-clock-after-plan"

type reminders struct {
	// clockAfterPlan: see versionReminderClock.
	clockAfterPlan bool
	in             ReminderInput
	res            ReminderResult
	windows        workflow.ReceiveChannel
	cancels        workflow.ReceiveChannel
	canceled       string
}

func newReminders(ctx workflow.Context, in ReminderInput) *reminders {
	if in.Replan <= 0 {
		in.Replan = DefaultReminderReplan
	}
	if in.MaxHistory <= 0 {
		in.MaxHistory = DefaultReminderMaxHistory
	}
	return &reminders{in: in, windows: workflow.GetSignalChannel(ctx, SignalReminderWindow),
		cancels: workflow.GetSignalChannel(ctx, SignalReminderCancel)}
}

// run: plan, sleep until the reminder is due (or a signal moves or
// cancels the window), remind; until the window starts.
func (r *reminders) run(ctx workflow.Context) (*ReminderResult, error) {
	// Reminders started before version 1 read the clock before the plan
	// and had no grace: replayed as they ran.
	r.clockAfterPlan = workflow.GetVersion(ctx, versionReminderClock, workflow.DefaultVersion, 1) >= 1
	for {
		r.drainSignals(ctx)
		now := workflow.Now(ctx)
		switch {
		case r.canceled != "":
			return r.end(ctx, "cancelled: "+r.canceled)
		case !now.Before(r.in.Window.Start):
			return r.end(ctx, "the maintenance started")
		case r.historyFull(ctx):
			return nil, workflow.NewContinueAsNewError(ctx, ReminderWorkflow, r.in)
		}
		plan, err := r.plan(ctx)
		if err != nil {
			return nil, err
		}
		if plan.Gone {
			return r.end(ctx, "the page no longer schedules it")
		}
		if plan.Window != nil && r.adopt(ctx, *plan.Window) {
			continue // moved: plan the new start
		}
		if r.clockAfterPlan {
			now = workflow.Now(ctx) // the plan took time
		}
		wake := r.in.Window.Start
		if plan.Lead > 0 {
			due := r.in.Window.Start.Add(-plan.Lead)
			if !due.After(now) {
				if err := r.remind(ctx, plan.Lead, now); err != nil {
					return nil, err
				}
				continue
			}
			wake = due
		}
		if next := now.Add(r.in.Replan); next.Before(wake) {
			wake = next
		}
		r.sleepUntil(ctx, wake, plan.Lead)
	}
}

// plan asks the page and the chats' settings for the next reminder.
func (r *reminders) plan(ctx workflow.Context) (*activities.ReminderPlan, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
		Summary:             "Read the maintenance's window and the chats' reminder leads",
	})
	var plan activities.ReminderPlan
	err := workflow.ExecuteActivity(actx, a.PlanReminder, activities.ReminderPlanInput{
		MaintenanceID: r.in.Window.Template.IncidentID, Start: r.in.Window.Start, Boundary: r.in.Boundary,
		Components: r.in.Window.Template.ComponentIDs, Page: r.in.Window.Template.Page,
	}).Get(ctx, &plan)
	return &plan, err
}

// remind hands one reminder to a delivery: for the chats whose lead lies
// between lead and the previous reminder's. One overdue by more than the
// grace (the worker was down) says how long is really left and covers
// every lead it passed.
func (r *reminders) remind(ctx workflow.Context, lead time.Duration, now time.Time) error {
	grace := reminderGrace
	if !r.clockAfterPlan {
		grace = 0
	}
	if left := r.in.Window.Start.Sub(now); left < lead-grace {
		lead = left
	}
	e := event.ReminderOf(r.in.Window, lead, r.in.Window.Start.Sub(r.in.Boundary))
	if err := startDelivery(ctx, e, r.in.SendWindow); err != nil {
		return err
	}
	r.res.Sent = append(r.res.Sent, DeliveryWorkflowID(e.Key))
	r.in.Boundary = r.in.Window.Start.Add(-lead)
	workflow.GetLogger(ctx).Info("maintenance reminder handed over", "maintenance", r.in.Window.Template.IncidentID, "lead", lead)
	return nil
}

// adopt takes the window as the page has it now (name, components, end)
// and reports whether its start moved. A moved window is planned from now:
// reminders for the old start that were sent stay sent, the new start gets
// its own.
func (r *reminders) adopt(ctx workflow.Context, w event.Upcoming) (moved bool) {
	moved = !w.Start.Equal(r.in.Window.Start)
	r.in.Window = w
	if moved {
		r.in.Boundary = workflow.Now(ctx)
	}
	return moved
}

// sleepUntil waits for the wake time or a signal, whichever comes first.
func (r *reminders) sleepUntil(ctx workflow.Context, wake time.Time, lead time.Duration) {
	workflow.SetCurrentDetails(ctx, r.details(wake, lead))
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	timer := workflow.NewTimer(tctx, wake.Sub(workflow.Now(ctx)))
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(timer, func(workflow.Future) {})
	sel.AddReceive(r.windows, func(workflow.ReceiveChannel, bool) {})
	sel.AddReceive(r.cancels, func(workflow.ReceiveChannel, bool) {})
	sel.Select(ctx) // the signal itself is read by drainSignals
}

// drainSignals applies every signal received: the latest window wins, a
// cancel ends the reminders.
func (r *reminders) drainSignals(ctx workflow.Context) {
	for {
		var w event.Upcoming
		if !r.windows.ReceiveAsync(&w) {
			break
		}
		r.adopt(ctx, w)
	}
	for {
		var reason string
		if !r.cancels.ReceiveAsync(&reason) {
			break
		}
		if reason == "" {
			reason = "by the poll"
		}
		r.canceled = reason
	}
}

func (r *reminders) historyFull(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetCurrentHistoryLength() > r.in.MaxHistory || info.GetContinueAsNewSuggested()
}

func (r *reminders) end(ctx workflow.Context, why string) (*ReminderResult, error) {
	r.res.Ended = why
	workflow.SetCurrentDetails(ctx, "Ended: "+why)
	return &r.res, nil
}

// details tell operators in the Web UI what the workflow waits for.
func (r *reminders) details(wake time.Time, lead time.Duration) string {
	w := r.in.Window
	s := fmt.Sprintf("**Maintenance:** %s (`%s`)\n\n**Starts:** %s\n\n", w.Template.IncidentName, w.Template.IncidentID,
		w.Start.UTC().Format("2006-01-02 15:04 MST"))
	if lead > 0 && wake.Equal(w.Start.Add(-lead)) {
		return s + fmt.Sprintf("**Next reminder:** %s, %d min before the start\n", wake.UTC().Format("2006-01-02 15:04 MST"), int(lead/time.Minute))
	}
	return s + fmt.Sprintf("**No reminder due yet;** the chats' leads are read again at %s\n", wake.UTC().Format("2006-01-02 15:04 MST"))
}
