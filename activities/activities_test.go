package activities_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type world struct {
	a    *activities.Activities
	st   *store.Store
	tg   *fakes.Telegram
	page *fakes.Statuspage
	env  *testsuite.TestActivityEnvironment
}

// runActivity runs fn with in in the world's test environment and decodes
// its result.
func runActivity[T any](t *testing.T, w *world, fn, in any) T {
	t.Helper()
	v, err := w.env.ExecuteActivity(fn, in)
	require.NoError(t, err)
	var r T
	require.NoError(t, v.Get(&r))
	return r
}

func newWorld(t *testing.T) *world {
	st := testenv.Store(t)
	tg := fakes.NewTelegram(testenv.TestToken)
	t.Cleanup(tg.Close)
	page := fakes.NewStatuspage()
	t.Cleanup(page.Close)
	sender, err := telegram.NewSender(tg.URL(), testenv.TestToken, 2*time.Second)
	require.NoError(t, err)
	a := &activities.Activities{Store: st, Page: statuspage.NewClient(page.URL(), 2*time.Second), Telegram: sender}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return &world{a: a, st: st, tg: tg, page: page, env: env}
}

func (w *world) detect(t *testing.T) *activities.Detection {
	v, err := w.env.ExecuteActivity(w.a.DetectEvents, activities.DetectInput{})
	require.NoError(t, err)
	var d activities.Detection
	require.NoError(t, v.Get(&d))
	return &d
}

// Baseline first, then a change; an idle poll costs two MongoDB round trips.
func TestDetectEventsBaselineChangeAndIdleCost(t *testing.T) {
	w := newWorld(t)
	require.True(t, w.detect(t).Baseline)

	before := w.st.RoundTrips()
	d := w.detect(t)
	require.Empty(t, d.Events)
	require.LessOrEqual(t, w.st.RoundTrips()-before, int64(2), "an idle poll: snapshot write + checkpoint read")
	require.Zero(t, d.BytesFetched, "an unchanged page answers 304 to the conditional requests")

	w.page.SetComponent("api0000001", "API", "degraded_performance")
	w.page.AddIncidentUpdate("inc1", "Elevated errors", "investigating", "minor", "upd1", "We are looking into it.")
	d = w.detect(t)
	require.Len(t, d.Events, 2)
	require.Equal(t, event.KindComponent, d.Events[0].Kind, "ordered by time: the component changed first")
	require.Equal(t, event.KindIncident, d.Events[1].Kind)

	_, err := w.env.ExecuteActivity(w.a.CommitCheckpoint, activities.CommitInput{Events: d.Events})
	require.NoError(t, err)
	require.Empty(t, w.detect(t).Events, "committed events are not found again")

	snap, err := w.st.LatestSnapshot(context.Background())
	require.NoError(t, err)
	require.NotNil(t, snap)
	require.Len(t, snap.Page.Components, 2)

	// The next update of the incident chains to the first for ordering.
	w.page.AddIncidentUpdate("inc1", "Elevated errors", "resolved", "minor", "upd2", "Fixed.")
	d = w.detect(t)
	require.Len(t, d.Events, 1)
	require.Equal(t, "incident:inc1:", d.Events[0].Key[:len("incident:inc1:")])
	require.NotEmpty(t, d.Events[0].Predecessor)
}

func TestDetectEventsFailsOnlyWhenBothEndpointsFail(t *testing.T) {
	w := newWorld(t)
	w.detect(t)
	w.page.Fault("incidents.json", fakes.ServerError)
	w.page.SetComponent("api0000001", "API", "major_outage")
	d := w.detect(t)
	require.Len(t, d.Events, 1, "a failing incidents.json does not hide component changes")
	require.NotEmpty(t, d.IncidentsErr)

	w.page.Fault("summary.json", fakes.MalformedJSON)
	_, err := w.env.ExecuteActivity(w.a.DetectEvents, activities.DetectInput{})
	require.Error(t, err)
}

