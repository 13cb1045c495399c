package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Maintenance reminders on the real stack: a chat reminded five minutes
// ahead gets one reminder when the window is five minutes away, and none
// for a second maintenance that the page ends before its reminder is due;
// a chat with the default lead (60 minutes, already past when the window
// was announced) and a chat with reminders off get the announcements only.
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
	s.StartWorker(t)
	s.WaitForBaseline(t)

	const kept, ended = "01MNTKEPT0000000000000000K", "01MNTENDED000000000000000E"
	due := map[string]time.Time{}
	for i, m := range []string{kept, ended} {
		start := time.Now().Add(5*time.Minute + time.Duration(15+15*i)*time.Second).Truncate(time.Second)
		due[m] = start.Add(-5 * time.Minute)
		s.IO.AddMaintenanceUpdate(m, "Upgrade "+m[:9], "scheduled", "01UPD"+m[5:], "We will upgrade.")
		s.IO.AffectComponent(m, fakes.IOComponentResponses, "under_maintenance")
		s.IO.SetMaintenanceWindow(m, start, start.Add(time.Hour))
	}
	testenv.WaitFor(t, time.Minute, "both announcements to every chat", func() bool {
		for _, chat := range []int64{early, usual, off} {
			if len(s.Telegram.MessagesTo(chat, 0)) < 2 {
				return false
			}
		}
		return true
	})
	// The second one ends (cancelled) before its reminder is due.
	s.IO.SetMaintenanceStatus(ended, "maintenance_complete")

	testenv.WaitFor(t, time.Minute, "the reminder of the kept maintenance", func() bool {
		return len(reminders(s.Telegram.MessagesTo(early, 0))) >= 1
	})
	time.Sleep(time.Until(due[ended].Add(8 * time.Second))) // past the ended one's reminder time, a few polls on

	got := reminders(s.Telegram.MessagesTo(early, 0))
	require.Len(t, got, 1, "one reminder, for the kept maintenance only")
	require.Contains(t, got[0].Text, "Maintenance starts in 5 minutes")
	require.Contains(t, got[0].Text, "Upgrade 01MNTKEPT")
	require.False(t, got[0].At.Before(due[kept]), "sent at %s, before its time %s", got[0].At, due[kept])
	for _, chat := range []int64{usual, off} {
		require.Empty(t, reminders(s.Telegram.MessagesTo(chat, 0)), "chat %d", chat)
	}

	// The ended maintenance's reminder workflow says why it ended.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var res workflows.ReminderResult
	require.NoError(t, s.Temporal.GetWorkflow(wctx, workflows.ReminderWorkflowID(ended), "").Get(wctx, &res))
	require.Empty(t, res.Sent)
	require.NotEqual(t, "the maintenance started", res.Ended)
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
