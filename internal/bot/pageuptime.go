package bot

import (
	"context"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// pageUptimes serves /uptime from the page's own figures where the provider
// computes them (incident.io's component_impacts), one request per window,
// kept for a few minutes so a burst of /uptime costs the page nothing.
type pageUptimes struct {
	fetch    func(ctx context.Context, start, end time.Time) ([]statuspage.ComponentUptime, error)
	cacheFor time.Duration

	mu     sync.Mutex
	at     time.Time
	cached [][]statuspage.ComponentUptime
}

// get returns the figures per uptimeWindows entry, or false when the page
// cannot give them (another provider, or a request failed).
func (pu *pageUptimes) get(ctx context.Context, p *statuspage.Page, now time.Time) ([][]statuspage.ComponentUptime, bool) {
	if pu == nil || pu.fetch == nil || p.Provider != statuspage.ProviderIncidentIO {
		return nil, false
	}
	pu.mu.Lock()
	defer pu.mu.Unlock()
	if pu.cached != nil && now.Sub(pu.at) < pu.cacheFor {
		return pu.cached, true
	}
	var out [][]statuspage.ComponentUptime
	for _, w := range uptimeWindows {
		figs, err := pu.fetch(ctx, now.Add(-w.D), now)
		if err != nil {
			return nil, false
		}
		out = append(out, figs)
	}
	pu.cached, pu.at = out, now
	return out, true
}

// PageUptime takes each component's figures from the page; a component the
// page gives no figure for in a window keeps the computed one.
func PageUptime(computed []ComponentUptime, figures [][]statuspage.ComponentUptime) []ComponentUptime {
	out := make([]ComponentUptime, len(computed))
	for i, cu := range computed {
		out[i] = ComponentUptime{Component: cu.Component, Fractions: append([]float64(nil), cu.Fractions...)}
	}
	for w, figs := range figures {
		by := map[string]float64{}
		for _, f := range figs {
			if f.ComponentID != "" {
				by[f.ComponentID] = f.Percent / 100
			}
		}
		for i := range out {
			if v, ok := by[out[i].Component.ID]; ok && w < len(out[i].Fractions) {
				out[i].Fractions[w] = v
			}
		}
	}
	return out
}
