package notice

import (
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// A held window's end is the next time at its end clock, in its zone,
// across midnight and daylight saving; a time outside covers nothing.
func TestQuietEndAfter(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		q    Quiet
		now  time.Time
		want time.Time
	}{
		{Quiet{Start: "22:00", End: "07:00", Hold: true}, time.Date(2026, 3, 8, 23, 10, 0, 0, time.UTC), time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)},
		{Quiet{Start: "22:00", End: "07:00", Hold: true}, time.Date(2026, 3, 9, 6, 59, 59, 0, time.UTC), time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)},
		{Quiet{Start: "01:00", End: "05:00", Hold: true}, time.Date(2026, 3, 9, 1, 0, 0, 0, time.UTC), time.Date(2026, 3, 9, 5, 0, 0, 0, time.UTC)},
		// The night daylight saving starts in Berlin (29 March 2026): 07:00 CEST.
		{Quiet{Start: "22:00", End: "07:00", Zone: "Europe/Berlin", Hold: true}, time.Date(2026, 3, 28, 22, 30, 0, 0, berlin), time.Date(2026, 3, 29, 7, 0, 0, 0, berlin)},
		{Quiet{Start: "22:00", End: "07:00", Hold: true}, time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC), time.Time{}},
	} {
		if got := tc.q.EndAfter(tc.now); !got.Equal(tc.want) {
			t.Errorf("%+v at %v: end %v, want %v", tc.q, tc.now, got, tc.want)
		}
		if got := tc.q.Holds(tc.now); got != !tc.want.IsZero() {
			t.Errorf("%+v at %v: holds %v", tc.q, tc.now, got)
		}
	}
	silent := Quiet{Start: "22:00", End: "07:00"}
	if silent.Holds(time.Date(2026, 3, 8, 23, 0, 0, 0, time.UTC)) {
		t.Error("a silent window holds nothing")
	}
	var none *Quiet
	if none.Holds(time.Now()) || !none.EndAfter(time.Now()).IsZero() {
		t.Error("no window holds nothing")
	}
}

// A held window holds ends too (the summary tells them); a silent one
// lets them ring unless resolutions are silent too.
func TestQuietForHoldsResolutions(t *testing.T) {
	end := event.Event{Kind: event.KindComponent, OldStatus: "major_outage", NewStatus: "operational"}
	if QuietFor(store.Settings{QuietStart: "22:00", QuietEnd: "07:00"}, end) != nil {
		t.Error("a silent window lets a recovery ring")
	}
	q := QuietFor(store.Settings{QuietStart: "22:00", QuietEnd: "07:00", QuietHold: true}, end)
	if q == nil || !q.Hold {
		t.Errorf("a held window holds the recovery: %+v", q)
	}
}
