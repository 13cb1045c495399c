package commands

import (
	"context"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A command that changes nothing reads the subscription once: /status X
// and /history read it for their pages (cover), their zone (zone) and a
// stale note's zone (withStale), 2-3 reads on the old code. Here the
// subscription is stopped after the first read: the later ones still see
// what the first read, so none went to the store again.
func TestReadOnlyCommandReadsTheSubscriptionOnce(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	if _, _, err := st.Restart(ctx, 901, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	h := &handler{st: st}
	r := &request{chatID: 901}
	first, err := h.readOnce(ctx, r)
	if err != nil || first == nil {
		t.Fatalf("first read: %v %v", first, err)
	}
	if err := st.StopSubscription(ctx, store.SubscriberKey(901, 0), time.Now()); err != nil {
		t.Fatal(err)
	}
	if zone := h.zone(ctx, r); zone == nil {
		t.Fatal("no zone")
	}
	again, err := h.readOnce(ctx, r)
	if err != nil || again != first {
		t.Fatalf("a later read went to the store: %v %v", again, err)
	}
	// Another command reads afresh.
	if sub, err := h.readOnce(ctx, &request{chatID: 901}); err != nil || sub != nil {
		t.Fatalf("a new command: %v %v", sub, err)
	}
}
