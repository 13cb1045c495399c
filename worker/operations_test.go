package worker_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// A subscriber whose chat always answers 500 puts the delivery into
// backing_off; the operator's visibility query finds it, the progress query
// and current details explain it, and the skip signal lets it finish.
func TestStuckDeliveryIsFoundExplainedAndSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	for _, chat := range []int64{701, 702} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	s.Telegram.FailChat(702, func(int) *fakes.APIError { return fakes.ErrInternal })
	s.StartWorker(t)
	s.WaitForBaseline(t)
	s.Page.SetComponent("api0000001", "API", "major_outage")

	const query = "WorkflowType = 'DeliveryWorkflow' AND ExecutionStatus = 'Running' AND DeliveryState = 'backing_off'"
	var stuck string
	testenv.WaitFor(t, 2*time.Minute, "the visibility query to find a backing_off delivery", func() bool {
		resp, err := s.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		require.NoError(t, err)
		if len(resp.GetExecutions()) == 1 {
			stuck = resp.GetExecutions()[0].GetExecution().GetWorkflowId()
		}
		return stuck != ""
	})
	require.True(t, strings.HasPrefix(stuck, "delivery/component:api0000001:major_outage:"))
	require.Len(t, s.Telegram.MessagesTo(701, 0), 1, "the healthy subscriber is not held up")

	v, err := s.Temporal.QueryWorkflow(ctx, stuck, "", activities.ProgressQuery)
	require.NoError(t, err)
	var p workflows.Progress
	require.NoError(t, v.Get(&p))
	require.Equal(t, workflows.StateBackingOff, p.State)
	require.Equal(t, []string{"702"}, p.PendingKeys)
	require.Equal(t, 1, p.Delivered)

	meta, err := s.Temporal.QueryWorkflow(ctx, stuck, "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, meta.Get(&md))
	details := md.GetCurrentDetails()
	t.Logf("current details of %s:\n%s", stuck, details)
	require.Contains(t, details, "`702`")
	require.Contains(t, details, "Internal Server Error")
	require.NotContains(t, details, testenv.TestToken)

	// `statusbot deliveries` lists it with its state, pending count and error.
	cmd := exec.Command(testenv.StatusbotBinary(t), "deliveries")
	cmd.Env = s.Env()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	t.Logf("statusbot deliveries:\n%s", out)
	require.Contains(t, string(out), stuck)
	require.Contains(t, string(out), "backing_off")
	require.Contains(t, string(out), "Internal Server Error")
	require.NotContains(t, string(out), testenv.TestToken)

	h, err := s.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: stuck, UpdateName: workflows.UpdateSkip,
		Args: []any{"702"}, WaitForStage: client.WorkflowUpdateStageCompleted})
	require.NoError(t, err)
	var answer string
	require.NoError(t, h.Get(ctx, &answer))
	t.Logf("skip-subscriber answered: %s", answer)
	require.Contains(t, answer, "Internal Server Error", "the answer says what the subscriber was pending with")
	// An unknown key is refused with a reason.
	h, err = s.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: stuck, UpdateName: workflows.UpdateSkip,
		Args: []any{"not a key"}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	require.ErrorContains(t, err, "not a subscriber key")
	var res workflows.Progress
	require.NoError(t, s.Temporal.GetWorkflow(ctx, stuck, "").Get(ctx, &res))
	require.Equal(t, workflows.StateDone, res.State)
	require.Equal(t, 1, res.Skipped)
	require.Equal(t, 1, res.Delivered)
}

// Three updates of one component; update 1 keeps failing for one
// subscriber, update 2 is given up (as the runbook recommends for a stuck
// delivery): update 3 still waits for update 1 at that subscriber, and
// reaches it right after update 1 does.
func TestGiveUpOfAMiddleUpdateKeepsOrderForTheLast(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	ctx := context.Background()
	for _, chat := range []int64{801, 802} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	var mu sync.Mutex
	broken := true
	s.Telegram.FailChat(802, func(int) *fakes.APIError {
		mu.Lock()
		defer mu.Unlock()
		if broken {
			return fakes.ErrInternal
		}
		return nil
	})
	s.StartWorker(t)
	s.WaitForBaseline(t)

	running := func(status string) string {
		for _, id := range s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING) {
			if strings.Contains(id, ":"+status+":") {
				return id
			}
		}
		return ""
	}
	var first, middle string
	s.Page.SetComponent("api0000001", "API", "major_outage")
	testenv.WaitFor(t, time.Minute, "update 1 to reach 801", func() bool { return len(s.Telegram.MessagesTo(801, 0)) == 1 })
	first = running("major_outage")
	require.NotEmpty(t, first)
	s.Page.SetComponent("api0000001", "API", "operational")
	testenv.WaitFor(t, time.Minute, "update 2 to reach 801", func() bool { return len(s.Telegram.MessagesTo(801, 0)) == 2 })
	middle = running("operational")
	require.NotEmpty(t, middle)

	h, err := s.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: middle, UpdateName: workflows.UpdateGiveUp,
		WaitForStage: client.WorkflowUpdateStageCompleted})
	require.NoError(t, err)
	var answer string
	require.NoError(t, h.Get(ctx, &answer))
	t.Logf("give-up answered: %s", answer)
	require.Error(t, s.Temporal.GetWorkflow(ctx, middle, "").Get(ctx, nil), "the middle update failed (given up)")

	s.Page.SetComponent("api0000001", "API", "partial_outage")
	testenv.WaitFor(t, time.Minute, "update 3 to reach 801", func() bool { return len(s.Telegram.MessagesTo(801, 0)) == 3 })
	time.Sleep(5 * time.Second)
	require.Empty(t, s.Telegram.MessagesTo(802, 0), "update 3 waits for update 1 at 802")

	mu.Lock()
	broken = false
	mu.Unlock()
	testenv.WaitFor(t, 4*time.Minute, "updates 1 and 3 to reach 802", func() bool { return len(s.Telegram.MessagesTo(802, 0)) >= 2 })
	msgs := s.Telegram.MessagesTo(802, 0)
	require.Len(t, msgs, 2, "update 2 was given up")
	require.Contains(t, msgs[0].Text, "Major Outage", "update 1 first")
	require.Contains(t, msgs[1].Text, "Partial Outage", "then update 3")
	gap := msgs[1].At.Sub(msgs[0].At)
	t.Logf("update 3 reached 802 %v after update 1 did", gap.Round(time.Millisecond))
	require.Less(t, gap, workflows.DefaultTuning().Recheck+10*time.Second, "within a recheck of update 1 reaching it")
	require.NoError(t, s.Temporal.GetWorkflow(ctx, first, "").Get(ctx, nil))
}
