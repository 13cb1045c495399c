package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/workflows"
)

// The Schedule's poll carries the send window of TELEGRAM_RATE_LIMIT, and
// so do the reminders: at 1000 a second two batches in flight held a
// fan-out near 240 a second (issue 29's ceiling).
func TestPollsAndRemindersCarryTheRatesSendWindow(t *testing.T) {
	for _, rate := range []float64{25, 1000} {
		cfg := &config.Config{TelegramRateLimit: rate, TemporalTaskQueue: "statusbot", PollInterval: time.Minute}
		a := scheduleAction(cfg, pages.Page{Name: "github", URL: "https://www.githubstatus.com"}, "github")
		require.Len(t, a.Args, 1)
		in, ok := a.Args[0].(*workflows.PollInput)
		require.True(t, ok, "the poll's input: %T", a.Args[0])
		require.Equal(t, workflows.PollInput{Page: "github", SendWindow: workflows.SendWindowFor(rate)}, *in)
		require.Equal(t, workflows.SendWindowFor(rate), newReminderSync(nil, cfg).window)
	}
	require.Greater(t, workflows.SendWindowFor(1000), workflows.SendWindowFor(25))
}
