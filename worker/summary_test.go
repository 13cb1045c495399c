package worker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// A chat whose quiet hours hold gets nothing during the window and exactly
// one summary at its end, with what happened meanwhile; the worker is
// restarted during the window (the summary's timer lives in Temporal, the
// held notices in MongoDB). A plain chat gets both notices as they come.
// The window is the current minute's neighbours: it ends 1-2 minutes after
// the test starts.
func TestHoldQuietHoursSendsOneSummaryAtWindowEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	now := time.Now().UTC()
	clock := func(t time.Time) string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) }
	end := now.Truncate(time.Minute).Add(2 * time.Minute)
	if end.Sub(now) < 90*time.Second { // room for both notices before the end
		end = end.Add(time.Minute)
	}
	components := []event.Kind{event.KindComponent}
	held := storyChat{id: 981, kinds: components, settings: store.Settings{Mode: store.ModeMessages,
		QuietStart: clock(now.Add(-time.Minute)), QuietEnd: clock(end), QuietHold: true}}
	plain := storyChat{id: 982, kinds: components, settings: store.Settings{Mode: store.ModeMessages}}
	subscribeStoryChats(t, s, held, plain)
	stop := s.StartWorker(t)
	s.WaitForBaseline(t)

	plainBox, heldBox := newInbox(s, plain.id), newInbox(s, held.id)
	s.Page.SetComponent("api0000001", "API", "major_outage")
	plainBox.wait(t, 1, "the outage")
	waitDeliveriesClosed(t, s)
	require.Empty(t, heldBox.messages(), "a held chat gets nothing during its window")
	why, err := notice.WhyAnswer(context.Background(), s.Store, store.SubscriberKey(held.id, 0), time.UTC, notice.OnePage)
	require.NoError(t, err)
	require.Contains(t, why, "Held for the morning summary (quiet hours)")

	// Restarted during the window: the summary's timer and what was held survive.
	stop()
	s.StartWorker(t)
	s.Page.SetComponent("api0000001", "API", "operational")
	plainBox.wait(t, 2, "the recovery")
	waitDeliveriesClosed(t, s)
	require.Empty(t, heldBox.messages(), "a held chat gets nothing during its window, resolutions neither")
	require.True(t, time.Now().Before(end), "the test's notices must come before the window's end")

	got := heldBox.wait2(t, 1, time.Until(end)+time.Minute, "the morning summary")
	require.False(t, got[0].At.Before(end), "the summary came at %v, before the window's end %v", got[0].At, end)
	time.Sleep(5 * time.Second)
	msgs := heldBox.messages()
	require.Len(t, msgs, 1, "exactly one summary")
	text := timeTags.ReplaceAllString(msgs[0].Text, "")
	t.Logf("summary %v after the window's end:\n%s", msgs[0].At.Sub(end).Round(time.Millisecond), text)
	require.Contains(t, text, "Morning summary")
	require.Contains(t, text, "<b>Resolved meanwhile</b>\n• <b>API</b>")
	require.Contains(t, text, "2 updates")
	require.False(t, strings.Contains(text, "Still open"), "nothing is still open")
	why, err = notice.WhyAnswer(context.Background(), s.Store, store.SubscriberKey(held.id, 0), time.UTC, notice.OnePage)
	require.NoError(t, err)
	require.Contains(t, why, "told in the morning summary")

	// One timer workflow for the window, in Temporal, that sent it.
	id := workflows.SummaryWorkflowID(activities.SummaryInput{Sub: store.SubscriberKey(held.id, 0), Window: end})
	require.NotContains(t, id, "981")
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res workflows.SummaryResult
	require.NoError(t, s.Temporal.GetWorkflow(wctx, id, "").Get(wctx, &res))
	require.True(t, res.Sent)
	if os.Getenv("UPDATE_REPLAY_HISTORIES") != "" { // make histories
		export(t, s, id, filepath.Join(testenv.RepoRoot(), "workflows", "testdata", "summary_held_window.json"))
	}
}
