package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Every process opens the store at start-up; the second must find the
// collections and indexes in place (FerretDB drops the connection when an
// existing index is created again).
func TestOpenIsIdempotent(t *testing.T) {
	uri, db := testenv.MongoURI(t), testenv.DatabaseName(t)
	for i := 0; i < 3; i++ {
		st, err := store.Open(context.Background(), uri, db)
		require.NoError(t, err, "open #%d", i+1)
		require.NoError(t, st.Close(time.Second))
	}
}

func TestCommitEventsAndPrune(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	require.NoError(t, st.SaveBaseline(ctx, &event.Checkpoint{Baseline: true,
		Components: map[string]event.ComponentMark{"api": {Status: "operational", UpdatedAt: now.Add(-time.Hour)}},
		Incidents:  map[string]event.IncidentMark{"old": {Updates: map[string]string{"u0": "v0"}}}}))

	evs := []event.Event{
		{Key: "component:api:major_outage:t1", Kind: event.KindComponent, ComponentID: "api", NewStatus: "major_outage", StatusSince: now, Notify: true},
		{Key: "component:api:operational:t2", Kind: event.KindComponent, ComponentID: "api", NewStatus: "operational", StatusSince: now.Add(time.Minute), Notify: true},
		{Key: "incident:inc:u1:v1", Kind: event.KindIncident, IncidentID: "inc", UpdateID: "u1", Version: "v1", Notify: true},
	}
	require.NoError(t, st.CommitEvents(ctx, evs, []string{"old"}, now))
	cp, err := st.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.True(t, cp.Baseline)
	require.Equal(t, "operational", cp.Components["api"].Status, "the latest of two changes in one poll wins")
	require.Equal(t, "component:api:operational:t2", cp.Components["api"].LastEvent)
	require.Equal(t, "v1", cp.Incidents["inc"].Updates["u1"])
	require.Equal(t, "incident:inc:u1:v1", cp.Incidents["inc"].LastEvent)
	require.NotContains(t, cp.Incidents, "old", "pruned")

	hist, err := st.ComponentHistory(ctx, now.Add(-2*time.Hour))
	require.NoError(t, err)
	var statuses []string
	for _, h := range hist {
		statuses = append(statuses, h.Status)
	}
	require.Equal(t, []string{"operational", "major_outage", "operational"}, statuses, "baseline, then each change")
}

func TestLedgerIsIdempotent(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	require.NoError(t, st.RecordDelivered(ctx, "e1", []string{"a", "b"}, time.Now()))
	require.NoError(t, st.RecordDelivered(ctx, "e1", []string{"b", "c"}, time.Now()), "a retried batch is fine")
	got, err := st.Delivered(ctx, "e1", []string{"a", "b", "c", "d"})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a": true, "b": true, "c": true}, got)
	got, err = st.Delivered(ctx, "e2", []string{"a"})
	require.NoError(t, err)
	require.Empty(t, got)
}

// Expired rows go in bounded batches, whatever their number; the rest stays.
func TestPruneInBoundedBatches(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	old := now.Add(-store.LedgerRetention - time.Hour)
	var keys []string
	for i := 0; i < 25; i++ {
		keys = append(keys, fmt.Sprint(i))
	}
	require.NoError(t, st.RecordDelivered(ctx, "old-event", keys, old))
	require.NoError(t, st.RecordDelivered(ctx, "new-event", keys[:3], now))
	batches := 0
	for {
		n, more, err := st.PruneBatch(ctx, now, 10)
		require.NoError(t, err)
		require.LessOrEqual(t, n, int64(10*5), "at most a batch per collection")
		batches++
		if !more {
			break
		}
	}
	require.Equal(t, 3, batches, "10 + 10 + 5")
	got, err := st.Delivered(ctx, "old-event", keys)
	require.NoError(t, err)
	require.Empty(t, got)
	got, err = st.Delivered(ctx, "new-event", keys)
	require.NoError(t, err)
	require.Len(t, got, 3)
}

