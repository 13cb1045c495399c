// Package workflows holds the durable pipeline: a Schedule starts
// PollWorkflow every interval; each event it finds gets one DeliveryWorkflow.
package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
)

// ScheduleID is the Temporal Schedule that starts PollWorkflow for the
// legacy page; every other page has its own (PageScheduleID).
const ScheduleID = "statuspage-poll"

// PollWorkflowID is the ID prefix of the legacy page's runs (the server
// appends the scheduled time); every other page's are PagePollWorkflowID.
const PollWorkflowID = "statuspage-poll-run"

// PageScheduleID is the Schedule of a page's polls: statuspage-poll for the
// legacy page (eventPage ""), statuspage-poll/<name> for the others.
func PageScheduleID(eventPage string) string {
	if eventPage == "" {
		return ScheduleID
	}
	return ScheduleID + "/" + eventPage
}

// PagePollWorkflowID is the ID prefix of a page's runs.
func PagePollWorkflowID(eventPage string) string {
	if eventPage == "" {
		return PollWorkflowID
	}
	return PollWorkflowID + "/" + eventPage
}

// PollInput names the page a poll reads. Runs started before STATUS_PAGES
// have none: they read the legacy page.
type PollInput struct {
	// Page is the page's name as listed ("": the legacy page).
	Page string `json:"page,omitempty"`
	// SendWindow is the sends its deliveries keep in flight (SendWindowFor
	// the rate; 0, as in runs from before: the default).
	SendWindow int `json:"send_window,omitempty"`
}

// pagesChange: the poll hands its page to its activities (STATUS_PAGES).
const pagesChange = "pages"

// DeliveryWorkflowID is derived from the event alone: a second poll of the
// same event finds the delivery already started. No chat IDs in it.
func DeliveryWorkflowID(eventKey string) string { return activities.DeliveryWorkflowID(eventKey) }

// SendTaskQueue is where Send activities run, rate-limited by the server
// across all workers.
func SendTaskQueue(taskQueue string) string { return taskQueue + "-telegram" }

// PollResult summarizes one poll for the Web UI and tests.
type PollResult struct {
	Baseline      bool     `json:"baseline,omitempty"`
	Started       []string `json:"started,omitempty"`
	Committed     int      `json:"committed"`
	ComponentsErr string   `json:"components_err,omitempty"`
	IncidentsErr  string   `json:"incidents_err,omitempty"`
}

// PollWorkflow detects changes on its page and hands each to its own
// delivery. An event's checkpoint is committed only after its delivery has
// started, and events are handed over in the order they happened. Each
// page has its own Schedule of polls, so one that fails or hangs holds
// only its own.
func PollWorkflow(ctx workflow.Context, in *PollInput) (*PollResult, error) {
	var a *activities.Activities
	page, window := "", 0
	if in != nil {
		page, window = in.Page, in.SendWindow
	}
	// Runs from before pages took no input and detected without one; one
	// recorded then replays as it ran (by name: the SDK checks a function's
	// arguments, and it takes one now). Every run a Schedule starts since
	// carries its page, and skips the version check: its marker and
	// search-attribute upsert would add two events to every poll's history.
	var detect any = a.DetectEvents
	detectArgs := []any{activities.DetectInput{Page: page}}
	if in == nil && workflow.GetVersion(ctx, pagesChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		detect, detectArgs = "DetectEvents", nil
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: pollHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second, MaximumAttempts: 3,
		},
		Summary: "Fetch the status page and diff it against the checkpoint",
	})
	var d activities.Detection
	if err := workflow.ExecuteActivity(actx, detect, detectArgs...).Get(ctx, &d); err != nil {
		return nil, err
	}
	res := &PollResult{Baseline: d.Baseline, ComponentsErr: d.ComponentsErr, IncidentsErr: d.IncidentsErr}
	workflow.SetCurrentDetails(ctx, pollDetails(&d))
	if d.Baseline || (len(d.Events) == 0 && len(d.Prune) == 0) {
		return res, nil
	}

	var handedOver []event.Event
	var startErr error
	for _, e := range d.Events {
		if e.Notify {
			if err := startDelivery(ctx, e, window); err != nil {
				// Later events of the same incident must not overtake this
				// one: stop here; the next poll finds the rest again.
				startErr = err
				break
			}
			res.Started = append(res.Started, DeliveryWorkflowID(e.Key))
		}
		handedOver = append(handedOver, e)
	}
	if len(handedOver) > 0 || len(d.Prune) > 0 {
		cctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{
			StartToCloseTimeout: 30 * time.Second, HeartbeatTimeout: pollHeartbeat,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second},
			Summary:     fmt.Sprintf("Commit %d event(s) to the checkpoint", len(handedOver)),
		})
		if err := workflow.ExecuteActivity(cctx, a.CommitCheckpoint, activities.CommitInput{Page: page, Events: handedOver, Prune: d.Prune}).Get(ctx, nil); err != nil {
			return res, err
		}
		res.Committed = len(handedOver)
	}
	if startErr != nil {
		return res, startErr
	}
	return res, nil
}

