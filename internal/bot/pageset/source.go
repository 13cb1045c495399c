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
	"github.com/openai-status-bot/statusbot/internal/pages"
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

// Set is every offered page's source (one fetcher per page of
// cfg.Pages) and what a command covers of them: one page, or the chat's
// pages merged (MergePages) with each part kept for the replies that show
// the pages one after the other.
type Set struct {
	offer   pages.Offer
	by      map[string]*Source
	uptimes map[string]*Uptimes
}

// Get reads the covered pages, concurrently (a slow page never holds the
// others longer than its own timeout). A page that cannot be read is left
// out and named in Missing; ErrNoPage when none can be.
func (ps *Set) Get(ctx context.Context, cover []string, n Need) (View, error) {
	return ps.read(cover, func(src *Source) (View, error) { return src.get(ctx, n) })
}

// Stored is the newest page the bot has without fetching, over the
// covered pages: the poll workflow's snapshot or the last live fetch,
// whatever their age (Stale when older than the source's maxAge). For
// what only names components.
func (ps *Set) Stored(ctx context.Context, cover []string, n Need) (View, bool) {
	pv, err := ps.read(cover, func(src *Source) (View, error) {
		v, ok := src.stored(ctx, n)
		if !ok {
			return v, ErrNoPage
		}
		return v, nil
	})
	return pv, err == nil
}

func (ps *Set) read(cover []string, one func(*Source) (View, error)) (View, error) {
	views := make([]View, len(cover))
	errs := make([]error, len(cover))
	var wg sync.WaitGroup
	for i, name := range cover {
		src := ps.by[name]
		if src == nil {
			errs[i] = ErrNoPage
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i], errs[i] = one(src)
		}()
	}
	wg.Wait()
	var out View
	for i, name := range cover {
		if errs[i] != nil {
			out.Missing = append(out.Missing, name)
			continue
		}
		v := views[i]
		out.Parts = append(out.Parts, Part{Name: name, EventPage: ps.offer.EventPage(name), Page: v.Page})
		out.Stale = out.Stale || v.Stale
		if out.FetchedAt.IsZero() || v.FetchedAt.Before(out.FetchedAt) {
			out.FetchedAt = v.FetchedAt
		}
	}
	switch {
	case len(out.Parts) == 0:
		return View{}, ErrNoPage
	case len(out.Parts) == 1 && out.Parts[0].EventPage == "":
		out.Page = out.Parts[0].Page // the legacy page alone: as it always was
	default:
		out.Page = Merge(out.Parts)
	}
	return out, nil
}
