package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
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
	w.a.Reminders = func(_ context.Context, _ string, p *statuspage.Page) error { told = append(told, p); return nil }
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

// reminderChats subscribes n chats on the defaults (reminded 60 minutes
// ahead) and returns a setter for the few that choose otherwise.
func reminderChats(t *testing.T, w *world, n int) (choose func(chat int64, minutes int, kinds []event.Kind, components []string) string) {
	t.Helper()
	ctx := context.Background()
	for chat := int64(1); chat <= int64(n); chat++ {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	return func(chat int64, minutes int, kinds []event.Kind, components []string) string {
		t.Helper()
		key := store.SubscriberKey(chat, 0)
		c, err := store.SetReminders(true, minutes)
		require.NoError(t, err)
		_, err = w.st.ChangeSettings(ctx, key, c)
		require.NoError(t, err)
		if kinds != nil {
			require.NoError(t, w.st.SetKinds(ctx, key, kinds))
		}
		if components != nil {
			require.NoError(t, w.st.SetComponents(ctx, key, components))
		}
		return key
	}
}

// A reminder's delivery reads only the chats it is for: at 1,200
// subscribers with six that want a 15-minute reminder of a maintenance of
// the API, one page of 100 holds them all (paging every subscriber takes
// 12), in a handful of round trips. Chats reminded 15 minutes ahead that
// hear no maintenance notices, or only of another component, are not
// among them; one filtered to the API is.
func TestReminderDeliveryReadsOnlyTheChatsThatWantIt(t *testing.T) {
	const subscribers, pageSize = 1200, 100
	w := newWorld(t)
	choose := reminderChats(t, w, subscribers)
	var want []string
	for chat := int64(100); chat < 1200; chat += 220 {
		want = append(want, choose(chat, 15, nil, nil))
	}
	want = append(want, choose(7, 15, nil, []string{"api0000001"}))
	choose(8, 15, []event.Kind{event.KindIncident, event.KindComponent}, nil)
	choose(9, 15, nil, []string{"chatgpt001"})
	choose(10, 30, nil, nil) // due at its own, earlier reminder

	start := time.Now().Add(15 * time.Minute)
	maint := event.Event{Key: "incident:m1:u1:v1", Kind: event.KindMaintenance, IncidentID: "m1", IncidentName: "Database upgrade",
		UpdateStatus: "scheduled", ComponentIDs: []string{"api0000001"}, ComponentNames: []string{"API"}, WindowStart: &start}
	e := event.ReminderOf(event.Upcoming{Template: maint, Start: start}, 15*time.Minute, 30*time.Minute)

	before := w.st.RoundTrips()
	pages := 0
	got := pageAll(t, w, activities.PageInput{Event: e, Limit: pageSize, Since: time.Now()}, func(int) { pages++ })
	pages++
	trips := w.st.RoundTrips() - before
	t.Logf("reminder to %d of %d subscribers: %d page(s) of %d, %d MongoDB round trips", len(got), subscribers, pages, pageSize, trips)
	require.ElementsMatch(t, want, got)
	require.Equal(t, 1, pages, "pages read for the reminder")
	// The ledger is read a bucket at a time (store/buckets.go): chats from
	// all over the key space cost a read each, the other 1,194 none.
	require.LessOrEqual(t, trips, int64(8+len(want)), "round trips for the reminder's recipients")
}

// The next reminder of a maintenance is planned for the chats that would
// get it: one reminded 4 hours ahead that hears no maintenance notices,
// and one reminded 200 minutes ahead but filtered to another component,
// plan nothing for a maintenance of the API; the latter does for a
// maintenance naming no component (it concerns everyone).
func TestPlanReminderCountsOnlyTheChatsThatWouldGetIt(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	choose := reminderChats(t, w, 0)
	for chat := int64(1); chat <= 4; chat++ {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	choose(1, 30, nil, nil)
	choose(2, 240, []event.Kind{event.KindIncident, event.KindComponent}, nil)
	choose(3, 200, nil, []string{"chatgpt001"})
	choose(4, 120, nil, []string{"api0000001"})

	start := time.Now().Add(5 * time.Hour).Truncate(time.Second)
	for _, m := range []string{"mnt-api", "mnt-all"} {
		w.page.SetMaintenanceWindow(m, start, start.Add(time.Hour))
		w.page.AddMaintenanceUpdate(m, "Upgrade "+m, "scheduled", m+"-u1", "We will upgrade.")
	}
	w.page.AffectComponent("mnt-api", "api0000001", "under_maintenance")
	w.detect(t)
	for m, want := range map[string]time.Duration{"mnt-api": 120 * time.Minute, "mnt-all": 200 * time.Minute} {
		p, err := w.a.PlanReminder(ctx, activities.ReminderPlanInput{MaintenanceID: m, Start: start.UTC(), Boundary: time.Now()})
		require.NoError(t, err)
		require.NotNil(t, p.Window, m)
		require.Equal(t, want, p.Lead, "%s: the longest lead among the chats that would get its reminder", m)
	}
}
