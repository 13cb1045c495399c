package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// TestExportReplayHistories regenerates workflows/testdata/*.json from a
// real dev-server run: `make histories` (UPDATE_REPLAY_HISTORIES=1).
func TestExportReplayHistories(t *testing.T) {
	if os.Getenv("UPDATE_REPLAY_HISTORIES") == "" {
		t.Skip("set UPDATE_REPLAY_HISTORIES=1 (make histories) to regenerate the replay histories")
	}
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	_, err := s.Store.Subscribe(ctx, 501, 0, time.Now())
	require.NoError(t, err)
	s.Telegram.FailChat(501, func(attempt int) *fakes.APIError {
		if attempt == 1 {
			return fakes.TooMany(2)
		}
		return nil
	})
	s.StartWorker(t)
	s.WaitForBaseline(t)
	time.Sleep(5 * time.Second) // at least one idle poll after the baseline

	s.Page.SetComponent("api0000001", "API", "degraded_performance")
	testenv.WaitFor(t, time.Minute, "the 429-then-success delivery", func() bool { return len(s.Telegram.MessagesTo(501, 0)) == 1 })
	var first []string
	testenv.WaitFor(t, 30*time.Second, "the first delivery to close", func() bool {
		first = closedDeliveries(t, s)
		return len(first) == 1
	})

	_, err = s.Store.Subscribe(ctx, 502, 0, time.Now())
	require.NoError(t, err)
	s.Telegram.FailChat(502, func(int) *fakes.APIError { return fakes.ErrBlocked })
	// 503 fails a whole burst: the delivery backs off and retries it in a
	// retry round (pending in MongoDB).
	_, err = s.Store.Subscribe(ctx, 503, 0, time.Now())
	require.NoError(t, err)
	s.Telegram.FailChat(503, func(attempt int) *fakes.APIError {
		if attempt <= int(workflows.DefaultTuning().SendAttempts) {
			return fakes.ErrInternal
		}
		return nil
	})
	s.Page.SetComponent("api0000001", "API", "operational")
	testenv.WaitFor(t, time.Minute, "the delivery with a 403", func() bool { return len(s.Telegram.MessagesTo(501, 0)) == 2 })
	var second string
	testenv.WaitFor(t, 3*time.Minute, "the second delivery to close", func() bool {
		for _, id := range closedDeliveries(t, s) {
			if id != first[0] {
				second = id
			}
		}
		return second != ""
	})

	dir := filepath.Join(testenv.RepoRoot(), "workflows", "testdata")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	export(t, s, first[0], filepath.Join(dir, "delivery_429_then_success.json"))
	export(t, s, second, filepath.Join(dir, "delivery_403_removed.json"))

	idle, withEvents := "", ""
	resp, err := s.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: "WorkflowType = 'PollWorkflow' AND ExecutionStatus = 'Completed'", PageSize: 1000})
	require.NoError(t, err)
	for _, ex := range resp.GetExecutions() {
		id := ex.GetExecution().GetWorkflowId()
		events := history(t, s, id)
		children, activities := 0, 0
		for _, e := range events {
			switch e.GetEventType() {
			case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
				children++
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				activities++
			}
		}
		switch {
		case children > 0 && withEvents == "":
			withEvents = id
		case children == 0 && activities == 1 && idle == "" && !strings.Contains(resultOf(events), "baseline"):
			idle = id
		}
	}
	require.NotEmpty(t, idle, "an idle poll")
	require.NotEmpty(t, withEvents, "a poll with events")
	export(t, s, idle, filepath.Join(dir, "poll_idle.json"))
	export(t, s, withEvents, filepath.Join(dir, "poll_with_events.json"))
}

func closedDeliveries(t *testing.T, s *testenv.Stack) []string {
	resp, err := s.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: "WorkflowType = 'DeliveryWorkflow' AND ExecutionStatus != 'Running'"})
	require.NoError(t, err)
	var ids []string
	for _, ex := range resp.GetExecutions() {
		ids = append(ids, ex.GetExecution().GetWorkflowId())
	}
	return ids
}

func history(t *testing.T, s *testenv.Stack, id string) []*historypb.HistoryEvent {
	it := s.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var events []*historypb.HistoryEvent
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		events = append(events, e)
	}
	return events
}

func resultOf(events []*historypb.HistoryEvent) string {
	last := events[len(events)-1]
	if a := last.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
		var b strings.Builder
		for _, p := range a.GetResult().GetPayloads() {
			b.Write(p.GetData())
		}
		return b.String()
	}
	return ""
}

func export(t *testing.T, s *testenv.Stack, id, path string) {
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: history(t, s, id)})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	t.Logf("exported %s to %s", id, path)
}

// TestExportFanOutHistory records a delivery to more chats than a ledger
// write takes (two windows): its ledger is written while it sends, which
// the histories of one chat never show (versionFlushBehind changed when).
func TestExportFanOutHistory(t *testing.T) {
	if os.Getenv("UPDATE_REPLAY_HISTORIES") == "" {
		t.Skip("set UPDATE_REPLAY_HISTORIES=1 (make histories) to regenerate the replay histories")
	}
	const chats = 200 // a ledger write (96 outcomes) with more to send after it
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	for i := range chats {
		_, err := s.Store.Subscribe(ctx, int64(7000+i), 0, time.Now())
		require.NoError(t, err)
	}
	s.StartWorker(t)
	s.WaitForBaseline(t)
	s.Page.SetComponent("api0000001", "API", "degraded_performance")
	var ids []string
	testenv.WaitFor(t, 3*time.Minute, "the fan-out's delivery to close", func() bool {
		ids = closedDeliveries(t, s)
		return len(ids) == 1
	})
	for i := range chats {
		require.Len(t, s.Telegram.MessagesTo(int64(7000+i), 0), 1, "chat %d", 7000+i)
	}
	writes := 0
	for _, e := range history(t, s, ids[0]) {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "RecordDelivered" {
			writes++
		}
	}
	require.GreaterOrEqual(t, writes, 2, "a ledger write while it sent, and the last")
	export(t, s, ids[0], filepath.Join(testenv.RepoRoot(), "workflows", "testdata", "delivery_fan_out.json"))
}
