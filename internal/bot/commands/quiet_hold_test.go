package commands

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// "/settings quiet 22:00-07:00 hold" sets the window and the hold mode in
// one write; "quiet-mode" switches the mode alone; bad input says how.
func TestSettingsQuietHold(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	_, err := st.Subscribe(ctx, 77, 0, time.Now())
	require.NoError(t, err)
	key := store.SubscriberKey(77, 0)
	apply := func(args string) store.Settings {
		r := ParseSettings(args)
		require.Empty(t, r.Err, args)
		sub, err := st.ChangeSettings(ctx, key, r.Change)
		require.NoError(t, err, args)
		return sub.Settings
	}
	s := apply("quiet 22:00-07:00 hold")
	require.Equal(t, [3]any{"22:00", "07:00", true}, [3]any{s.QuietStart, s.QuietEnd, s.QuietHold})
	require.Equal(t, "quiet hours 22:00–07:00: notices held, one morning summary at 07:00", ParseSettings("quiet 22:00-07:00 hold").Done)
	s = apply("quiet-mode silent")
	require.Equal(t, [3]any{"22:00", "07:00", false}, [3]any{s.QuietStart, s.QuietEnd, s.QuietHold})
	s = apply("quiet 23:00 - 06:00 HOLD")
	require.Equal(t, [3]any{"23:00", "06:00", true}, [3]any{s.QuietStart, s.QuietEnd, s.QuietHold})
	s = apply("quiet 21:00-06:00") // the mode stays as chosen
	require.True(t, s.QuietHold)
	require.Equal(t, "quiet-mode", ParseSettings("quiet-mode hold").Name)
	require.Equal(t, "quiet", ParseSettings("quiet 22:00-07:00 hold").Name)
	for _, bad := range []string{"quiet-mode loud", "quiet 22:00 hold", "quiet 22:00-22:00 hold"} {
		require.NotEmpty(t, ParseSettings(bad).Err, bad)
	}
}
