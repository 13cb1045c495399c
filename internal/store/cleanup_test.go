package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Deletions come due in order, a postponed one counts its attempt and
// moves, a done one is gone; scheduling again moves the time.
func TestPendingDeletions(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, st.ScheduleDeletion(ctx, -1001, []int{5, 6}, now.Add(time.Minute)))
	require.NoError(t, st.ScheduleDeletion(ctx, -1002, []int{9}, now.Add(30*time.Second)))

	due, err := st.DueDeletions(ctx, now, 10)
	require.NoError(t, err)
	require.Empty(t, due, "nothing is due before its time")

	due, err = st.DueDeletions(ctx, now.Add(time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, due, 3)
	require.Equal(t, int64(-1002), due[0].ChatID, "oldest first")

	require.NoError(t, st.PostponeDeletion(ctx, due[0], now.Add(2*time.Minute)))
	require.NoError(t, st.DeletionDone(ctx, -1001, 5))
	due, err = st.DueDeletions(ctx, now.Add(time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, 6, due[0].MessageID)

	due, err = st.DueDeletions(ctx, now.Add(2*time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, due, 2)
	for _, d := range due {
		if d.ChatID == -1002 {
			require.Equal(t, 1, d.Attempts)
		}
	}
	require.NoError(t, st.ScheduleDeletion(ctx, -1001, []int{6}, now.Add(time.Hour)))
	due, err = st.DueDeletions(ctx, now.Add(2*time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, due, 1, "scheduling again moved the time")
}

func TestManagedChannels(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, st.RememberChannel(ctx, store.ManagedChannel{UserID: 5, ChatID: -1001, Typed: "@a", Title: "@a", At: t0}))
	require.NoError(t, st.RememberChannel(ctx, store.ManagedChannel{UserID: 5, ChatID: -1002, Typed: "-1002", Title: "B", At: t0.Add(time.Minute)}))
	require.NoError(t, st.RememberChannel(ctx, store.ManagedChannel{UserID: 6, ChatID: -1001, Typed: "@a", Title: "@a", At: t0}))
	require.NoError(t, st.RememberChannel(ctx, store.ManagedChannel{UserID: 5, ChatID: -1001, Typed: "@a", Title: "@a", At: t0.Add(2 * time.Minute)}))
	got, err := st.ManagedChannels(ctx, 5, 10)
	require.NoError(t, err)
	require.Len(t, got, 2, "one entry per channel")
	require.Equal(t, int64(-1001), got[0].ChatID, "the latest first")
}

// A deletion is never due before its time, though BSON keeps only
// milliseconds.
func TestScheduledDeletionIsNeverDueEarly(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	due := time.Date(2026, 12, 1, 15, 0, 0, 400_900_000, time.UTC) // 0.9 ms into a millisecond
	if err := st.ScheduleDeletion(ctx, -100, []int{7}, due); err != nil {
		t.Fatal(err)
	}
	if got, err := st.DueDeletions(ctx, due.Add(-100*time.Microsecond), 10); err != nil || len(got) != 0 {
		t.Fatalf("due 0.1 ms early: %v %v", got, err)
	}
	if got, err := st.DueDeletions(ctx, due.Add(time.Millisecond), 10); err != nil || len(got) != 1 {
		t.Fatalf("not due at its time: %v %v", got, err)
	}
}