// A commit retried after its history insert succeeded records each change once.
func TestCommitHistoryInsertIsIdempotent(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	evs := []event.Event{{Key: "component:api:major_outage:t1", Kind: event.KindComponent, ComponentID: "api", NewStatus: "major_outage", StatusSince: now, Notify: true}}
	for i := 0; i < 3; i++ {
		require.NoError(t, st.CommitEvents(ctx, evs, nil, now))
	}
	hist, err := st.ComponentHistory(ctx, now.Add(-time.Hour))
	require.NoError(t, err)
	require.Len(t, hist, 1)
}

// A notice is stored with its event, to be rendered again in a chat's
// zone; a text stored without one reads back without one.
func TestNoticeKeepsItsEvent(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 7, 18, 9, 0, 0, 0, time.UTC)
	start, end := now.Add(time.Hour), now.Add(3*time.Hour)
	e := event.Event{Key: "maintenance:m1:u1:v1", OrderKey: "incident:m1", Kind: event.KindMaintenance, At: now, Notify: true,
		IncidentID: "m1", IncidentName: "DB upgrade", UpdateStatus: "scheduled", Body: "We will upgrade.",
		ComponentNames: []string{"API"}, WindowStart: &start, WindowEnd: &end}
	require.NoError(t, st.SaveNotice(ctx, e, "UTC text", now))
	got, err := st.Notice(ctx, e.Key)
	require.NoError(t, err)
	require.Equal(t, "UTC text", got.Text)
	require.NotNil(t, got.Event)
	require.True(t, got.Event.WindowStart.Equal(start) && got.Event.WindowEnd.Equal(end) && got.Event.At.Equal(now))
	got.Event.WindowStart, got.Event.WindowEnd, got.Event.At = e.WindowStart, e.WindowEnd, e.At
	require.Equal(t, e, *got.Event)
	text, err := st.Message(ctx, e.Key)
	require.NoError(t, err)
	require.Equal(t, "UTC text", text)

	require.NoError(t, st.SaveMessage(ctx, "legacy", "old text", now))
	got, err = st.Notice(ctx, "legacy")
	require.NoError(t, err)
	require.Equal(t, store.StoredNotice{Text: "old text"}, got)
}

// What a chat was told follows it to its supergroup and expires with the
// retention of stories, not of the ledger.
func TestToldFollowsAMoveAndExpires(t *testing.T) {
	s := testenv.Store(t)
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := s.Subscribe(ctx, -7, 0, at)
	require.NoError(t, err)
	require.NoError(t, s.RecordTold(ctx, store.Step{OrderKey: "incident:a", Event: "incident:a:u1:v1", Seq: 1}, []string{"-7", "8"}, at))
	require.NoError(t, s.RecordTold(ctx, store.Step{OrderKey: "component:c", Event: "component:c:operational:t", Seq: 4, Ends: true}, []string{"-7"}, at))
	_, err = s.MigrateChatAt(ctx, -7, -1007, at)
	require.NoError(t, err)
	inc, err := s.ToldOf(ctx, "incident:a", []string{"-1007", "8"})
	require.NoError(t, err)
	require.True(t, inc["-1007"].Open)
	require.Equal(t, "incident:a:u1:v1", inc["-1007"].LastEvent)
	require.True(t, inc["8"].Open)
	comp, err := s.ToldOf(ctx, "component:c", []string{"-1007"})
	require.NoError(t, err)
	require.False(t, comp["-1007"].Open)
	require.Equal(t, 4, comp["-1007"].Seq)

	_, _, err = s.PruneBatch(ctx, at.Add(store.LedgerRetention+time.Hour), 100)
	require.NoError(t, err)
	inc, err = s.ToldOf(ctx, "incident:a", []string{"8"})
	require.NoError(t, err)
	require.Len(t, inc, 1, "kept past the ledger's retention")
	_, _, err = s.PruneBatch(ctx, at.Add(store.ToldRetention+time.Hour), 100)
	require.NoError(t, err)
	inc, err = s.ToldOf(ctx, "incident:a", []string{"8", "-1007"})
	require.NoError(t, err)
	require.Empty(t, inc, "pruned after the stories' retention")
}
