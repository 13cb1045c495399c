package workflows_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/openai-status-bot/statusbot/workflows"
)

// Histories exported from a real dev-server run (make histories) must
// replay without non-determinism against the current workflow code.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	for _, want := range []string{"poll_idle.json", "poll_with_events.json", "delivery_429_then_success.json", "delivery_403_removed.json",
		// Recorded before the pending subscribers moved to MongoDB (bounded-state).
		"delivery_429_then_success_before_bounded_state.json", "delivery_403_removed_before_bounded_state.json",
		"reminder_cancelled.json", "reminder_sent_then_cancelled.json", "reminder_moved_sent_then_cancelled.json",
		// Recorded before the clock was read after the plan (reminder-clock-after-plan).
		"reminder_sent_then_cancelled_before_clock_after_plan.json", "reminder_moved_sent_then_cancelled_before_clock_after_plan.json",
		// Recorded before the story records (Seq, CardAt, RecordInput.Step):
		// the commands did not change, the inputs grew.
		"delivery_429_then_success_before_story_records.json", "delivery_403_removed_before_story_records.json",
		"poll_with_events_before_story_records.json",
		// Recorded before one Bot API call per Send (call-per-send).
		"delivery_429_then_success_before_call_per_send.json", "delivery_403_removed_before_call_per_send.json",
		// Recorded before the next page of subscribers was read ahead (prefetch-pages).
		"delivery_429_then_success_before_prefetch_pages.json", "delivery_403_removed_before_prefetch_pages.json",
		// A held quiet-hours window: its timer, then the summary (morning-summary).
		"summary_held_window.json",
		"delivery_429_then_success_before_fold_later.json", "delivery_403_removed_before_fold_later.json",
		// Recorded before the poll took its page (pages): no input, the
		// detection by name without one, no version marker.
		"poll_idle_before_pages.json", "poll_with_events_before_pages.json",
		// A removed page's followers told (page notices).
		"page_notice_removed.json",
		// A delivery that took a newer step while it sent, and the newer
		// one that offered it (hand-over-sending).
		"delivery_took_hand_over.json", "delivery_offered_hand_over.json",
		// Deliveries from before their sends went out in batches
		// (batch-sends): a Send per subscriber.
		"delivery_429_then_success_before_batch_sends.json", "delivery_403_removed_before_batch_sends.json",
		// A fan-out to 200 chats, its ledger written with the window full
		// (flush-behind-sends), and one from before, written first.
		"delivery_fan_out.json", "delivery_fan_out_before_flush_behind.json"} {
		require.Contains(t, files, filepath.Join("testdata", want))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(workflows.PollWorkflow)
			r.RegisterWorkflow(workflows.DeliveryWorkflow)
			r.RegisterWorkflow(workflows.MaintenanceWorkflow)
			r.RegisterWorkflow(workflows.ReminderWorkflow)
			r.RegisterWorkflow(workflows.SummaryWorkflow)
			r.RegisterWorkflow(workflows.PageNoticeWorkflow)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
