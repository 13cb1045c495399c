package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// A poll whose summary failed saves its incidents and maintenances and
// keeps the earlier summary's part, dated when that part was read.
func TestWithStaleParts(t *testing.T) {
	earlier := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	now := earlier.Add(5 * time.Minute)
	comps := []statuspage.Component{{ID: "api", Name: "API", Status: "operational"}}
	maint := []statuspage.Incident{{ID: "m1", Name: "Upgrade", Status: "scheduled"}}
	full := func(provider string) *Snapshot {
		return &Snapshot{FetchedAt: earlier, Page: statuspage.Page{Provider: provider, Name: "OpenAI", URL: "https://status.openai.com",
			Indicator: "none", Description: "All Systems Operational", Components: comps, ComponentsComplete: true}}
	}
	summaryFailed := func(provider string) *statuspage.Page {
		return &statuspage.Page{Provider: provider, URL: "https://base", ComponentsErr: "HTTP 500", Incidents: maint}
	}
	for _, tc := range []struct {
		name string
		prev *Snapshot
		page *statuspage.Page
		want Snapshot
	}{
		{"every part read: the page as it is", full("statuspage"),
			&statuspage.Page{Provider: "statuspage", Name: "New", Components: comps, Incidents: maint},
			Snapshot{FetchedAt: now, Page: statuspage.Page{Provider: "statuspage", Name: "New", Components: comps, Incidents: maint}}},
		{"summary failed: its part kept, incidents taken", full("statuspage"), summaryFailed("statuspage"),
			Snapshot{FetchedAt: earlier, Stale: []string{PartComponents}, Page: statuspage.Page{Provider: "statuspage", Name: "OpenAI",
				URL: "https://status.openai.com", Indicator: "none", Description: "All Systems Operational", Components: comps,
				ComponentsComplete: true, Incidents: maint}}},
		{"summary failed, no snapshot yet: incidents only", nil, summaryFailed("statuspage"),
			Snapshot{FetchedAt: now, Page: *summaryFailed("statuspage")}},
		{"summary failed again: the components stay dated when read", &Snapshot{FetchedAt: earlier, Stale: []string{PartComponents},
			Page: full("statuspage").Page}, summaryFailed("statuspage"),
			Snapshot{FetchedAt: earlier, Stale: []string{PartComponents}, Page: statuspage.Page{Provider: "statuspage", Name: "OpenAI",
				URL: "https://status.openai.com", Indicator: "none", Description: "All Systems Operational", Components: comps,
				ComponentsComplete: true, Incidents: maint}}},
		{"another provider's components are not kept", full("incidentio"), summaryFailed("statuspage"),
			Snapshot{FetchedAt: now, Page: *summaryFailed("statuspage")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, withStaleParts(tc.prev, tc.page, now))
		})
	}
}
