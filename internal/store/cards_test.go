package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Cards are read for a page in one go, replaced when posted afresh, and
// pruned a ledger retention after their last update.
func TestCardsReadReplaceAndPrune(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	old := now.Add(-store.LedgerRetention - time.Hour)
	require.NoError(t, st.SaveCard(ctx, store.IncidentCard{Incident: "inc", Sub: "1", MessageID: 10, Updates: []string{"u1"}, At: now}))
	require.NoError(t, st.SaveCard(ctx, store.IncidentCard{Incident: "inc", Sub: "2", MessageID: 11, At: now}))
	require.NoError(t, st.SaveCard(ctx, store.IncidentCard{Incident: "inc", Sub: "2", MessageID: 12, Pinned: true, At: now}))
	require.NoError(t, st.SaveCard(ctx, store.IncidentCard{Incident: "gone", Sub: "1", MessageID: 5, At: old}))

	got, err := st.Cards(ctx, "inc", []string{"1", "2", "3"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.True(t, got["1"].Shows("u1"))
	require.Equal(t, 12, got["2"].MessageID, "a fresh card replaces the old record")
	require.True(t, got["2"].Pinned)

	_, _, err = st.PruneBatch(ctx, now, 100)
	require.NoError(t, err)
	got, err = st.Cards(ctx, "gone", []string{"1"})
	require.NoError(t, err)
	require.Empty(t, got, "pruned")
	got, err = st.Cards(ctx, "inc", []string{"1", "2"})
	require.NoError(t, err)
	require.Len(t, got, 2, "recent cards stay")
}
