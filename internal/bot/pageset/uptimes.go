package pageset

import (
	"context"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Uptimes serves /uptime from the page's own figures where the provider
// computes them (incident.io's component_impacts), one request per window,
// kept for a few minutes so a burst of /uptime costs the page nothing.
//
// One fetch runs at a time, in the background with its own timeout, and
// no lock is held while it runs: callers wait for it only until their
// own deadline (and at most wait), then answer with the figures the bot
// computes itself. A failure is remembered for failFor, so a hanging or
// failing page is not asked again by every /uptime.
type Uptimes struct {
	fetch    func(ctx context.Context, start, end time.Time) ([]statuspage.ComponentUptime, error)
	cacheFor time.Duration
	failFor  time.Duration
	wait     time.Duration // longest a caller waits for a fetch (0: its deadline)
	timeout  time.Duration // one fetch of every window

	mu       sync.Mutex
	at       time.Time
	cached   [][]statuspage.ComponentUptime
	failedAt time.Time
	flight   chan struct{} // closed when the running fetch ends
}

// Get returns the figures per window (Windows), or false when the page
// cannot give them in time (another provider, a request failed lately, or
// the fetch outlasts the caller's patience).
func (pu *Uptimes) Get(ctx context.Context, p *statuspage.Page, now time.Time) ([][]statuspage.ComponentUptime, bool) {
	if pu == nil || pu.fetch == nil || p.Provider != statuspage.ProviderIncidentIO {
		return nil, false
	}
	pu.mu.Lock()
	if pu.cached != nil && now.Sub(pu.at) < pu.cacheFor {
		defer pu.mu.Unlock()
		return pu.cached, true
	}
	if !pu.failedAt.IsZero() && now.Sub(pu.failedAt) < pu.failFor {
		pu.mu.Unlock()
		return nil, false
	}
	done := pu.flight
	if done == nil {
		done = make(chan struct{})
		pu.flight = done
		go pu.run(now, done)
	}
	pu.mu.Unlock()
	if pu.wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, pu.wait)
		defer cancel()
	}
	waited := false
	dispatch.Aside(ctx, func() {
		select {
		case <-done:
			waited = true
		case <-ctx.Done():
		}
	})
	if !waited {
		return nil, false
	}
	pu.mu.Lock()
	defer pu.mu.Unlock()
	if pu.cached == nil || !pu.failedAt.IsZero() {
		return nil, false
	}
	return pu.cached, true
}

// run fetches every window and records the outcome.
func (pu *Uptimes) run(now time.Time, done chan struct{}) {
	timeout := pu.timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out [][]statuspage.ComponentUptime
	var err error
	for _, w := range Windows {
		var figs []statuspage.ComponentUptime
		if figs, err = pu.fetch(ctx, now.Add(-w), now); err != nil {
			break
		}
		out = append(out, figs)
	}
	pu.mu.Lock()
	if err != nil {
		pu.failedAt = now
	} else {
		pu.cached, pu.at, pu.failedAt = out, now, time.Time{}
	}
	pu.flight = nil
	pu.mu.Unlock()
	close(done)
}

// Windows are /uptime's windows, shortest first: 24 hours, 7 days, 30
// days.
var Windows = []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// Uptimes is the page's own uptime figures (nil where it serves none).
func (ps *Set) Uptimes(name string) *Uptimes { return ps.uptimes[name] }