func sendTo(t *testing.T, w *world, key string, chat int64) (*activities.SendResult, error) {
	v, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: key, Recipient: activities.Recipient{Key: store.SubscriberKey(chat, 0), ChatID: chat}})
	if err != nil {
		return nil, err
	}
	var r activities.SendResult
	require.NoError(t, v.Get(&r))
	return &r, nil
}

func TestSendOutcomes(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e := event.Event{Key: "component:x:major_outage:t", Kind: event.KindComponent, ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage"}
	_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	for _, chat := range []int64{1, 2, -3, 4} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}

	r, err := sendTo(t, w, e.Key, 1)
	require.NoError(t, err)
	require.Equal(t, activities.SendResult{As: store.AsMessage}, *r) // as a per-call Send's (sendWhole)
	require.Contains(t, w.tg.MessagesTo(1, 0)[0].Text, "Major Outage")

	w.tg.FailChat(2, func(int) *fakes.APIError { return fakes.ErrBlocked })
	r, err = sendTo(t, w, e.Key, 2)
	require.NoError(t, err)
	require.True(t, r.Removed)
	_, err = w.st.Subscription(ctx, "2")
	require.ErrorIs(t, err, store.ErrNotSubscribed, "a blocked chat is unsubscribed")

	w.tg.FailChat(-3, func(int) *fakes.APIError { return fakes.Upgraded(-1003) })
	r, err = sendTo(t, w, e.Key, -3)
	require.NoError(t, err)
	require.Equal(t, int64(-1003), r.MigratedTo)
	require.Equal(t, "-1003", r.NewKey, "the delivery records the new key in the ledger too")
	require.Len(t, w.tg.MessagesTo(-1003, 0), 1, "delivered to the supergroup")
	_, err = w.st.Subscription(ctx, "-1003")
	require.NoError(t, err, "the subscription moved")
	done, err := w.st.Delivered(ctx, e.Key, []string{"-1003"})
	require.NoError(t, err)
	require.False(t, done["-1003"], "nothing is written after a successful send: no failing write can make a retry send again")

	w.tg.FailChat(4, func(int) *fakes.APIError { return fakes.TooMany(9) })
	_, err = sendTo(t, w, e.Key, 4)
	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae))
	require.Equal(t, activities.ErrTypeRateLimited, ae.Type())
	require.Equal(t, 9*time.Second, ae.NextRetryDelay())

	w.tg.FailChat(4, func(int) *fakes.APIError { return fakes.ErrTooLong })
	_, err = sendTo(t, w, e.Key, 4)
	require.True(t, errors.As(err, &ae))
	require.Equal(t, activities.ErrTypePermanentMessage, ae.Type())
	require.True(t, ae.NonRetryable())
}

