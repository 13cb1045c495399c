// Package pageset is how the command bot reads the status pages: every
// command reads through it. Each offered page has a Source (the poll's
// snapshot, else one shared live fetch, failures remembered, a command's
// wait bounded and aside) and its own page's uptime figures (Uptimes); a
// Set reads the pages a command covers, concurrently, and merges them
// (Merge) for the commands that show components.
package pageset

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Need says which half of the page a command reads.
type Need int

const (
	Components Need = iota
	Incidents
)

func has(p *statuspage.Page, n Need) bool {
	if n == Incidents {
		return p.IncidentsErr == ""
	}
	return p.ComponentsErr == ""
}

// View is the page a reply is built from.
type View struct {
	Page      *statuspage.Page
	FetchedAt time.Time
	// Stale is set when the page could not be fetched and an older
	// snapshot stands in.
	Stale bool
	// Parts are the pages covered, as read (Page is them merged, or the
	// legacy page alone); Missing names those that could not be read.
	Parts   []Part
	Missing []string
}

// ErrNoPage: none of the covered pages could be read.
var ErrNoPage = errors.New("status page unavailable")

// Source answers commands from the snapshot the poll workflow stores,
// and fetches the page itself only when no snapshot younger than maxAge
// exists. Live fetches are shared: concurrent commands wait for one fetch
// (at most wait, and aside: a command waiting for the page holds none of
// the workers other chats' commands need), and its result serves for
// cacheFor. A failed fetch is remembered for failFor: during an outage
// (the page hanging, the snapshot stale) commands answer from the newest
// snapshot at once instead of each waiting a fetch of its own.
type Source struct {
	snapshots func(ctx context.Context) (*store.Snapshot, error)
	fetch     func(ctx context.Context) (*statuspage.Page, error)
	maxAge    time.Duration
	cacheFor  time.Duration
	failFor   time.Duration
	wait      time.Duration // longest a command waits for a fetch (0: its deadline)
	timeout   time.Duration
	now       func() time.Time
	log       *slog.Logger

	mu       sync.Mutex
	cached   *store.Snapshot
	failedAt time.Time
	flight   *fetchCall
}

type fetchCall struct {
	done chan struct{}
	snap *store.Snapshot
	err  error
}

func (ps *Source) get(ctx context.Context, n Need) (View, error) {
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
		return View{Page: &snap.Page, FetchedAt: snap.FetchedAt}, nil
	}
	ps.mu.Lock()
	cached := ps.cached
	ps.mu.Unlock()
	if fresh(cached, ps.cacheFor) {
		return View{Page: &cached.Page, FetchedAt: cached.FetchedAt}, nil
	}
	live, err := ps.live(ctx, now)
	if err == nil && has(&live.Page, n) {
		return View{Page: &live.Page, FetchedAt: live.FetchedAt}, nil
	}
	if err != nil && !errors.Is(err, errFailedLately) {
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
			return View{Page: &live.Page, FetchedAt: live.FetchedAt}, nil
		}
		return View{}, ErrNoPage
	}
	return View{Page: &best.Page, FetchedAt: best.FetchedAt, Stale: true}, nil
}

// errFailedLately: the last fetch failed less than failFor ago.
var errFailedLately = errors.New("the status page failed lately")

// live fetches the page, sharing one fetch between concurrent callers. A
// caller whose ctx ends (or whose wait is up) stops waiting; the fetch
// goes on for the others.
func (ps *Source) live(ctx context.Context, now time.Time) (*store.Snapshot, error) {
	ps.mu.Lock()
	if !ps.failedAt.IsZero() && now.Sub(ps.failedAt) < ps.failFor {
		ps.mu.Unlock()
		return nil, errFailedLately
	}
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
				ps.cached, ps.failedAt = c.snap, time.Time{}
			} else {
				ps.failedAt = ps.now()
			}
			ps.mu.Unlock()
			close(c.done)
		}()
	}
	ps.mu.Unlock()
	if ps.wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ps.wait)
		defer cancel()
	}
	var snap *store.Snapshot
	var err error
	dispatch.Aside(ctx, func() {
		select {
		case <-c.done:
			snap, err = c.snap, c.err
		case <-ctx.Done():
			err = ctx.Err()
		}
	})
	return snap, err
}

// stored is the newest page the bot has without fetching: the poll
// workflow's snapshot or the last live fetch, whatever their age (Stale
// when older than maxAge). For what only names components.
func (ps *Source) stored(ctx context.Context, n Need) (View, bool) {
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
		return View{}, false
	}
	return View{Page: &best.Page, FetchedAt: best.FetchedAt, Stale: ps.now().Sub(best.FetchedAt) >= ps.maxAge}, true
}
