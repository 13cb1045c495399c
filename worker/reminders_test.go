package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Maintenance reminders on the real stack: a chat reminded five minutes
// ahead gets one reminder when the window is five minutes away, one at the
// new time for a window the page moves, and none for a maintenance that
// the page ends before its reminder is due;
// a chat with the default lead (60 minutes, already past when the window
// was announced) and a chat with reminders off get the announcements only;
// chats that hear no maintenance notices, or only of other components,
// get no reminders either.
func TestMaintenanceReminders(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStackWith(t, 2*time.Second, testenv.StackOptions{Provider: "incidentio"})
	ctx := context.Background()
	const early, usual, off = 111, -222, 333
	for chat, settings := range map[int64]store.Settings{
		early: {Mode: store.ModeMessages, ReminderMinutes: 5},
		usual: {Mode: store.ModeMessages},
		off:   {Mode: store.ModeMessages, NoReminders: true},
	} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		setSettings(t, s, store.SubscriberKey(chat, 0), settings)
	}
	// Reminded five minutes ahead too, but one hears no maintenance notices
	// and the other only of a component the maintenances do not touch.
	const noMaintenance, otherComponent = 444, 555
	for _, chat := range []int64{noMaintenance, otherComponent} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		setSettings(t, s, store.SubscriberKey(chat, 0), store.Settings{Mode: store.ModeMessages, ReminderMinutes: 5})
	}
	require.NoError(t, s.Store.SetKinds(ctx, store.SubscriberKey(noMaintenance, 0), []event.Kind{event.KindIncident}))
	require.NoError(t, s.Store.SetComponents(ctx, store.SubscriberKey(otherComponent, 0), []string{fakes.IOComponentCLI}))
	s.StartWorker(t)
	s.WaitForBaseline(t)

	const kept, ended, moved = "01MNTKEPT0000000000000000K", "01MNTENDED000000000000000E", "01MNTMOVED000000000000000M"
	due := map[string]time.Time{}
	for i, m := range []string{kept, ended, moved} {
		start := time.Now().Add(5*time.Minute + time.Duration(25+15*i)*time.Second).Truncate(time.Second)
		due[m] = start.Add(-5 * time.Minute)
		s.IO.AddMaintenanceUpdate(m, "Upgrade "+m[:9], "scheduled", "01UPD"+m[5:], "We will upgrade.")
		s.IO.AffectComponent(m, fakes.IOComponentResponses, "under_maintenance")
		s.IO.SetMaintenanceWindow(m, start, start.Add(time.Hour))
	}
	testenv.WaitFor(t, time.Minute, "both announcements to every chat", func() bool {
		for _, chat := range []int64{early, usual, off} {
			if len(s.Telegram.MessagesTo(chat, 0)) < 3 {
				return false
			}
		}
		return true
	})
	// The second one ends (cancelled) before its reminder is due; the
	// third moves 20 s later.
	s.IO.SetMaintenanceStatus(ended, "maintenance_complete")
	newStart := due[moved].Add(5*time.Minute + 20*time.Second)
	s.IO.SetMaintenanceWindow(moved, newStart, newStart.Add(time.Hour))
	oldDue := due[moved]
	due[moved] = newStart.Add(-5 * time.Minute)

	testenv.WaitFor(t, 2*time.Minute, "the reminders of the kept and the moved maintenance", func() bool {
		return len(reminders(s.Telegram.MessagesTo(early, 0))) >= 2
	})
	time.Sleep(5 * time.Second) // a few polls on: nothing more

	got := reminders(s.Telegram.MessagesTo(early, 0))
	require.Len(t, got, 2, "one reminder each for the kept and the moved maintenance, none for the ended one")
	for i, m := range []string{kept, moved} {
		require.Contains(t, got[i].Text, "Maintenance starts in 5 minutes")
		require.Contains(t, got[i].Text, "Upgrade "+m[:9])
		require.False(t, got[i].At.Before(due[m]), "%s: sent at %s, before its time %s", m, got[i].At, due[m])
	}
	require.True(t, got[1].At.After(oldDue.Add(10*time.Second)), "the moved one's reminder waits for the new time")
	for _, chat := range []int64{usual, off, noMaintenance, otherComponent} {
		require.Empty(t, reminders(s.Telegram.MessagesTo(chat, 0)), "chat %d", chat)
	}
	require.Empty(t, s.Telegram.MessagesTo(noMaintenance, 0), "no maintenance notices, no reminders")
	require.Empty(t, s.Telegram.MessagesTo(otherComponent, 0), "maintenances of other components, no reminders")

	// The ended maintenance's reminder workflow says why it ended.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var res workflows.ReminderResult
	require.NoError(t, s.Temporal.GetWorkflow(wctx, workflows.ReminderWorkflowID(ended), "").Get(wctx, &res))
	require.Empty(t, res.Sent)
	require.NotEqual(t, "the maintenance started", res.Ended)

	if os.Getenv("UPDATE_REPLAY_HISTORIES") != "" { // make histories
		dir := filepath.Join(testenv.RepoRoot(), "workflows", "testdata")
		export(t, s, workflows.ReminderWorkflowID(ended), filepath.Join(dir, "reminder_cancelled.json"))
		for m, file := range map[string]string{kept: "reminder_sent_then_cancelled.json", moved: "reminder_moved_sent_then_cancelled.json"} {
			s.IO.SetMaintenanceStatus(m, "maintenance_in_progress")
			require.NoError(t, s.Temporal.GetWorkflow(wctx, workflows.ReminderWorkflowID(m), "").Get(wctx, nil))
			export(t, s, workflows.ReminderWorkflowID(m), filepath.Join(dir, file))
		}
	}
}

