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
	return tickWhile(ctx, every, func() { activity.RecordHeartbeat(ctx) })
}

// tickWhile runs beat every interval in an activity until the returned
// stop is called, which waits for a beat under way: a heartbeat after the
// activity returned is refused (and logged) by the SDK.
func tickWhile(ctx context.Context, every time.Duration, beat func()) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				beat()
			}
		}
	}()
	return func() { close(done); <-exited }
}
