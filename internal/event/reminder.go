package event

import (
	"fmt"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Reminder marks an event as the reminder that a maintenance starts soon.
// One reminder goes out per lead time the chats chose; it reaches the
// chats whose lead is in [Lead, Until): those whose reminder time fell
// between the previous reminder of the window and this one.
type Reminder struct {
	// Start is the window's start the reminder is for.
	Start time.Time `json:"start"`
	// Lead is how long before Start this reminder goes out.
	Lead  time.Duration `json:"lead"`
	Until time.Duration `json:"until"`
}

// Matches reports whether a chat reminded lead ahead gets this reminder.
func (r Reminder) Matches(lead time.Duration) bool {
	return lead >= r.Lead && lead < r.Until
}

// Upcoming is a maintenance announced for the future: what its reminders
// say and when they are due.
type Upcoming struct {
	// Template is the maintenance as a notice (its latest update's status
	// and text left out); Reminders derive from it.
	Template Event     `json:"template"`
	Start    time.Time `json:"start"`
}

// Signature changes when anything a reminder shows changes.
func (u Upcoming) Signature() string {
	t := u.Template
	end := ""
	if t.WindowEnd != nil {
		end = t.WindowEnd.UTC().Format(time.RFC3339)
	}
	return strings.Join([]string{u.Start.UTC().Format(time.RFC3339), end, t.IncidentName,
		strings.Join(t.ComponentIDs, ","), strings.Join(t.ComponentNames, ",")}, "|")
}

// UpcomingMaintenances lists the page's maintenances that are scheduled
// and start after now, each once.
func UpcomingMaintenances(p *statuspage.Page, now time.Time) []Upcoming {
	var out []Upcoming
	for _, e := range latestUpdates(p) {
		if e.Kind != KindMaintenance || e.UpdateStatus != "scheduled" || e.WindowStart == nil || !e.WindowStart.After(now) {
			continue
		}
		out = append(out, Upcoming{Template: e, Start: e.WindowStart.UTC()})
	}
	return out
}

// MaintenanceState is what the page says of a maintenance a reminder is
// for.
type MaintenanceState string

const (
	// StillScheduled: announced, not started, not cancelled.
	StillScheduled MaintenanceState = "scheduled"
	// NoLongerScheduled: started, completed, cancelled or removed from
	// the page: no reminder any more.
	NoLongerScheduled MaintenanceState = "gone"
	// Unknown: the part of the page that lists maintenances was not read.
	Unknown MaintenanceState = "unknown"
)

// MaintenanceNow finds the maintenance on the page: whether a reminder is
// still due, and the window as the page has it now.
func MaintenanceNow(p *statuspage.Page, id string) (MaintenanceState, *Upcoming) {
	if p == nil || p.IncidentsErr != "" || p.MaintenancesErr != "" {
		return Unknown, nil
	}
	for _, u := range UpcomingMaintenances(p, time.Time{}) {
		if u.Template.IncidentID == id {
			return StillScheduled, &u
		}
	}
	return NoLongerScheduled, nil
}

// latestUpdates is, per maintenance of the page, what it is now: its
// notice with the maintenance's current status.
func latestUpdates(p *statuspage.Page) []Event {
	names := componentNames(p)
	var out []Event
	seen := map[string]bool{}
	for _, i := range p.Incidents {
		if seen[i.ID] || !i.IsMaintenance() {
			continue
		}
		seen[i.ID] = true
		e := incidentTemplate(p, i, names)
		e.UpdateStatus = i.Status
		out = append(out, e)
	}
	return out
}

// ReminderOf is the reminder event of a maintenance: due at Start − lead,
// for the chats whose lead is in [lead, until). Its key names the window's
// start and the lead, so a rescheduled window is reminded of again.
func ReminderOf(u Upcoming, lead, until time.Duration) Event {
	e := u.Template
	e.Key = fmt.Sprintf("reminder:%s:%d:%d", e.IncidentID, u.Start.Unix(), int64(lead/time.Minute))
	e.At = u.Start.Add(-lead)
	e.Notify = true
	e.Predecessor, e.Seq, e.CardAt = "", 0, nil
	e.Reminder = &Reminder{Start: u.Start, Lead: lead, Until: until}
	return e
}
