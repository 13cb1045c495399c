package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A notice held as its window's summary goes is told once: a hold that
// meets the closed window takes its notice back unless the summary has
// claimed it, and a summary claims only what is still held; a retried hold
// leaves a claimed notice claimed.
func TestHeldWindowMeetsItsSummary(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	window := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	held := func(event string) store.Held {
		return store.Held{Sub: "7", Window: window, Event: event, Story: "component:api", Title: "API", Summary: event,
			EventAt: window.Add(-time.Minute), At: window.Add(-time.Minute)}
	}
	a, b, c := held("a"), held("b"), held("c")
	for _, h := range []store.Held{a, b} {
		require.NoError(t, st.HoldNotice(ctx, h))
	}
	closed, err := st.WindowClosed(ctx, "7", window)
	require.NoError(t, err)
	require.False(t, closed)

	require.NoError(t, st.CloseWindow(ctx, "7", window, window))
	closed, err = st.WindowClosed(ctx, "7", window)
	require.NoError(t, err)
	require.True(t, closed)
	got, err := st.HeldNotices(ctx, "7", window)
	require.NoError(t, err)
	require.Len(t, got, 2, "the window's mark is no notice")

	// The summary claims a; b's send takes b back first; c comes late.
	back, err := st.Unhold(ctx, b, window)
	require.NoError(t, err)
	require.True(t, back)
	claimed, err := st.ClaimHeld(ctx, []store.Held{a, b}, window)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.Equal(t, "a", claimed[0].Event)
	back, err = st.Unhold(ctx, a, window)
	require.NoError(t, err)
	require.False(t, back, "claimed: told by the summary")
	require.NoError(t, st.HoldNotice(ctx, a)) // a retry of a's hold
	back, err = st.Unhold(ctx, a, window)
	require.NoError(t, err)
	require.False(t, back, "a retried hold leaves it claimed")
	require.NoError(t, st.HoldNotice(ctx, c))
	back, err = st.Unhold(ctx, c, window)
	require.NoError(t, err)
	require.True(t, back)
	back, err = st.Unhold(ctx, c, window) // a retry of c's send
	require.NoError(t, err)
	require.True(t, back, "taken back by its own send's earlier attempt")
	claimed2, err := st.ClaimHeld(ctx, []store.Held{a, c}, window) // the summary's retry
	require.NoError(t, err)
	require.Equal(t, []store.Held{a}, claimed2, "its own claim stays its own; a taken-back notice is not told")

	require.NoError(t, st.ForgetTold(ctx, claimed))
	got, err = st.HeldNotices(ctx, "7", window)
	require.NoError(t, err)
	require.Empty(t, got)
}
