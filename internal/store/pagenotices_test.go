package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A page notice is recorded once whoever records it, and each chat is
// claimed by one worker at a time: told once. A claim released (nothing
// sent) is claimed again; one left sending by a worker that died is taken
// over once it is stale.
func TestPageNoticeClaimsTellEachChatOnce(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	id := store.PageNoticeID(store.PageRemoved, "github", "2")
	n := store.PageNotice{ID: id, Kind: store.PageRemoved, Page: "github", Name: "github", Host: "www.githubstatus.com", At: now}
	require.NoError(t, st.AddPageNotice(ctx, n))
	require.NoError(t, st.AddPageNotice(ctx, n), "a second worker's record is the same notice")
	pending, err := st.PendingPageNotices(ctx)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	require.Equal(t, id, pending[0].ID)

	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := st.ClaimPageNotice(ctx, id, "42", now)
			require.NoError(t, err)
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int32(1), wins.Load(), "one worker tells the chat")

	require.NoError(t, st.SettlePageNotice(ctx, id, "42", false))
	ok, err := st.ClaimPageNotice(ctx, id, "42", now)
	require.NoError(t, err)
	require.True(t, ok, "released: claimed again")
	ok, err = st.ClaimPageNotice(ctx, id, "42", now.Add(store.PageClaimStale/2))
	require.NoError(t, err)
	require.False(t, ok, "held by a live worker")
	ok, err = st.ClaimPageNotice(ctx, id, "42", now.Add(store.PageClaimStale+time.Second))
	require.NoError(t, err)
	require.True(t, ok, "left sending by a dead worker: taken over")
	require.NoError(t, st.SettlePageNotice(ctx, id, "42", true))
	ok, err = st.ClaimPageNotice(ctx, id, "42", now.Add(time.Hour))
	require.NoError(t, err)
	require.False(t, ok, "told: never again")
	told, err := st.PageNoticeTold(ctx, id, "42")
	require.NoError(t, err)
	require.True(t, told)

	require.NoError(t, st.AdvancePageNotice(ctx, id, "", true))
	pending, err = st.PendingPageNotices(ctx)
	require.NoError(t, err)
	require.Empty(t, pending)

	// The notice and its claims age out with the ledger.
	_, _, err = st.PruneBatch(ctx, now.Add(store.LedgerRetention+2*time.Hour), 1000)
	require.NoError(t, err)
	gone, err := st.PageNoticeByID(ctx, id)
	require.NoError(t, err)
	require.Nil(t, gone)
	told, err = st.PageNoticeTold(ctx, id, "42")
	require.NoError(t, err)
	require.False(t, told, "the claim aged out")
}

// A chat told, then moved to a supergroup, is not told again there.
func TestPageNoticeClaimMovesWithTheChat(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	_, err := st.Subscribe(ctx, -500, 0, now)
	require.NoError(t, err)
	id := store.PageNoticeID(store.PageRepointed, "github", "3")
	ok, err := st.ClaimPageNotice(ctx, id, "-500", now)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, st.SettlePageNotice(ctx, id, "-500", true))
	_, err = st.MigrateChatAt(ctx, -500, -100500, now)
	require.NoError(t, err)
	ok, err = st.ClaimPageNotice(ctx, id, "-100500", now)
	require.NoError(t, err)
	require.False(t, ok, "the supergroup was told as the group")
}
