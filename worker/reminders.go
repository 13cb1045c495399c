package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/workflows"
)

// reminderSync keeps one ReminderWorkflow per scheduled maintenance: it
// starts it when the page announces the window, tells it when the window
// moves, and cancels it when the page no longer schedules it. It remembers
// what it told each workflow, so an idle poll costs no Temporal call;
// after a restart it tells them again (a window a workflow already has
// changes nothing). The workflow re-reads the page before every reminder,
// so a cancel lost with a worker is still honoured.
type reminderSync struct {
	c         client.Client
	taskQueue string
	window    int // the deliveries' sends in flight (sendWindow)

	mu   sync.Mutex
	told map[string]map[string]string // event page → (scoped) maintenance ID → window signature
}

// newReminderSync starts the reminders on the pipeline's queue with the
// send window of the configured rate, as the polls (sendWindow).
func newReminderSync(c client.Client, cfg *config.Config) *reminderSync {
	return &reminderSync{c: c, taskQueue: cfg.TemporalTaskQueue, window: sendWindow(cfg), told: map[string]map[string]string{}}
}

// toldOf is what the page's reminder workflows were told (rs.mu held).
func (rs *reminderSync) toldOf(eventPage string) map[string]string {
	told := rs.told[eventPage]
	if told == nil {
		told = map[string]string{}
		rs.told[eventPage] = told
	}
	return told
}

// Sync is called after every poll with the page it read and its
// event.Event.Page ("" for the legacy page). A page other than the legacy
// one has its maintenances scoped (event.Event.Scoped): their workflows
// are reminder/<page>/<id>, and each page's cancels concern its own.
func (rs *reminderSync) Sync(ctx context.Context, eventPage string, page *statuspage.Page) error {
	now := time.Now()
	complete := page.IncidentsErr == "" && page.MaintenancesErr == ""
	scheduled := event.UpcomingMaintenances(page, time.Time{})
	for i := range scheduled {
		scheduled[i].Template = scheduled[i].Template.Scoped(eventPage)
	}
	rs.mu.Lock()
	tell, cancel := reminderChanges(rs.toldOf(eventPage), scheduled, now, complete)
	rs.mu.Unlock()
	var errs []error
	for _, u := range tell {
		if err := rs.tell(ctx, u, now); err != nil {
			errs = append(errs, err)
			continue
		}
		rs.remember(eventPage, u.Template.IncidentID, u.Signature())
	}
	for _, id := range cancel {
		err := rs.c.SignalWorkflow(ctx, workflows.ReminderWorkflowID(id), "", workflows.SignalReminderCancel, "the page no longer schedules it")
		var nf *serviceerror.NotFound
		if err != nil && !errors.As(err, &nf) {
			errs = append(errs, fmt.Errorf("temporal: cancel the reminders of %s: %w", id, err))
			continue
		}
		rs.remember(eventPage, id, "")
	}
	return errors.Join(errs...)
}

// tell starts the maintenance's reminder workflow with the window, or
// signals the running one.
func (rs *reminderSync) tell(ctx context.Context, u event.Upcoming, now time.Time) error {
	id := workflows.ReminderWorkflowID(u.Template.IncidentID)
	_, err := rs.c.SignalWithStartWorkflow(ctx, id, workflows.SignalReminderWindow, u, client.StartWorkflowOptions{
		ID: id, TaskQueue: rs.taskQueue,
		StaticSummary: "Maintenance reminders: " + u.Template.IncidentName,
		StaticDetails: fmt.Sprintf("Reminds the chats that want it before **%s** starts at %s.", u.Template.IncidentName,
			u.Start.UTC().Format("2006-01-02 15:04 MST")),
	}, workflows.ReminderWorkflow, workflows.ReminderInput{Window: u, Boundary: now, Replan: workflows.DefaultReminderReplan, SendWindow: rs.window})
	if err != nil {
		return fmt.Errorf("temporal: schedule the reminders of %s: %w", u.Template.IncidentID, err)
	}
	return nil
}

func (rs *reminderSync) remember(eventPage, id, signature string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if signature == "" {
		delete(rs.toldOf(eventPage), id)
		return
	}
	rs.toldOf(eventPage)[id] = signature
}

// reminderChanges compares what the reminder workflows were told with the
// page's scheduled maintenances: the windows to tell (new or changed, and
// starting after now) and the maintenances to cancel (told before, no
// longer scheduled; only when the page's maintenance list was read, as
// absence means nothing then). One whose start passed while the page
// still says scheduled is left alone: its workflow ends by itself.
func reminderChanges(told map[string]string, scheduled []event.Upcoming, now time.Time, complete bool) (tell []event.Upcoming, cancel []string) {
	seen := map[string]bool{}
	for _, u := range scheduled {
		id := u.Template.IncidentID
		seen[id] = true
		if u.Start.After(now) && told[id] != u.Signature() {
			tell = append(tell, u)
		}
	}
	if complete {
		for id := range told {
			if !seen[id] {
				cancel = append(cancel, id)
			}
		}
	}
	return tell, cancel
}
