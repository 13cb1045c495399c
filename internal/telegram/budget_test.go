package telegram

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBudgetSlot(t *testing.T) {
	now := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	minute := func(last time.Time, n int) []time.Time { // n calls a second apart, ending at last
		var out []time.Time
		for i := n - 1; i >= 0; i-- {
			out = append(out, last.Add(-time.Duration(i)*time.Second))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		chat   int64
		calls  []time.Time
		ahead  int
		expect time.Time
	}{
		{"nothing sent: now", 1, nil, 0, now},
		{"private, last long ago", 1, []time.Time{ago(time.Hour)}, 0, now},
		{"private, last just now: the interval", 1, []time.Time{ago(50 * time.Millisecond)}, 0, now.Add(time.Second)},
		{"private, two ahead", 1, nil, 2, now.Add(2100 * time.Millisecond)},
		{"private, 30 in the minute: no minute limit", 1, minute(ago(2*time.Second), 30), 0, now},
		{"group, 18 in the minute: one more now", -1, minute(ago(2*time.Second), 18), 0, now},
		{"group, 19 in the minute: after the oldest's minute", -1, minute(ago(2*time.Second), 19), 0, ago(2 * time.Second).Add(-18 * time.Second).Add(time.Minute)},
		{"group, ahead spill into the next minute", -1, nil, 19, now.Add(time.Minute)},
		{"channel like a group", -1001, minute(ago(time.Second), 19), 0, ago(time.Second).Add(-18 * time.Second).Add(time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.expect, BudgetOf(tc.chat).Slot(tc.calls, tc.ahead, now))
		})
	}
}

func FuzzBudgetSlotKeepsTheLimits(f *testing.F) {
	f.Add(int64(-1), uint8(25), uint16(300))
	f.Add(int64(1), uint8(5), uint16(10))
	f.Fuzz(func(t *testing.T, chat int64, n uint8, gapMs uint16) {
		b := BudgetOf(chat)
		now := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
		var calls []time.Time
		for range n { // each claims its slot as it comes, gapMs apart
			at := b.Slot(calls, 0, now)
			calls = append(calls, at)
			now = now.Add(time.Duration(gapMs) * time.Millisecond)
		}
		for i := 1; i < len(calls); i++ {
			if calls[i].Sub(calls[i-1]) < b.Interval {
				t.Fatalf("calls %d and %d %v apart", i-1, i, calls[i].Sub(calls[i-1]))
			}
			if b.PerMinute > 0 && i >= b.PerMinute && calls[i].Sub(calls[i-b.PerMinute]) < time.Minute {
				t.Fatalf("%d calls within a minute", b.PerMinute+1)
			}
		}
	})
}
