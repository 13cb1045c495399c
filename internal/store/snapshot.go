package store

import (
	"context"
	"time"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// PartComponents is the part of the page the summary carries: its name,
// overall status and components. It is the only part a snapshot keeps
// from an earlier poll: incidents and maintenances come from their own
// endpoints, and a page whose incident list failed says so itself
// (IncidentsErr, MaintenancesErr).
const PartComponents = "components"

// snapshotOf is the snapshot a poll that read p at `at` leaves; it reads
// the previous snapshot only when the summary failed.
func (d PageDocs) snapshotOf(ctx context.Context, p *statuspage.Page, at time.Time) (Snapshot, error) {
	if p.ComponentsErr == "" {
		return Snapshot{Page: *p, FetchedAt: at}, nil
	}
	prev, err := d.LatestSnapshot(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	return withStaleParts(prev, p, at), nil
}

// withStaleParts saves a page whose summary failed part by part: its
// incidents and maintenances as read now (the reminders of a maintenance
// first seen meanwhile read them), the summary's part as the previous
// snapshot had it, named in Stale. FetchedAt stays when that part was
// read, so whoever judges freshness by it (the bot's commands, the
// readiness check) never takes old components for new. Another
// provider's components name other IDs: they are not kept, and the page
// says its components failed.
func withStaleParts(prev *Snapshot, p *statuspage.Page, at time.Time) Snapshot {
	snap := Snapshot{Page: *p, FetchedAt: at}
	if p.ComponentsErr == "" {
		return snap
	}
	if prev == nil || prev.Page.ComponentsErr != "" || prev.Page.Provider != p.Provider {
		return snap
	}
	old := prev.Page
	snap.Page.Name, snap.Page.URL = old.Name, old.URL
	snap.Page.Indicator, snap.Page.Description = old.Indicator, old.Description
	snap.Page.Components, snap.Page.ComponentsComplete = old.Components, old.ComponentsComplete
	snap.Page.ComponentsErr = ""
	snap.Stale = []string{PartComponents}
	snap.FetchedAt = prev.FetchedAt
	return snap
}
