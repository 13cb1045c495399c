package event_test

import (
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func maintenancePage(status string, start time.Time) *statuspage.Page {
	end := start.Add(2 * time.Hour)
	return &statuspage.Page{URL: "https://status.example.com",
		Components: []statuspage.Component{{ID: "c1", Name: "Responses"}},
		Incidents: []statuspage.Incident{
			{ID: "i1", Name: "Errors", Status: "investigating", Impact: "major"},
			{ID: "m1", Name: "Database upgrade", Status: status, Impact: "maintenance", ScheduledFor: &start, ScheduledUntil: &end,
				Components: []statuspage.IncidentComp{{ID: "c1"}},
				Updates:    []statuspage.IncidentUpdate{{ID: "u1", Status: "scheduled", Body: "We will upgrade", CreatedAt: start.Add(-48 * time.Hour)}}},
		}}
}

func TestUpcomingMaintenances(t *testing.T) {
	now := time.Date(2026, 7, 18, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		status string
		start  time.Time
		want   int
	}{
		{"scheduled, ahead", "scheduled", now.Add(time.Hour), 1},
		{"scheduled, start passed (page not updated yet)", "scheduled", now.Add(-time.Minute), 0},
		{"in progress", "in_progress", now.Add(time.Hour), 0},
		{"completed before it started (cancelled)", "completed", now.Add(time.Hour), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := event.UpcomingMaintenances(maintenancePage(tc.status, tc.start), now)
			if len(got) != tc.want {
				t.Fatalf("got %d upcoming, want %d", len(got), tc.want)
			}
			if tc.want == 0 {
				return
			}
			u := got[0]
			if u.Template.IncidentID != "m1" || !u.Start.Equal(tc.start) || u.Template.Body != "" ||
				len(u.Template.ComponentNames) != 1 || u.Template.ComponentNames[0] != "Responses" ||
				u.Template.URL != "https://status.example.com/incidents/m1" {
				t.Fatalf("upcoming %+v", u)
			}
		})
	}
}

func TestMaintenanceNow(t *testing.T) {
	start := time.Date(2026, 7, 18, 9, 0, 0, 0, time.UTC)
	if s, u := event.MaintenanceNow(maintenancePage("scheduled", start), "m1"); s != event.StillScheduled || !u.Start.Equal(start) {
		t.Fatalf("scheduled: %s %+v", s, u)
	}
	if s, _ := event.MaintenanceNow(maintenancePage("in_progress", start), "m1"); s != event.NoLongerScheduled {
		t.Fatalf("in progress: %s", s)
	}
	if s, _ := event.MaintenanceNow(maintenancePage("scheduled", start), "gone"); s != event.NoLongerScheduled {
		t.Fatalf("removed from the page: %s", s)
	}
	failed := maintenancePage("scheduled", start)
	failed.MaintenancesErr = "HTTP 500"
	if s, _ := event.MaintenanceNow(failed, "gone"); s != event.Unknown {
		t.Fatalf("list not read: %s", s)
	}
}

// A reminder's key names the window's start and its lead: another start
// is another reminder; the same lead for the same start is the same one.
func TestReminderOf(t *testing.T) {
	start := time.Date(2026, 7, 18, 9, 0, 0, 0, time.UTC)
	u := event.UpcomingMaintenances(maintenancePage("scheduled", start), start.Add(-3*time.Hour))[0]
	e := event.ReminderOf(u, time.Hour, 3*time.Hour)
	if e.Key != "reminder:m1:1784365200:60" || !e.At.Equal(start.Add(-time.Hour)) || !e.Notify || e.Kind != event.KindMaintenance {
		t.Fatalf("reminder %+v", e)
	}
	for lead, want := range map[time.Duration]bool{59 * time.Minute: false, time.Hour: true, 2 * time.Hour: true, 3 * time.Hour: false} {
		if got := e.Reminder.Matches(lead); got != want {
			t.Errorf("Matches(%s) = %v, want %v", lead, got, want)
		}
	}
	moved := u
	moved.Start = start.Add(time.Hour)
	if event.ReminderOf(moved, time.Hour, 3*time.Hour).Key == e.Key {
		t.Fatal("a moved window has the same reminder key")
	}
}
