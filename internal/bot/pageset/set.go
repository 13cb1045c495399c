package pageset

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

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

// New builds a source per offered page: one client each for live
// fetches (its connections and conditional-request cache are reused), the
// poll's snapshot of the page (snapshotsOf), and incident.io's own uptime
// figures where the page serves them.
func New(st *store.Store, offer pages.Offer, cfg *config.Config, now func() time.Time, log *slog.Logger) (*Set, error) {
	set := &Set{offer: offer, by: map[string]*Source{}, uptimes: map[string]*Uptimes{}}
	for _, p := range offer.List {
		client, err := statuspage.New(p.Provider, p.URL, cfg.HTTPTimeout)
		if err != nil {
			return nil, err
		}
		set.by[p.Name] = &Source{
			snapshots: snapshotsOf(st, offer.EventPage(p.Name)),
			fetch: func(ctx context.Context) (*statuspage.Page, error) {
				pg, _, err := client.Fetch(ctx)
				return pg, err
			},
			maxAge:   2 * cfg.PollInterval,
			cacheFor: cfg.PollInterval,
			failFor:  cfg.PollInterval,
			wait:     cfg.HTTPTimeout,
			timeout:  2*cfg.HTTPTimeout + 5*time.Second,
			now:      now,
			log:      log.With("page", p.Name),
		}
		set.uptimes[p.Name] = &Uptimes{fetch: statuspage.NewIncidentIO(p.URL, cfg.HTTPTimeout).Uptimes, cacheFor: 5 * time.Minute,
			failFor: time.Minute, wait: 3 * time.Second, timeout: 2*cfg.HTTPTimeout + 5*time.Second}
	}
	return set, nil
}

// snapshotsOf reads the poll's snapshot of a page (store.PageDocs: the
// legacy page's is the one snapshot of before pages).
func snapshotsOf(st *store.Store, eventPage string) func(context.Context) (*store.Snapshot, error) {
	return st.PageDocs(eventPage).LatestSnapshot
}
