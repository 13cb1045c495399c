package activities

import (
	"context"
	"slices"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// snapshotFor is the latest snapshot of the event's page (event.Event.Page),
// its identifiers scoped as the page's events name them (event.Event.Scoped),
// so that the event's incident and components are found in it by the
// event's IDs; nil when the page was never read.
func (a *Activities) snapshotFor(ctx context.Context, e event.Event) (*store.Snapshot, error) {
	snap, err := a.Store.PageDocs(e.Page).LatestSnapshot(ctx)
	if err != nil || snap == nil || e.Page == "" {
		return snap, err
	}
	snap.Page = ScopedPage(snap.Page, e.Page)
	return snap, nil
}

// ScopedPage is the page with its component and incident IDs scoped by
// eventPage (pages.Scope; "" leaves them unchanged).
func ScopedPage(p statuspage.Page, eventPage string) statuspage.Page {
	if eventPage == "" {
		return p
	}
	scope := func(id string) string {
		if id == "" {
			return ""
		}
		return pages.Scope(eventPage, id)
	}
	p.Components = slices.Clone(p.Components)
	for i := range p.Components {
		c := &p.Components[i]
		c.ID, c.GroupID = scope(c.ID), scope(c.GroupID)
		if c.Components != nil {
			ids := make([]string, len(c.Components))
			for j, id := range c.Components {
				ids[j] = scope(id)
			}
			c.Components = ids
		}
	}
	p.Incidents = slices.Clone(p.Incidents)
	for i := range p.Incidents {
		inc := &p.Incidents[i]
		inc.ID = scope(inc.ID)
		inc.Components = slices.Clone(inc.Components)
		for j := range inc.Components {
			inc.Components[j].ID = scope(inc.Components[j].ID)
		}
	}
	return p
}