func TestRecipientsFilterAndSkipTheLedger(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for chat := int64(1); chat <= 5; chat++ {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	require.NoError(t, w.st.SetKinds(ctx, "2", []event.Kind{event.KindIncident}))
	require.NoError(t, w.st.SetComponents(ctx, "3", []string{"other"}))
	e := event.Event{Key: "component:api:major_outage:t", Kind: event.KindComponent, ComponentID: "api"}
	require.NoError(t, w.st.RecordDelivered(ctx, e.Key, []string{"4"}, time.Now()))

	var keys []string
	cursor, pages, already := "", 0, 0
	for {
		v, err := w.env.ExecuteActivity(w.a.Recipients, activities.PageInput{Event: e, Cursor: cursor, Limit: 2})
		require.NoError(t, err)
		var p activities.RecipientPage
		require.NoError(t, v.Get(&p))
		pages++
		already += p.AlreadyDelivered
		for _, r := range p.Recipients {
			keys = append(keys, r.Key)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	require.Equal(t, []string{"1", "5"}, keys)
	require.Equal(t, 1, already)
	require.Equal(t, 3, pages)
}

func TestStillSubscribedDropsStoppedAndFilteredChats(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, chat := range []int64{1, 2, 3} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	require.NoError(t, w.st.SetKinds(ctx, "2", []event.Kind{event.KindIncident}))
	require.NoError(t, w.st.Unsubscribe(ctx, "3"))
	e := event.Event{Key: "component:api:major_outage:t", Kind: event.KindComponent, ComponentID: "api"}
	v, err := w.env.ExecuteActivity(w.a.StillSubscribed, e, []string{"1", "2", "3", "4"})
	require.NoError(t, err)
	var still []string
	require.NoError(t, v.Get(&still))
	require.Equal(t, []string{"1"}, still)
}

// A maintenance is announced when scheduled, started and completed; the
// completed update only shows in scheduled-maintenances.json.
func TestMaintenanceLifecycleIncludingCompleted(t *testing.T) {
	w := newWorld(t)
	require.True(t, w.detect(t).Baseline)
	var got []string
	for _, st := range []string{"scheduled", "in_progress", "completed"} {
		w.page.AddMaintenanceUpdate("mnt1", "Database upgrade", st, "mu-"+st, "Step: "+st)
		d := w.detect(t)
		require.Len(t, d.Events, 1, st)
		e := d.Events[0]
		require.Equal(t, event.KindMaintenance, e.Kind)
		got = append(got, e.UpdateStatus)
		_, err := w.env.ExecuteActivity(w.a.CommitCheckpoint, activities.CommitInput{Events: d.Events, Prune: d.Prune})
		require.NoError(t, err)
	}
	require.Equal(t, []string{"scheduled", "in_progress", "completed"}, got)
	require.Empty(t, w.detect(t).Events)
}

// A poll that started a delivery but never committed it (its run timed out
// while MongoDB was down) is settled by the next poll: a change that
// reverted meanwhile is still announced, after the first one.
func TestDetectEventsSettlesAnUncommittedPoll(t *testing.T) {
	w := newWorld(t)
	started := map[string]bool{}
	w.a.DeliveryStarted = func(_ context.Context, key string) (bool, error) { return started[key], nil }
	require.True(t, w.detect(t).Baseline)

	w.page.SetComponent("api0000001", "API", "major_outage")
	d := w.detect(t)
	require.Len(t, d.Events, 1)
	outage := d.Events[0]
	started[outage.Key] = true // its delivery started; the commit never came

	w.page.SetComponent("api0000001", "API", "operational")
	d = w.detect(t)
	require.Len(t, d.Events, 1, "the recovery is announced")
	require.Equal(t, "operational", d.Events[0].NewStatus)
	require.Equal(t, "major_outage", d.Events[0].OldStatus)
	require.Equal(t, outage.Key, d.Events[0].Predecessor, "and ordered after the outage")

	// An intended event whose delivery never started is found again instead.
	w.page.SetComponent("chatgpt001", "ChatGPT", "degraded_performance")
	_, err := w.env.ExecuteActivity(w.a.CommitCheckpoint, activities.CommitInput{Events: d.Events})
	require.NoError(t, err)
	d = w.detect(t)
	require.Len(t, d.Events, 1)
	again := w.detect(t)
	require.Len(t, again.Events, 1, "not started: detected again")
	require.Equal(t, d.Events[0].Key, again.Events[0].Key)
}

// pageAll reads every page of recipients, running between pages what the
// test wants to happen during the delivery.
func pageAll(t *testing.T, w *world, in activities.PageInput, between func(page int)) []string {
	var keys []string
	for page := 0; ; page++ {
		v, err := w.env.ExecuteActivity(w.a.Recipients, in)
		require.NoError(t, err)
		var p activities.RecipientPage
		require.NoError(t, v.Get(&p))
		for _, r := range p.Recipients {
			keys = append(keys, r.Key)
		}
		if p.Next == "" {
			return keys
		}
		in.Cursor = p.Next
		between(page)
	}
}

// A group that becomes a supergroup while a delivery pages the subscribers
// is reached once: its new key sorts before the cursor (it would be
// skipped), or after it while the old key was already read (it would get
// the notification twice).
func TestRecipientsGroupMigratedDuringPaging(t *testing.T) {
	e := event.Event{Key: "component:api:major_outage:t", Kind: event.KindComponent, ComponentID: "api"}
	t.Run("new key before the cursor", func(t *testing.T) {
		w := newWorld(t)
		ctx := context.Background()
		for _, chat := range []int64{-200, -300, -400, -500} {
			_, err := w.st.Subscribe(ctx, chat, 0, time.Now().Add(-time.Hour))
			require.NoError(t, err)
		}
		since := time.Now()
		keys := pageAll(t, w, activities.PageInput{Event: e, Limit: 2, Since: since}, func(page int) {
			if page == 0 { // the cursor is at "-300"; "-100500" sorts before it
				_, err := w.st.MigrateChatAt(ctx, -500, -100500, since.Add(time.Second))
				require.NoError(t, err)
			}
		})
		require.ElementsMatch(t, []string{"-200", "-300", "-400", "-100500"}, keys)
	})
	t.Run("new key after the cursor", func(t *testing.T) {
		w := newWorld(t)
		ctx := context.Background()
		for _, chat := range []int64{-1, -10, -2000} {
			_, err := w.st.Subscribe(ctx, chat, 0, time.Now().Add(-time.Hour))
			require.NoError(t, err)
		}
		since := time.Now()
		keys := pageAll(t, w, activities.PageInput{Event: e, Limit: 2, Since: since}, func(page int) {
			if page == 0 { // "-1" was read; "-1001" sorts after the cursor "-10"
				_, err := w.st.MigrateChatAt(ctx, -1, -1001, since.Add(time.Second))
				require.NoError(t, err)
			}
		})
		require.ElementsMatch(t, []string{"-1", "-10", "-2000"}, keys, "reached once, under its old key")
	})
}

// A subscription under both the old and the new ID (a migration cut short,
// or a supergroup that subscribed on its own) gets one notification.
func TestDuplicateSubscriptionsOfAMigratedGroupGetOneNotification(t *testing.T) {
	e := event.Event{Key: "component:api:major_outage:t", Kind: event.KindComponent, ComponentID: "api", ComponentName: "API", NewStatus: "major_outage"}
	t.Run("migration cut short", func(t *testing.T) {
		w := newWorld(t)
		ctx := context.Background()
		_, err := w.st.Subscribe(ctx, -7, 0, time.Now().Add(-time.Hour))
		require.NoError(t, err)
		_, err = w.st.MigrateChatAt(ctx, -7, -1007, time.Now().Add(-time.Hour))
		require.NoError(t, err)
		_, err = w.st.Subscribe(ctx, -7, 0, time.Now().Add(-time.Hour)) // as if the delete never happened
		require.NoError(t, err)
		keys := pageAll(t, w, activities.PageInput{Event: e, Limit: 10, Since: time.Now()}, func(int) {})
		require.Equal(t, []string{"-1007"}, keys)
	})
	t.Run("supergroup subscribed on its own", func(t *testing.T) {
		w := newWorld(t)
		ctx := context.Background()
		_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
		require.NoError(t, err)
		for _, chat := range []int64{-8, -1008} {
			_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
			require.NoError(t, err)
		}
		w.tg.FailChat(-8, func(int) *fakes.APIError { return fakes.Upgraded(-1008) })
		r, err := sendTo(t, w, e.Key, -8)
		require.NoError(t, err)
		require.True(t, r.Merged, "the supergroup's own subscription gets it")
		require.Empty(t, w.tg.MessagesTo(-1008, 0), "not from the old subscription")
		r, err = sendTo(t, w, e.Key, -1008)
		require.NoError(t, err)
		require.Equal(t, activities.SendResult{As: store.AsMessage}, *r)
		require.Len(t, w.tg.MessagesTo(-1008, 0), 1)
	})
}

// A send to a group that became a supergroup, failing at the supergroup,
// names the supergroup in its failure: the retry goes there.
func TestSendFailureAfterMigrationNamesTheSupergroup(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e := event.Event{Key: "component:api:major_outage:t", Kind: event.KindComponent, ComponentName: "API", NewStatus: "major_outage"}
	_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	_, err = w.st.Subscribe(ctx, -3, 0, time.Now())
	require.NoError(t, err)
	w.tg.FailChat(-3, func(int) *fakes.APIError { return fakes.Upgraded(-1003) })
	w.tg.FailChat(-1003, func(int) *fakes.APIError { return fakes.ErrInternal })
	_, err = sendTo(t, w, e.Key, -3)
	require.Error(t, err)
	moved, ok := activities.MovedRecipient(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, "-1003", moved.Key)
	require.Equal(t, int64(-1003), moved.ChatID)
}

// fakeTemporal answers DescribeWorkflow: running or closed deliveries.
type fakeTemporal struct {
	client.Client
	closed map[string]bool
}

func (f fakeTemporal) DescribeWorkflow(_ context.Context, id, _ string) (*client.WorkflowExecutionDescription, error) {
	info := &workflowpb.WorkflowExecutionInfo{}
	if f.closed[id] {
		info.CloseTime = timestamppb.Now()
	}
	return &client.WorkflowExecutionDescription{RawResponse: &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}}, nil
}

// Update N is given up (or terminated) while update N-1 still retries
// subscriber X: update N+1 must still wait for N-1 at X, and only there.
func TestOrderHoldsAgainstEveryEarlierUnfinishedUpdate(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour)
	ev := func(i int) event.Event {
		return event.Event{Key: fmt.Sprintf("component:api:s%d:t", i), OrderKey: "component:api", At: t0.Add(time.Duration(i) * time.Minute),
			Kind: event.KindComponent, ComponentID: "api"}
	}
	prev, middle, last := ev(1), ev(2), ev(3)
	w.a.Temporal = fakeTemporal{closed: map[string]bool{activities.DeliveryWorkflowID(middle.Key): true}}
	for _, chat := range []int64{1, 2, 3} {
		_, err := w.st.Subscribe(ctx, chat, 0, t0)
		require.NoError(t, err)
	}
	// N-1 retries "1"; the terminated N left "1" and "2" behind.
	retry := func(e event.Event, sub string) store.Retry {
		return store.Retry{Event: e.Key, OrderKey: e.OrderKey, EventAt: e.At, Sub: sub, NextAt: time.Now().Add(time.Hour), At: time.Now()}
	}
	require.NoError(t, w.st.SaveRetries(ctx, []store.Retry{retry(prev, "1"), retry(middle, "1"), retry(middle, "2")}))
	// A later update's retries never hold back an earlier one.
	require.NoError(t, w.st.SaveRetries(ctx, []store.Retry{retry(ev(4), "3")}))

	v, err := w.env.ExecuteActivity(w.a.Recipients, activities.PageInput{Event: last, Limit: 10, Since: time.Now(), Recheck: time.Second})
	require.NoError(t, err)
	var page activities.RecipientPage
	require.NoError(t, v.Get(&page))
	// Cards mode (the default) is read for a component change too: it may be told on a card.
	require.Equal(t, []activities.Recipient{{Key: "2", ChatID: 2, Cards: true, CardRead: true}, {Key: "3", ChatID: 3, Cards: true, CardRead: true}}, page.Recipients)
	require.Equal(t, 1, page.Blocked, `"1" waits for N-1, though N was terminated`)

	// N-1 reaches "1": within the recheck, the retry round sends it.
	_, err = w.st.DeleteRetries(ctx, prev.Key, []string{"1"})
	require.NoError(t, err)
	time.Sleep(1100 * time.Millisecond)
	v, err = w.env.ExecuteActivity(w.a.Retries, activities.RetryPageInput{Event: last, Limit: 10, DueBy: time.Now(), Recheck: time.Second})
	require.NoError(t, err)
	var due activities.RetryPage
	require.NoError(t, v.Get(&due))
	require.Len(t, due.Retries, 1)
	require.Equal(t, "1", due.Retries[0].Recipient.Key)
}
