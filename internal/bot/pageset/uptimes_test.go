package pageset

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func TestPageUptimesHonourTheCallersDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var calls atomic.Int32
	pu := &Uptimes{cacheFor: time.Minute, failFor: time.Minute,
		fetch: func(ctx context.Context, _, _ time.Time) ([]statuspage.ComponentUptime, error) {
			calls.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, errors.New("gave up")
		}}
	page := &statuspage.Page{Provider: statuspage.ProviderIncidentIO}
	now := time.Now()
	first := make(chan struct{})
	go func() {
		defer close(first)
		pu.Get(context.Background(), page, now) // waits for the hanging fetch
	}()
	bottest.WaitFor(t, "the first fetch", func() bool { return calls.Load() == 1 })
	returned := make(chan bool, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, ok := pu.Get(ctx, page, now)
		returned <- ok
	}()
	select {
	case ok := <-returned:
		if ok {
			t.Fatal("figures from a fetch that never ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second /uptime with a 200 ms deadline was still blocked after 5 s")
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d fetches running, want the one shared", n)
	}
}

func TestPageUptimesCacheFailures(t *testing.T) {
	var calls atomic.Int32
	pu := &Uptimes{cacheFor: time.Minute, failFor: time.Minute,
		fetch: func(context.Context, time.Time, time.Time) ([]statuspage.ComponentUptime, error) {
			calls.Add(1)
			return nil, errors.New("502")
		}}
	page := &statuspage.Page{Provider: statuspage.ProviderIncidentIO}
	now := time.Now()
	for i := range 5 {
		if _, ok := pu.Get(context.Background(), page, now.Add(time.Duration(i)*time.Second)); ok {
			t.Fatal("figures from a failed fetch")
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d fetches for 5 /uptime within a minute of a failure, want 1", n)
	}
	pu.Get(context.Background(), page, now.Add(2*time.Minute))
	if n := calls.Load(); n != 2 {
		t.Fatalf("not asked again after failFor: %d fetches", n)
	}
}
