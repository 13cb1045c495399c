package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/workflows"
)

// cadence polls faster while an incident is open: it sets the Schedule's
// interval to POLL_INTERVAL_ACTIVE then, and back to POLL_INTERVAL when all
// is quiet. The Schedule stays the one source of polls.
type cadence struct {
	schedules      client.ScheduleClient
	normal, active time.Duration

	mu      sync.Mutex
	current time.Duration // the interval this worker last set
}

func newCadence(c client.Client, cfg *config.Config) *cadence {
	return &cadence{schedules: c.ScheduleClient(), normal: cfg.PollInterval, active: cfg.ActivePollInterval(), current: cfg.PollInterval}
}

// Set is called after every poll with whether an incident is open.
func (cd *cadence) Set(ctx context.Context, incidentOpen bool) error {
	want := cd.normal
	if incidentOpen {
		want = cd.active
	}
	cd.mu.Lock()
	same := cd.current == want
	cd.mu.Unlock()
	if same {
		return nil
	}
	h := cd.schedules.GetHandle(ctx, workflows.ScheduleID)
	err := h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := in.Description.Schedule
		if s.Spec != nil && len(s.Spec.Intervals) == 1 && s.Spec.Intervals[0].Every == want {
			return nil, temporal.ErrSkipScheduleUpdate
		}
		s.Spec = ptr(intervalSpec(want))
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
	if err != nil {
		return fmt.Errorf("temporal: set poll interval to %s: %w", want, err)
	}
	cd.mu.Lock()
	cd.current = want
	cd.mu.Unlock()
	return nil
}

func intervalSpec(every time.Duration) client.ScheduleSpec {
	return client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
}
