package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A fate's reason code and told steps (for /why in the chat's language)
// are kept beside its English; a record without them (written before
// them) reads as it was, for /why to quote its English.
func TestFateKeepsItsReasonAndToldSteps(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	told := &store.FateSteps{Count: 7, Steps: []store.FateStep{{Status: "identified", At: at.Add(-time.Minute)}}, More: true}
	require.NoError(t, st.RecordFates(ctx, []store.Fate{
		{Sub: "9", Event: "incident:a:u1", Outcome: store.FateFailed, Why: "gave up after 3 bursts: 502",
			Reason: &store.Reason{Code: "burstsSpent", N: 3, Args: map[string]string{"Detail": "502"}}, At: at},
		{Sub: "9", Event: "incident:b:u2", Outcome: store.FateSent, As: store.AsMessage, Together: "7 later updates (…)", Later: told, At: at.Add(-time.Second)},
		{Sub: "9", Event: "incident:c:u1", Outcome: store.FateWaiting, Why: "behind an earlier update of the same story", At: at.Add(-2 * time.Second)},
	}))
	fs, err := st.LastFates(ctx, "9", 10)
	require.NoError(t, err)
	require.Len(t, fs, 3)
	require.Equal(t, &store.Reason{Code: "burstsSpent", N: 3, Args: map[string]string{"Detail": "502"}}, fs[0].Reason)
	require.Equal(t, "gave up after 3 bursts: 502", fs[0].Why)
	require.Nil(t, fs[0].Earlier)
	require.Equal(t, "7 later updates (…)", fs[1].Together)
	require.Equal(t, 7, fs[1].Later.Count)
	require.True(t, fs[1].Later.More)
	require.Equal(t, "identified", fs[1].Later.Steps[0].Status)
	require.True(t, at.Add(-time.Minute).Equal(fs[1].Later.Steps[0].At))
	require.Nil(t, fs[2].Reason, "no code: /why quotes the English")
	require.Equal(t, "behind an earlier update of the same story", fs[2].Why)
}
