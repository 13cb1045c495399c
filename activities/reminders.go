package activities

import (
	"context"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// ReminderPlanInput asks what a maintenance's reminders look like now.
type ReminderPlanInput struct {
	MaintenanceID string    `json:"maintenance_id"`
	Start         time.Time `json:"start"`
	// Boundary: reminders due at or before it were sent (or were due
	// before the bot knew of the window): only later ones are planned.
	Boundary time.Time `json:"boundary"`
	// Components of the maintenance as the workflow knows it: the chats
	// whose filter they pass are those reminded (the page's, when read,
	// take their place). Absent from plans asked before it existed.
	Components []string `json:"components,omitempty"`
	// Page is the maintenance's page as events name it ("" the legacy
	// page, and plans asked before pages): its followers are reminded.
	Page string `json:"page,omitempty"`
}

// ReminderPlan is the next reminder of a maintenance.
type ReminderPlan struct {
	// Gone: the page no longer schedules the maintenance (started, done,
	// cancelled or removed): no reminder any more.
	Gone bool `json:"gone,omitempty"`
	// Window is the maintenance as the page has it now, when it was read
	// (nil when the page's maintenance list could not be read).
	Window *event.Upcoming `json:"window,omitempty"`
	// Lead of the next reminder (0: no chat wants one before the start).
	Lead time.Duration `json:"lead,omitempty"`
}

// PlanReminder reads the maintenance from the latest page the poll saw
// and the longest reminder lead still ahead among the chats that would get
// its reminder (notice types, component filter): a
// reminder is due at Start − Lead, for the chats whose lead lies between
// this one and the previous reminder's. Checked right before every
// reminder, so one for a window that was cancelled or moved never goes out
// even if its signal was lost.
//
// The maintenance ID of a page other than the legacy one is scoped
// (pages.Scope), as its reminder workflow's ID is: that page's snapshot is
// read, and the window comes back scoped.
func (a *Activities) PlanReminder(ctx context.Context, in ReminderPlanInput) (*ReminderPlan, error) {
	page, id := pages.Unscope(in.MaintenanceID)
	if len(a.Pages.List) > 0 && !a.Pages.Lists(page) {
		// Its page was removed from STATUS_PAGES: the bot no longer
		// watches it, and its last snapshot is no promise.
		return &ReminderPlan{Gone: true}, nil
	}
	snap, err := a.Store.PageDocs(page).LatestSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	plan := &ReminderPlan{}
	start, components := in.Start, in.Components
	if snap != nil {
		state, up := event.MaintenanceNow(&snap.Page, id)
		switch state {
		case event.NoLongerScheduled:
			return &ReminderPlan{Gone: true}, nil
		case event.StillScheduled:
			up.Template = up.Template.Scoped(page)
			plan.Window, components = up, up.Template.ComponentIDs
			if !up.Start.Equal(in.Start) {
				return plan, nil // moved: the workflow plans afresh from now
			}
		}
	}
	if !start.After(in.Boundary) {
		return plan, nil
	}
	plan.Lead, err = a.Store.NextReminderLead(ctx, in.Page, start.Sub(in.Boundary), components)
	return plan, err
}

// subscribersFor pages the subscribers an event may be for, among the
// followers of its page (a page's event costs its own followers, never the
// chats of other pages): a reminder's from the chats whose lead it is and
// whose filter the maintenance passes (indexed: a reminder costs what the
// chats that want it cost), any other event's from every follower.
func (a *Activities) subscribersFor(ctx context.Context, in PageInput) ([]store.Subscriber, string, error) {
	if r := in.Event.Reminder; r != nil {
		return a.Store.ListReminderSubscribers(ctx, in.Event.Page, *r, in.Event.ComponentIDs, in.Cursor, in.Limit)
	}
	return a.Store.ListFollowers(ctx, in.Event.Page, in.Cursor, in.Limit)
}
