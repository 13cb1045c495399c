package bot

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTrackerWatermark(t *testing.T) {
	tr := newTracker(10)
	if tr.watermark() != 10 || tr.isNew(10) || !tr.isNew(11) {
		t.Fatal("initial state")
	}
	g := tr.start(11)
	tr.start(12)
	tr.start(13)
	tr.done(12, g)
	tr.done(13, g)
	if w := tr.watermark(); w != 10 {
		t.Fatalf("11 still in flight: watermark %d", w)
	}
	tr.done(11, g)
	if w := tr.watermark(); w != 13 {
		t.Fatalf("watermark %d, want 13", w)
	}
	tr.start(14)
	tr.abort(14, g)
	if w := tr.watermark(); w != 13 || !tr.isNew(14) {
		t.Fatalf("after abort: watermark %d", w)
	}
	// Telegram restarts its IDs: the new space starts below; an update
	// still in flight from the old one no longer holds the watermark.
	old := tr.start(14)
	tr.rebase(6)
	if w := tr.watermark(); w != 6 || !tr.isNew(7) {
		t.Fatalf("after rebase: watermark %d", w)
	}
	g = tr.start(7)
	tr.done(14, old)
	tr.abort(14, old)
	if w := tr.watermark(); w != 6 {
		t.Fatalf("old update finishing moved the watermark to %d", w)
	}
	tr.done(7, g)
	if w := tr.watermark(); w != 7 {
		t.Fatalf("watermark %d, want 7", w)
	}
}

func TestSafelyRecovers(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	safely(log, func(s string) string { return strings.ReplaceAll(s, "SECRET", "<redacted>") }, 7, func() {
		panic("boom with SECRET")
	})
	out := buf.String()
	if !strings.Contains(out, "panic while handling an update") || !strings.Contains(out, "update_id=7") || strings.Contains(out, "SECRET") {
		t.Fatalf("log: %s", out)
	}
}

// Replies are spaced 1/rate apart in the order asked, with no burst, so
// any second holds at most about rate of them.
func TestSendRateSpacesReplies(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newSendRate(4, func() time.Time { return now })
	var got []time.Duration
	for range 5 {
		got = append(got, r.reserve())
	}
	want := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	// After a quiet spell there is no saved-up burst.
	now = now.Add(10 * time.Second)
	if d1, d2 := r.reserve(), r.reserve(); d1 != 0 || d2 != 250*time.Millisecond {
		t.Fatalf("after a pause: %v then %v", d1, d2)
	}
	if newSendRate(0, time.Now).reserve() != 0 {
		t.Fatal("rate 0 must mean no limit")
	}
}
