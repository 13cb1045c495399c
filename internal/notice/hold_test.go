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
		// New York springs forward on 8 March 2026 (02:00 EST -> 03:00 EDT):
		// an end at 02:30 never shows on the clock, so the window ends when
		// the clock passes it, at 03:00 EDT, 10 minutes after 01:50 EST.
		{Quiet{Start: "22:00", End: "02:30", Zone: "America/New_York", Hold: true}, time.Date(2026, 3, 8, 6, 50, 0, 0, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)},
		{Quiet{Start: "22:00", End: "02:00", Zone: "America/New_York", Hold: true}, time.Date(2026, 3, 8, 6, 59, 0, 0, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)},
		// It falls back on 1 November 2026 (02:00 EDT -> 01:00 EST): held at
		// 01:10 EST, the second time the clock reads 01:10, the window ends
		// at 01:30 EST, 20 minutes later.
		{Quiet{Start: "22:00", End: "01:30", Zone: "America/New_York", Hold: true}, time.Date(2026, 11, 1, 6, 10, 0, 0, time.UTC), time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC)},
		// ... and held at 01:10 EDT, the first time, at 01:30 EDT.
		{Quiet{Start: "22:00", End: "01:30", Zone: "America/New_York", Hold: true}, time.Date(2026, 11, 1, 5, 10, 0, 0, time.UTC), time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)},
		// A window ending at 07:00 on either night is 07:00 of that morning.
		{Quiet{Start: "22:00", End: "07:00", Zone: "America/New_York", Hold: true}, time.Date(2026, 3, 8, 6, 50, 0, 0, time.UTC), time.Date(2026, 3, 8, 11, 0, 0, 0, time.UTC)},
		{Quiet{Start: "22:00", End: "07:00", Zone: "America/New_York", Hold: true}, time.Date(2026, 11, 1, 6, 10, 0, 0, time.UTC), time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
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

// Whatever the window, zone and moment: the end comes after now, within a
// day and an hour, on a minute the window does not cover, and the window
// covers every minute before it (no notice is held past its morning).
func FuzzQuietEndAfter(f *testing.F) {
	f.Add(int64(1772952600), 22*60, 2*60+30, "America/New_York")
	f.Add(int64(1793513400), 22*60, 90, "America/New_York")
	f.Add(int64(1774740600), 23*60, 7*60, "Europe/Berlin")
	f.Add(int64(1774740600), 60, 30, "Australia/Lord_Howe")
	f.Fuzz(func(t *testing.T, unix int64, start, end int, zone string) {
		if start < 0 || end < 0 || start >= 24*60 || end >= 24*60 || unix < 0 || unix > 1<<34 {
			return
		}
		q := Quiet{Start: clockText(start), End: clockText(end), Zone: zone, Hold: true}
		now := time.Unix(unix, 0).UTC()
		at := q.EndAfter(now)
		if !q.Covers(now) {
			if !at.IsZero() {
				t.Fatalf("%+v at %v: covers nothing but ends %v", q, now, at)
			}
			return
		}
		if !at.After(now) || at.Sub(now) > 25*time.Hour || q.Covers(at) {
			t.Fatalf("%+v at %v: end %v", q, now, at)
		}
		if before := at.Add(-time.Minute); before.After(now) && !q.Covers(before) {
			t.Fatalf("%+v at %v: end %v, but the window had already ended at %v", q, now, at, before)
		}
	})
}

func clockText(m int) string {
	return time.Date(2000, 1, 1, m/60, m%60, 0, 0, time.UTC).Format("15:04")
}