// startDelivery starts the event's delivery, with window sends in flight
// (0: the default), and waits until it runs; one that is already running
// (or ran) counts as started.
func startDelivery(ctx workflow.Context, e event.Event, window int) error {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            DeliveryWorkflowID(e.Key),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		StaticSummary:         e.Summary(),
		StaticDetails:         deliveryDetails(e),
		TypedSearchAttributes: deliverySearchAttributes(e, StateDelivering),
	})
	tune := DefaultTuning()
	if window > 0 {
		tune.WindowSize = window
	}
	f := workflow.ExecuteChildWorkflow(cctx, DeliveryWorkflow, DeliveryInput{Event: e, Tuning: tune})
	var exec workflow.Execution
	err := f.GetChildWorkflowExecution().Get(ctx, &exec)
	var already *temporal.ChildWorkflowExecutionAlreadyStartedError
	var alreadyTest *serviceerror.WorkflowExecutionAlreadyStarted // as the test suite reports it
	if err != nil && !errors.As(err, &already) && !errors.As(err, &alreadyTest) {
		return fmt.Errorf("start delivery of %s: %w", e.Key, err)
	}
	return nil
}

// pollDetails tells operators what this poll found.
func pollDetails(d *activities.Detection) string {
	var b strings.Builder
	switch {
	case d.Baseline:
		b.WriteString("First successful poll: baseline recorded, no one notified.\n")
	case len(d.Events) == 0:
		b.WriteString("No changes.\n")
	default:
		b.WriteString(fmt.Sprintf("**%d change(s):**\n\n", len(d.Events)))
		for _, e := range d.Events {
			note := ""
			if !e.Notify {
				note = " (recorded only)"
			}
			b.WriteString(fmt.Sprintf("- %s%s\n", e.Summary(), note))
		}
	}
	if d.Rebaseline {
		b.WriteString("\nThe page is read by another provider than before: re-baselined, no one notified.\n")
	}
	if len(d.BaselinedParts) > 0 && !d.Baseline {
		b.WriteString(fmt.Sprintf("\nBaselined (no one notified): %s.\n", strings.Join(d.BaselinedParts, ", ")))
	}
	if d.Renamed > 0 {
		b.WriteString(fmt.Sprintf("\n%d component ID(s) changed on the page; filters follow them by name.\n", d.Renamed))
	}
	if d.ComponentsErr != "" {
		b.WriteString(fmt.Sprintf("\n**Components (summary) failed:** %s\n", d.ComponentsErr))
	}
	if d.IncidentsErr != "" {
		b.WriteString(fmt.Sprintf("\n**Incident list failed:** %s\n", d.IncidentsErr))
	}
	if len(d.Blind) > 0 {
		b.WriteString("\n**Blind spots** (unreadable for several polls; nobody hears of changes there):\n\n")
		for _, bs := range d.Blind {
			b.WriteString(fmt.Sprintf("- %s since %s: %s\n", bs.Part, bs.Since.UTC().Format(time.RFC3339), bs.Err))
		}
	}
	provider := d.Provider
	if provider == "" {
		provider = "statuspage"
	}
	b.WriteString(fmt.Sprintf("\nRead with the %s provider; fetched %d bytes.\n", provider, d.BytesFetched))
	return b.String()
}

// pollHeartbeat is the poll's activities' HeartbeatTimeout (they heartbeat
// while they run): a fetch or a commit lost with a killed worker is retried
// after this, not after its 2-minute or 30 s time-out, so a page is read
// again within the minute.
const pollHeartbeat = 10 * time.Second
