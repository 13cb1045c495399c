package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The newest version of each notice counts, but a withheld one only where
// nothing else is known of the notice; n notices, newest first.
func TestNewestFates(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	rows := []Fate{ // newest first, as read
		{Event: "e3", Outcome: FateWithheld, At: at(9)}, // a page read again after the send
		{Event: "e2", Outcome: FateSent, As: AsCard, At: at(8)},
		{Event: "e3", Outcome: FateSent, As: AsMessage, At: at(7)},
		{Event: "e2", Outcome: FateWaiting, At: at(6)},
		{Event: "e1", Outcome: FateWithheld, At: at(5)},
		{Event: "e0", Outcome: FateFailed, At: at(4)},
	}
	got := newestFates(rows, 3)
	require.Len(t, got, 3)
	require.Equal(t, "e2", got[0].Event)
	require.Equal(t, FateSent, got[0].Outcome, "the newest version")
	require.Equal(t, "e3", got[1].Event)
	require.Equal(t, FateSent, got[1].Outcome, "a withheld one never hides a send")
	require.Equal(t, "e1", got[2].Event)
	require.Equal(t, FateWithheld, got[2].Outcome, "nothing else known of it")
	require.Empty(t, newestFates(nil, 3))
}
