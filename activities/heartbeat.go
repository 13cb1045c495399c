package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// sendHeartbeatEvery: a send or a delivery's step that takes longer
// heartbeats this often, so one lost with its worker is noticed after the
// delivery's heartbeat time-out (Tuning.SendHeartbeat); a quick one costs
// no heartbeat at all.
const sendHeartbeatEvery = 2 * time.Second

// heartbeatWhile heartbeats every interval until the returned stop is
// called (nothing outside an activity: a test calling the method).
func heartbeatWhile(ctx context.Context, every time.Duration) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
