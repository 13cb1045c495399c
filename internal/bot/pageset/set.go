package pageset

import (
	"context"
	"log/slog"
	"time"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

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
