package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// The snapshot of a poll whose summary failed holds that poll's incidents
// and maintenances, and the components of the last poll that read them.
func TestSnapshotKeepsTheComponentsOfAFailedSummary(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	first := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	comps := []statuspage.Component{{ID: "api", Name: "API", Status: "degraded_performance"}}
	require.NoError(t, st.SaveSnapshot(ctx, &statuspage.Page{Provider: "statuspage", Name: "OpenAI", Components: comps}, first))
	maint := []statuspage.Incident{{ID: "m1", Name: "Upgrade", Status: "scheduled"}}
	require.NoError(t, st.SaveSnapshot(ctx, &statuspage.Page{Provider: "statuspage", ComponentsErr: "HTTP 500", Incidents: maint}, first.Add(time.Minute)))

	snap, err := st.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{store.PartComponents}, snap.Stale)
	require.True(t, snap.FetchedAt.Equal(first), "dated when its oldest part was read: %s", snap.FetchedAt)
	require.Empty(t, snap.Page.ComponentsErr)
	require.Equal(t, "OpenAI", snap.Page.Name)
	require.Len(t, snap.Page.Components, 1)
	require.Equal(t, "degraded_performance", snap.Page.Components[0].Status)
	require.Len(t, snap.Page.Incidents, 1)
	require.Equal(t, "m1", snap.Page.Incidents[0].ID)

	// The summary answers again: nothing stale any more.
	require.NoError(t, st.SaveSnapshot(ctx, &statuspage.Page{Provider: "statuspage", Name: "OpenAI", Components: comps}, first.Add(2*time.Minute)))
	snap, err = st.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Empty(t, snap.Stale)
	require.True(t, snap.FetchedAt.Equal(first.Add(2*time.Minute)))
}
