package statuspage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// New returns the fetcher for STATUSPAGE_PROVIDER.
func New(provider, baseURL string, timeout time.Duration) (Fetcher, error) {
	switch provider {
	case ProviderIncidentIO:
		return NewIncidentIO(baseURL, timeout), nil
	case ProviderStatuspage:
		return NewClient(baseURL, timeout), nil
	case ProviderAuto, "":
		return NewAuto(baseURL, timeout), nil
	}
	return nil, fmt.Errorf("unknown status page provider %q (want auto, incidentio or statuspage)", provider)
}

// reprobeEvery is how often Auto, settled on Statuspage, checks whether the
// page has moved to incident.io (one small 404 when it has not).
const reprobeEvery = 30 * time.Minute

// Auto reads the page with incident.io's native API when the page serves it
// and with the Statuspage v2 API otherwise. The choice is remembered; a page
// that moves from one to the other is followed (the diff then re-baselines).
type Auto struct {
	native *IncidentIO
	v2     *Client
	now    func() time.Time
	// OnChoose, when set, hears which provider was chosen, once per change.
	OnChoose func(provider string)

	mu       sync.Mutex
	chosen   string
	probedAt time.Time
}

// NewAuto returns a client that picks the provider on its first fetch.
func NewAuto(baseURL string, timeout time.Duration) *Auto {
	return &Auto{native: NewIncidentIO(baseURL, timeout), v2: NewClient(baseURL, timeout), now: time.Now}
}

// Chosen is the provider in use ("" before the first successful fetch).
func (a *Auto) Chosen() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.chosen
}

// Native is the incident.io client, for the page's own uptime figures.
func (a *Auto) Native() *IncidentIO { return a.native }

// Fetch tries the provider chosen before; a native page that stops
// answering, or a Statuspage due for a re-probe, is probed again.
func (a *Auto) Fetch(ctx context.Context) (*Page, int64, error) {
	a.mu.Lock()
	chosen, probedAt := a.chosen, a.probedAt
	a.mu.Unlock()
	tryNative := chosen != ProviderStatuspage || a.now().Sub(probedAt) >= reprobeEvery
	var spent int64
	if tryNative {
		p, n, err := a.native.Fetch(ctx)
		spent += n
		if err == nil {
			a.choose(ProviderIncidentIO)
			return p, spent, nil
		}
		// Only a page that does not serve the native API falls back: a
		// native page that fails for a while must not flip providers (each
		// flip re-baselines, and changes meanwhile would go unannounced).
		if !errors.Is(err, errNotServed) {
			if chosen == ProviderStatuspage {
				return a.fetchV2(ctx, spent)
			}
			return nil, spent, err
		}
	}
	return a.fetchV2(ctx, spent)
}

func (a *Auto) fetchV2(ctx context.Context, spent int64) (*Page, int64, error) {
	p, n, err := a.v2.Fetch(ctx)
	spent += n
	if err != nil {
		return nil, spent, err
	}
	a.choose(ProviderStatuspage)
	return p, spent, nil
}

func (a *Auto) choose(provider string) {
	a.mu.Lock()
	if provider == ProviderStatuspage && (a.chosen != ProviderStatuspage || a.now().Sub(a.probedAt) >= reprobeEvery) {
		a.probedAt = a.now()
	}
	changed := a.chosen != provider
	a.chosen = provider
	a.mu.Unlock()
	if changed && a.OnChoose != nil {
		a.OnChoose(provider)
	}
}
