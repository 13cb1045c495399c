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
	// Shared, when set, is where the choice lives for every worker
	// (sharedFetch): decided once per page, durably, re-probed by one
	// worker, and never changed on one 404.
	Shared ProviderStore
	// Key names the page in Shared (its event.Event.Page).
	Key string
	// Confirm is how long apart a first decision's native probes are
	// (sharedFetch; a second by default).
	Confirm time.Duration

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
	if a.Shared != nil {
		return a.sharedFetch(ctx)
	}
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

// ProviderChoice is a page's provider as every worker reads it.
type ProviderChoice struct {
	// Provider is incidentio or statuspage; "" not decided yet.
	Provider string
	// ProbedAt: when Statuspage's page was last probed for the native API.
	ProbedAt time.Time
	// NotServed counts the native API's 404s in a row on a native page,
	// since NotServedSince.
	NotServed      int
	NotServedSince time.Time
	// V is the record's version, for compare-and-set.
	V int64
}

// ProviderStore keeps each page's ProviderChoice (store.Providers).
type ProviderStore interface {
	LoadProvider(ctx context.Context, key string) (ProviderChoice, error)
	// SaveProvider writes next if the record is still at version was.V
	// (next.V is set by it); false when another worker changed it first.
	SaveProvider(ctx context.Context, key string, was, next ProviderChoice) (bool, error)
}

// What it takes to leave the native API for Statuspage: a first decision
// probes three times; a page on the native API answers 404 to this many
// polls in a row over this long.
const (
	confirmProbes   = 3
	flipAfter404s   = 3
	flipAfterPeriod = 5 * time.Minute
)

// ErrNotFlipped: the native API answered 404 on a page recorded as native,
// not yet often or long enough to change providers; the poll fails and
// tries again (a flip re-baselines, and changes meanwhile go unannounced).
var ErrNotFlipped = errors.New("the native API answered 404 on a page recorded as incident.io; not changing providers on that alone")

// sharedFetch is Fetch with the choice in Shared.
func (a *Auto) sharedFetch(ctx context.Context) (*Page, int64, error) {
	rec, err := a.Shared.LoadProvider(ctx, a.Key)
	if err != nil {
		return nil, 0, err
	}
	var spent int64
	switch rec.Provider {
	case ProviderIncidentIO:
		p, n, err := a.native.Fetch(ctx)
		spent += n
		if err == nil {
			if rec.NotServed > 0 {
				next := rec
				next.NotServed, next.NotServedSince = 0, time.Time{}
				_, _ = a.Shared.SaveProvider(ctx, a.Key, rec, next)
			}
			a.noteChosen(ProviderIncidentIO)
			return p, spent, nil
		}
		if !errors.Is(err, errNotServed) {
			return nil, spent, err
		}
		next := rec
		next.NotServed++
		if next.NotServedSince.IsZero() {
			next.NotServedSince = a.now()
		}
		if next.NotServed < flipAfter404s || a.now().Sub(next.NotServedSince) < flipAfterPeriod {
			if _, err := a.Shared.SaveProvider(ctx, a.Key, rec, next); err != nil {
				return nil, spent, err
			}
			return nil, spent, fmt.Errorf("%w (%d in a row)", ErrNotFlipped, next.NotServed)
		}
		return a.decide(ctx, rec, ProviderStatuspage, spent)
	case ProviderStatuspage:
		if a.now().Sub(rec.ProbedAt) >= reprobeEvery {
			// One worker re-probes: the one whose claim lands.
			next := rec
			next.ProbedAt = a.now()
			won, err := a.Shared.SaveProvider(ctx, a.Key, rec, next)
			if err != nil {
				return nil, spent, err
			}
			if won {
				next.V = rec.V + 1
				p, n, err := a.native.Fetch(ctx)
				spent += n
				if err == nil {
					if _, err := a.decideWith(ctx, next, ProviderIncidentIO); err != nil {
						return nil, spent, err
					}
					return p, spent, nil
				}
			}
		}
		p, n, err := a.v2.Fetch(ctx)
		spent += n
		if err == nil {
			a.noteChosen(ProviderStatuspage)
		}
		return p, spent, err
	}
	// Not decided: the native API, confirmed absent by probes a moment
	// apart before Statuspage is chosen for good.
	for i := 0; ; i++ {
		p, n, err := a.native.Fetch(ctx)
		spent += n
		if err == nil {
			if _, err := a.decideWith(ctx, rec, ProviderIncidentIO); err != nil {
				return nil, spent, err
			}
			return a.afterDecision(ctx, p, ProviderIncidentIO, spent)
		}
		if !errors.Is(err, errNotServed) {
			return nil, spent, err
		}
		if i+1 == confirmProbes {
			break
		}
		wait := a.Confirm
		if wait == 0 {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return nil, spent, ctx.Err()
		case <-time.After(wait):
		}
	}
	return a.decide(ctx, rec, ProviderStatuspage, spent)
}

// decide records provider (from rec) and fetches with what is recorded.
func (a *Auto) decide(ctx context.Context, rec ProviderChoice, provider string, spent int64) (*Page, int64, error) {
	chosen, err := a.decideWith(ctx, rec, provider)
	if err != nil {
		return nil, spent, err
	}
	var p *Page
	var n int64
	if chosen == ProviderIncidentIO {
		p, n, err = a.native.Fetch(ctx)
	} else {
		p, n, err = a.v2.Fetch(ctx)
	}
	spent += n
	if err != nil {
		return nil, spent, err
	}
	return p, spent, nil
}

// afterDecision returns the page read with provider when that is what
// was recorded.
func (a *Auto) afterDecision(ctx context.Context, p *Page, provider string, spent int64) (*Page, int64, error) {
	rec, err := a.Shared.LoadProvider(ctx, a.Key)
	if err != nil {
		return nil, spent, err
	}
	if rec.Provider == provider {
		return p, spent, nil
	}
	return a.decide(ctx, rec, rec.Provider, spent)
}

// decideWith records provider over rec; when another worker changed the
// record first, its choice holds. It returns the provider recorded.
func (a *Auto) decideWith(ctx context.Context, rec ProviderChoice, provider string) (string, error) {
	next := ProviderChoice{Provider: provider, V: rec.V}
	if provider == ProviderStatuspage {
		next.ProbedAt = a.now()
	}
	won, err := a.Shared.SaveProvider(ctx, a.Key, rec, next)
	if err != nil {
		return "", err
	}
	if !won {
		cur, err := a.Shared.LoadProvider(ctx, a.Key)
		if err != nil {
			return "", err
		}
		if cur.Provider == "" {
			return "", errors.New("the page's provider record changed meanwhile; try again")
		}
		provider = cur.Provider
	}
	a.noteChosen(provider)
	return provider, nil
}

// noteChosen tells OnChoose when this worker's view changes.
func (a *Auto) noteChosen(provider string) {
	a.mu.Lock()
	changed := a.chosen != provider
	a.chosen = provider
	a.mu.Unlock()
	if changed && a.OnChoose != nil {
		a.OnChoose(provider)
	}
}
