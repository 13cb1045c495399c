package commands

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// need says which half of the page a command reads.
type need int

const (
	needComponents need = iota
	needIncidents
)

func has(p *statuspage.Page, n need) bool {
	if n == needIncidents {
		return p.IncidentsErr == ""
	}
	return p.ComponentsErr == ""
}

// pageView is the page a reply is built from.
type pageView struct {
	Page      *statuspage.Page
	FetchedAt time.Time
	// Stale is set when the page could not be fetched and an older
	// snapshot stands in.
	Stale bool
}

var errNoPage = errors.New("status page unavailable")

// pageSource answers commands from the snapshot the poll workflow stores,
// and fetches the page itself only when no snapshot younger than maxAge
// exists. Live fetches are shared: concurrent commands wait for one fetch,
// and its result serves for cacheFor.
type pageSource struct {
	snapshots func(ctx context.Context) (*store.Snapshot, error)
	fetch     func(ctx context.Context) (*statuspage.Page, error)
	maxAge    time.Duration
	cacheFor  time.Duration
	timeout   time.Duration
	now       func() time.Time
	log       *slog.Logger

	mu     sync.Mutex
	cached *store.Snapshot
	flight *fetchCall
}

type fetchCall struct {
	done chan struct{}
	snap *store.Snapshot
	err  error
}

func (ps *pageSource) get(ctx context.Context, n need) (pageView, error) {
	now := ps.now()
	snap, err := ps.snapshots(ctx)
	if err != nil {
		ps.log.Warn("read snapshot", "err", err)
		snap = nil
	}
	fresh := func(s *store.Snapshot, age time.Duration) bool {
		return s != nil && now.Sub(s.FetchedAt) < age && has(&s.Page, n)
	}
	if fresh(snap, ps.maxAge) {
		return pageView{Page: &snap.Page, FetchedAt: snap.FetchedAt}, nil
	}
	ps.mu.Lock()
	cached := ps.cached
	ps.mu.Unlock()
	if fresh(cached, ps.cacheFor) {
		return pageView{Page: &cached.Page, FetchedAt: cached.FetchedAt}, nil
	}
	live, err := ps.live(ctx)
	if err == nil && has(&live.Page, n) {
		return pageView{Page: &live.Page, FetchedAt: live.FetchedAt}, nil
	}
	if err != nil {
		ps.log.Warn("fetch status page", "err", err)
	}
	// Fall back to the newest page that has what the command needs.
	var best *store.Snapshot
	for _, s := range []*store.Snapshot{snap, cached, live} {
		if s != nil && has(&s.Page, n) && (best == nil || s.FetchedAt.After(best.FetchedAt)) {
			best = s
		}
	}
	if best == nil {
		if live != nil {
			// The page answered but without this half: say what we have.
			return pageView{Page: &live.Page, FetchedAt: live.FetchedAt}, nil
		}
		return pageView{}, errNoPage
	}
	return pageView{Page: &best.Page, FetchedAt: best.FetchedAt, Stale: true}, nil
}

// live fetches the page, sharing one fetch between concurrent callers. A
// caller whose ctx ends stops waiting; the fetch goes on for the others.
func (ps *pageSource) live(ctx context.Context) (*store.Snapshot, error) {
	ps.mu.Lock()
	c := ps.flight
	if c == nil {
		c = &fetchCall{done: make(chan struct{})}
		ps.flight = c
		go func() {
			fctx, cancel := context.WithTimeout(context.Background(), ps.timeout)
			defer cancel()
			p, err := ps.fetch(fctx)
			if err == nil {
				c.snap = &store.Snapshot{Page: *p, FetchedAt: ps.now()}
			}
			c.err = err
			ps.mu.Lock()
			ps.flight = nil
			if c.snap != nil {
				ps.cached = c.snap
			}
			ps.mu.Unlock()
			close(c.done)
		}()
	}
	ps.mu.Unlock()
	select {
	case <-c.done:
		return c.snap, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stored is the newest page the bot has without fetching: the poll
// workflow's snapshot or the last live fetch, whatever their age (Stale
// when older than maxAge). For what only names components.
func (ps *pageSource) stored(ctx context.Context, n need) (pageView, bool) {
	snap, err := ps.snapshots(ctx)
	if err != nil {
		snap = nil
	}
	ps.mu.Lock()
	cached := ps.cached
	ps.mu.Unlock()
	var best *store.Snapshot
	for _, s := range []*store.Snapshot{snap, cached} {
		if s != nil && has(&s.Page, n) && (best == nil || s.FetchedAt.After(best.FetchedAt)) {
			best = s
		}
	}
	if best == nil {
		return pageView{}, false
	}
	return pageView{Page: &best.Page, FetchedAt: best.FetchedAt, Stale: ps.now().Sub(best.FetchedAt) >= ps.maxAge}, true
}
