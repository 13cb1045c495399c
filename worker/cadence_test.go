package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// While an incident is open the Schedule polls at POLL_INTERVAL_ACTIVE,
// and back at POLL_INTERVAL once it is resolved; the Schedule stays the
// one source of polls.
func TestPollFasterWhileAnIncidentIsOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStackWith(t, 40*time.Second, testenv.StackOptions{Provider: "incidentio"})
	s.StartWorker(t)
	s.WaitForBaseline(t)
	ctx := context.Background()
	h := s.Temporal.ScheduleClient().GetHandle(ctx, workflows.ScheduleID)
	interval := func() time.Duration {
		d, err := h.Describe(ctx)
		require.NoError(t, err)
		return d.Schedule.Spec.Intervals[0].Every
	}
	require.Equal(t, 40*time.Second, interval())
	pollNow := func() {
		before := s.IO.Requests("/proxy/" + s.IO.Server.Listener.Addr().String())
		require.NoError(t, h.Trigger(ctx, client.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL}))
		testenv.WaitFor(t, 30*time.Second, "a poll", func() bool {
			return s.IO.Requests("/proxy/"+s.IO.Server.Listener.Addr().String()) > before
		})
	}

	s.IO.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "investigating", "", "01UPD00000000000000000000A", "Looking.")
	s.IO.AffectComponent("01INC00000000000000000000A", fakes.IOComponentCLI, "partial_outage")
	pollNow()
	testenv.WaitFor(t, 30*time.Second, "the active interval", func() bool { return interval() == 10*time.Second })

	s.IO.AddIncidentUpdate("01INC00000000000000000000A", "", "resolved", "", "01UPD00000000000000000000B", "Fixed.")
	pollNow()
	testenv.WaitFor(t, 30*time.Second, "the normal interval", func() bool { return interval() == 40*time.Second })
}
