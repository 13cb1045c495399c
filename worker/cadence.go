package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/workflows"
)

// cadence polls faster while an incident is open: it sets the Schedule's
// interval to POLL_INTERVAL_ACTIVE then, and back to POLL_INTERVAL when all
// is quiet. The Schedule stays the one source of polls.
type cadence struct {
	schedules      client.ScheduleClient
	scheduleID     string
	normal, active time.Duration

	mu      sync.Mutex
	current time.Duration // the interval this worker last set
}

func newCadence(c client.Client, cfg *config.Config, scheduleID string) *cadence {
	return &cadence{schedules: c.ScheduleClient(), scheduleID: scheduleID, normal: cfg.PollInterval, active: cfg.ActivePollInterval(), current: cfg.PollInterval}
}

// cadences are one cadence per page's Schedule, by page name: an incident
// open on one page speeds up that page's polls only.
type cadences map[string]*cadence

func newCadences(c client.Client, cfg *config.Config, offer pages.Offer) cadences {
	out := cadences{}
	for _, p := range offer.List {
		out[p.Name] = newCadence(c, cfg, workflows.PageScheduleID(offer.EventPage(p.Name)))
	}
	return out
}

// Set is called after every poll of a page with whether an incident is
// open on it.
func (cs cadences) Set(ctx context.Context, page string, incidentOpen bool) error {
	cd := cs[page]
	if cd == nil {
		return nil // a page no longer listed: its Schedule is gone
	}
	return cd.Set(ctx, incidentOpen)
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
	h := cd.schedules.GetHandle(ctx, cd.scheduleID)
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
