package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// PlanReminder reads the maintenance from the page the last poll stored:
// still scheduled gives the next lead, moved gives the new window, ended
// gives Gone; and the poll hands every page it reads to the reminders.
func TestPlanReminderFollowsThePage(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	io := fakes.NewIncidentIO()
	t.Cleanup(io.Close)
	w.a.Page = statuspage.NewIncidentIO(io.URL(), 2*time.Second)
	var told []*statuspage.Page
	w.a.Reminders = func(_ context.Context, p *statuspage.Page) error { told = append(told, p); return nil }
	_, err := w.st.Subscribe(ctx, 42, 0, time.Now())
	require.NoError(t, err)
	c, err := store.SetReminders(true, 30)
	require.NoError(t, err)
	_, err = w.st.ChangeSettings(ctx, store.SubscriberKey(42, 0), c)
	require.NoError(t, err)

	const m = "01MNT00000000000000000000M"
	start := time.Now().Add(3 * time.Hour).Truncate(time.Second).UTC()
	io.AddMaintenanceUpdate(m, "Database upgrade", "scheduled", "01UPD0000000000000000000MU", "We will upgrade.")
	io.AffectComponent(m, fakes.IOComponentResponses, "under_maintenance")
	io.SetMaintenanceWindow(m, start, start.Add(time.Hour))
	w.detect(t)
	require.Len(t, told, 1, "the poll tells the reminders what it read")

	plan := func(at time.Time, boundary time.Time) *activities.ReminderPlan {
		t.Helper()
		p, err := w.a.PlanReminder(ctx, activities.ReminderPlanInput{MaintenanceID: m, Start: at, Boundary: boundary})
		require.NoError(t, err)
		return p
	}
	p := plan(start, time.Now())
	require.False(t, p.Gone)
	require.Equal(t, 30*time.Minute, p.Lead, "the only chat's lead")
	require.Equal(t, "Database upgrade", p.Window.Template.IncidentName)
	require.Equal(t, time.Duration(0), plan(start, start.Add(-30*time.Minute)).Lead, "that reminder was sent: none left")

	moved := start.Add(time.Hour)
	io.SetMaintenanceWindow(m, moved, moved.Add(time.Hour))
	w.detect(t)
	p = plan(start, time.Now())
	require.True(t, p.Window.Start.Equal(moved), "the moved window: %v", p.Window.Start)

	io.SetMaintenanceStatus(m, "maintenance_complete")
	w.detect(t)
	require.True(t, plan(moved, time.Now()).Gone, "ended before it started: no reminder")
}
