package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func TestUpdateOffset(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	id, ok, err := st.LastUpdateID(ctx)
	if err != nil || ok || id != 0 {
		t.Fatalf("fresh database: got %d, %v, %v; want 0, false, nil", id, ok, err)
	}
	now := time.Now()
	for _, want := range []int64{100, 101, 250} {
		if err := st.SaveLastUpdateID(ctx, want, now); err != nil {
			t.Fatal(err)
		}
		got, ok, err := st.LastUpdateID(ctx)
		if err != nil || !ok || got != want {
			t.Fatalf("after saving %d: got %d, %v, %v", want, got, ok, err)
		}
	}
	// A restart of Telegram's numbering must be recordable.
	if err := st.SaveLastUpdateID(ctx, 7, now); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := st.LastUpdateID(ctx); got != 7 {
		t.Fatalf("got %d, want 7", got)
	}
}

// The store calls the command bot relies on, end to end on FerretDB.
func TestBotSubscriptionCalls(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	created, err := st.Subscribe(ctx, -100, 7, now)
	if err != nil || !created {
		t.Fatalf("subscribe topic: %v %v", created, err)
	}
	if created, _ := st.Subscribe(ctx, -100, 7, now); created {
		t.Fatal("second subscribe must keep the existing subscription")
	}
	if _, err := st.Subscribe(ctx, -100, 0, now); err != nil {
		t.Fatal(err)
	}
	key := store.SubscriberKey(-100, 7)
	if err := st.SetKinds(ctx, key, []event.Kind{event.KindIncident}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetComponents(ctx, key, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	sub, err := st.Subscription(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sub.Kinds, []event.Kind{event.KindIncident}) || !slices.Equal(sub.Components, []string{"a", "b"}) || sub.ThreadID != 7 {
		t.Fatalf("subscription = %+v", sub)
	}
	if err := st.SetKinds(ctx, "999", event.DefaultKinds); !errors.Is(err, store.ErrNotSubscribed) {
		t.Fatalf("SetKinds on a missing subscription: %v", err)
	}

	if err := st.MigrateChat(ctx, -100, -1000100); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Subscription(ctx, key); !errors.Is(err, store.ErrNotSubscribed) {
		t.Fatalf("old key after migration: %v", err)
	}
	moved, err := st.Subscription(ctx, store.SubscriberKey(-1000100, 7))
	if err != nil || !slices.Equal(moved.Components, []string{"a", "b"}) {
		t.Fatalf("migrated topic: %+v %v", moved, err)
	}
	n, err := st.UnsubscribeChat(ctx, -1000100)
	if err != nil || n != 2 {
		t.Fatalf("unsubscribe chat: %d %v", n, err)
	}
	if err := st.Unsubscribe(ctx, store.SubscriberKey(-1000100, 0)); !errors.Is(err, store.ErrNotSubscribed) {
		t.Fatalf("unsubscribe twice: %v", err)
	}
}

// /uptime reads its 30-day window and each component's status when the
// window opened, not the whole retained history.
func TestUptimeHistoryIsBounded(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	day := 24 * time.Hour
	evs := []event.Event{
		{Key: "a1", Kind: event.KindComponent, ComponentID: "api", NewStatus: "partial_outage", StatusSince: now.Add(-80 * day)},
		{Key: "a2", Kind: event.KindComponent, ComponentID: "api", NewStatus: "major_outage", StatusSince: now.Add(-40 * day)},
		{Key: "a3", Kind: event.KindComponent, ComponentID: "api", NewStatus: "operational", StatusSince: now.Add(-2 * time.Hour)},
		{Key: "s1", Kind: event.KindComponent, ComponentID: "sora", NewStatus: "degraded_performance", StatusSince: now.Add(-60 * day)},
		{Key: "s2", Kind: event.KindComponent, ComponentID: "sora", NewStatus: "operational", StatusSince: now.Add(-50 * day)},
		{Key: "x1", Kind: event.KindComponent, ComponentID: "other", NewStatus: "major_outage", StatusSince: now.Add(-45 * day)},
	}
	if err := st.CommitEvents(ctx, evs, nil, now); err != nil {
		t.Fatal(err)
	}
	h, err := st.UptimeHistory(ctx, now.Add(-30*day), []string{"api", "sora", "none"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range h {
		got = append(got, e.ComponentID+":"+e.Status)
	}
	want := []string{"sora:operational", "api:major_outage", "api:operational"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("history = %v, want %v", got, want)
	}
}

func TestComponentHistoryForUptime(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	evs := []event.Event{
		{Key: "c1", Kind: event.KindComponent, ComponentID: "api", NewStatus: "major_outage", StatusSince: now.Add(-40 * 24 * time.Hour)},
		{Key: "c2", Kind: event.KindComponent, ComponentID: "api", NewStatus: "operational", StatusSince: now.Add(-2 * time.Hour)},
	}
	if err := st.CommitEvents(ctx, evs, nil, now); err != nil {
		t.Fatal(err)
	}
	h, err := st.ComponentHistory(ctx, now.Add(-store.HistoryRetention))
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Status != "major_outage" || h[1].Status != "operational" || !h[1].At.Equal(evs[1].StatusSince) {
		t.Fatalf("history = %+v", h)
	}
}

// Filter changes are single updates that add or remove one component,
// reporting why nothing changed. (Concurrency itself is not exercised
// here: FerretDB, unlike MongoDB, does not apply concurrent updates of one
// document atomically.)
func TestComponentFilterChanges(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	if _, err := st.Subscribe(ctx, 77, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := st.AddComponent(ctx, "77", fmt.Sprintf("c%02d", i), 50); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.RemoveComponent(ctx, "77", "c02")
	if err != nil || strings.Join(got, " ") != "c00 c01 c03" {
		t.Fatalf("remove: %v, filter %v", err, got)
	}
	got, err = st.AddComponent(ctx, "77", "c01", 50)
	if !errors.Is(err, store.ErrInFilter) || len(got) != 3 {
		t.Fatalf("add again: %v, filter %v", err, got)
	}
	if _, err := st.RemoveComponent(ctx, "77", "c02"); !errors.Is(err, store.ErrNotInFilter) {
		t.Fatalf("remove twice: %v", err)
	}
	for i := range 50 {
		if _, err := st.AddComponent(ctx, "77", fmt.Sprintf("d%02d", i), 50); err != nil && !errors.Is(err, store.ErrFilterFull) {
			t.Fatal(err)
		}
	}
	if got, err := st.AddComponent(ctx, "77", "e", 50); !errors.Is(err, store.ErrFilterFull) || len(got) != 50 {
		t.Fatalf("full filter: %v, %d components", err, len(got))
	}
	for _, f := range []func() error{
		func() error { _, err := st.AddComponent(ctx, "nobody", "x", 50); return err },
		func() error { _, err := st.RemoveComponent(ctx, "nobody", "x"); return err },
	} {
		if err := f(); !errors.Is(err, store.ErrNotSubscribed) {
			t.Fatalf("not subscribed: %v", err)
		}
	}
}