func reminders(msgs []fakes.Message) []fakes.Message {
	var out []fakes.Message
	for _, m := range msgs {
		if strings.Contains(m.Text, "Maintenance starts in") {
			out = append(out, m)
		}
	}
	return out
}

// reminderChat subscribes one chat reminded five minutes ahead and starts
// the worker on a Statuspage page.
func reminderChat(t *testing.T, chat int64) *testenv.Stack {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	_, err := s.Store.Subscribe(context.Background(), chat, 0, time.Now())
	require.NoError(t, err)
	setSettings(t, s, store.SubscriberKey(chat, 0), store.Settings{Mode: store.ModeMessages, ReminderMinutes: 5})
	s.StartWorker(t)
	s.WaitForBaseline(t)
	return s
}

// announce schedules a maintenance on the fake page starting in five
// minutes and lead, and returns when its five-minute reminder is due.
func announce(s *testenv.Stack, id, name string, lead time.Duration) (due time.Time) {
	start := time.Now().Add(5*time.Minute + lead).Truncate(time.Second)
	s.Page.SetMaintenanceWindow(id, start, start.Add(time.Hour))
	s.Page.AddMaintenanceUpdate(id, name, "scheduled", id+"-u1", "We will upgrade "+name+".")
	return start.Add(-5 * time.Minute)
}

// oneReminder waits for the chat's reminder of the maintenance and checks
// it is the only one and not early.
func oneReminder(t *testing.T, s *testenv.Stack, chat int64, name string, due time.Time) {
	t.Helper()
	testenv.WaitFor(t, time.Until(due)+time.Minute, "the reminder of "+name, func() bool {
		return len(reminders(s.Telegram.MessagesTo(chat, 0))) >= 1
	})
	time.Sleep(3 * time.Second) // a few polls on: nothing more
	got := reminders(s.Telegram.MessagesTo(chat, 0))
	require.Len(t, got, 1)
	require.Contains(t, got[0].Text, "Maintenance starts in 5 minutes")
	require.Contains(t, got[0].Text, name)
	require.False(t, got[0].At.Before(due), "sent at %s, before its time %s", got[0].At, due)
}

// A maintenance first announced while the page's summary fails still gets
// its reminder (Statuspage: summary.json carries the components, the
// maintenances come from scheduled-maintenances.json).
func TestMaintenanceFirstSeenWhileTheSummaryFailsGetsItsReminder(t *testing.T) {
	const chat = 777
	s := reminderChat(t, chat)
	s.Page.Fault("summary.json", fakes.ServerError)
	due := announce(s, "mnt0001", "Database upgrade", 30*time.Second)
	testenv.WaitFor(t, 20*time.Second, "the announcement, read while the summary fails", func() bool {
		return len(s.Telegram.MessagesTo(chat, 0)) >= 1
	})
	req0 := s.Page.Requests(summaryPath)
	testenv.WaitFor(t, 20*time.Second, "two more polls against the failing summary", func() bool {
		return s.Page.Requests(summaryPath)-req0 >= 2
	})
	s.Page.Fault("summary.json", nil)
	oneReminder(t, s, chat, "Database upgrade", due)
}

// A poll that cannot read the maintenance list (the summary failing on a
// page that serves no list of its own) does not make a window look
// cancelled: its reminder goes out on time though the list is still
// unreadable then.
func TestMaintenanceReminderKeptWhileTheMaintenanceListCannotBeRead(t *testing.T) {
	const chat = 778
	const maintenancesPath = "/api/v2/scheduled-maintenances.json"
	s := reminderChat(t, chat)
	due := announce(s, "mnt0002", "Cache upgrade", 25*time.Second)
	testenv.WaitFor(t, 20*time.Second, "the announcement", func() bool {
		return len(s.Telegram.MessagesTo(chat, 0)) >= 1
	})
	s.Page.Fault("summary.json", fakes.ServerError)
	s.Page.Fault("scheduled-maintenances", fakes.NotServed)
	req0 := s.Page.Requests(maintenancesPath)
	testenv.WaitFor(t, 20*time.Second, "three polls without a maintenance list", func() bool {
		return s.Page.Requests(maintenancesPath)-req0 >= 3
	})
	require.True(t, time.Now().Before(due), "the test machine is too slow: the reminder was due before the list failed")
	testenv.WaitFor(t, time.Until(due)+time.Minute, "the reminder, while the list is unreadable", func() bool {
		return len(reminders(s.Telegram.MessagesTo(chat, 0))) >= 1
	})
	s.Page.Fault("scheduled-maintenances", nil)
	s.Page.Fault("summary.json", nil)
	oneReminder(t, s, chat, "Cache upgrade", due)
}
