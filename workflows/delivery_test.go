package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/workflows"
)

var t0 = time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)

func recipients(keys ...string) []activities.Recipient {
	var out []activities.Recipient
	for i, k := range keys {
		out = append(out, activities.Recipient{Key: k, ChatID: int64(100 + i)})
	}
	return out
}

type deliveryEnv struct {
	*testsuite.TestWorkflowEnvironment
	a *activities.Activities

	mu       sync.Mutex
	sent     []string           // recipient keys in the order sends succeeded
	recorded []string           // keys written to the ledger
	attempts map[string]int     // send attempts per key
	fail     map[string][]error // scripted failures per key, consumed per attempt
	results  map[string]*activities.SendResult
	gone     map[string]bool // unsubscribed since the first pass
	// retries is the fake MongoDB collection of pending subscribers.
	retries map[string]activities.Retry
	// blocked says a key waits for an earlier update (nil: never).
	blocked func(key string) bool
	// maxRetries is the most retries stored at once.
	maxRetries int
	// gaveUp: what the ledger was told of chats given up (for /why).
	gaveUp []activities.GaveUp
	// chain, when set, answers every Send (under mu): a chain of Sends.
	chain  func(in activities.SendInput) *activities.SendResult
	inputs []activities.SendInput // every Send's input, in order
	at     []time.Time            // when each started (the test clock)
	cards  []string               // subscribers of the cards recorded with the ledger
	// covered: the later steps recorded told with the ledger (together.go)
	covered []activities.CoveredBy
	// takeOver answers SupersedeWaiting (nil: the earlier step is not waiting).
	takeOver func(in activities.SupersedeInput) *activities.Superseded
	prepared []event.Event // every PrepareMessage's event
	// handOvers: every HandOverSending asked, and after what (the order
	// of the activities: "prepare", "handover", "wait").
	handOvers []activities.HandOverInput
	steps     []string
	// heartbeats: each activity type's HeartbeatTimeout as last started.
	heartbeats map[string]time.Duration
	// batches: the size of each SendBatch, in order.
	batches []int
	// batchStarted and recording, when set, are told of every SendBatch
	// as it starts and every RecordDelivered before it writes (outside mu).
	batchStarted func()
	recording    func(in activities.RecordInput)
}

// isSend: an activity that sends (a Send, or a batch of sends).
func isSend(activityType string) bool { return activityType == "Send" || activityType == "SendBatch" }

// outcomeInBatch is what SendBatch says of a send whose first call
// answered res or err (its last attempt's failure ends the burst, as
// the send's own sendCall marks it).
func outcomeInBatch(in activities.SendInput, res *activities.SendResult, err error) activities.SendOutcome {
	if err != nil {
		f := activities.FailedInBatch(err, in)
		if in.Attempts > 0 && in.Failed+1 >= in.Attempts {
			f.Final, f.Retry = true, nil
		}
		return activities.SendOutcome{Result: &activities.SendResult{}, Failure: f}
	}
	return activities.SendOutcome{Result: res}
}

func newDeliveryEnv(t *testing.T) *deliveryEnv { return newSlowDeliveryEnv(t, 0) }

// newSlowDeliveryEnv: every send takes sendTime.
func newSlowDeliveryEnv(t *testing.T, sendTime time.Duration) *deliveryEnv {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	d := &deliveryEnv{TestWorkflowEnvironment: env, a: &activities.Activities{}, attempts: map[string]int{},
		fail: map[string][]error{}, results: map[string]*activities.SendResult{}, gone: map[string]bool{}, retries: map[string]activities.Retry{}}
	env.RegisterActivity(d.a)
	// Every activity a delivery starts is noticed lost with a killed worker
	// by its heartbeat, not after its time-out (TestDeliveryStepsHeartbeat).
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.heartbeats == nil {
			d.heartbeats = map[string]time.Duration{}
		}
		d.heartbeats[info.ActivityType.Name] = info.HeartbeatTimeout
		if info.HeartbeatTimeout <= 0 {
			t.Errorf("%s started without a heartbeat time-out: lost with a killed worker, it would stall the delivery for its %v", info.ActivityType.Name, info.StartToCloseTimeout)
		}
	})
	env.OnActivity(d.a.PrepareMessage, mock.Anything, mock.Anything).Return(func(_ context.Context, e event.Event) (int, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.prepared = append(d.prepared, e)
		d.steps = append(d.steps, "prepare")
		return 120, nil
	})
	env.OnActivity(d.a.HandOverSending, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.HandOverInput) (bool, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.handOvers = append(d.handOvers, in)
			d.steps = append(d.steps, "handover")
			return true, nil
		})
	env.OnActivity(d.a.SupersedeWaiting, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SupersedeInput) (*activities.Superseded, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.takeOver == nil {
				return nil, nil
			}
			return d.takeOver(in), nil
		})
	send := func(_ context.Context, in activities.SendInput) (*activities.SendResult, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		k := in.Recipient.Key
		d.inputs, d.at = append(d.inputs, in), append(d.at, env.Now())
		if d.chain != nil {
			return d.chain(in), nil
		}
		d.attempts[k]++
		if errs := d.fail[k]; len(errs) > 0 {
			d.fail[k] = errs[1:]
			if errs[0] != nil {
				return nil, errs[0]
			}
		}
		if r := d.results[k]; r != nil {
			return r, nil
		}
		d.sent = append(d.sent, k)
		return &activities.SendResult{}, nil
	}
	env.OnActivity(d.a.Send, mock.Anything, mock.Anything).After(sendTime).Return(send)
	// A batch makes each send's first call as the Send would, and hands
	// every later call back (the delivery's timer, then a Send).
	env.OnActivity(d.a.SendBatch, mock.Anything, mock.Anything).After(sendTime).Return(
		func(ctx context.Context, in activities.SendBatchInput) (*activities.SendBatchResult, error) {
			if d.batchStarted != nil {
				d.batchStarted()
			}
			d.mu.Lock()
			d.batches = append(d.batches, len(in.Sends))
			d.mu.Unlock()
			out := &activities.SendBatchResult{}
			for _, s := range in.Sends {
				res, err := send(ctx, s)
				out.Outcomes = append(out.Outcomes, outcomeInBatch(s, res, err))
			}
			return out, nil
		})
	env.OnActivity(d.a.RecordDelivered, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RecordInput) error {
			if d.recording != nil {
				d.recording(in)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			d.recorded = append(d.recorded, in.Keys...)
			for _, c := range in.Cards {
				d.cards = append(d.cards, c.Sub)
			}
			d.covered = append(d.covered, in.Covered...)
			for _, r := range in.Retries {
				d.retries[r.Recipient.Key] = r
			}
			for _, k := range in.Settled {
				delete(d.retries, k)
			}
			d.gaveUp = append(d.gaveUp, in.GaveUp...)
			d.maxRetries = max(d.maxRetries, len(d.retries))
			return nil
		})
	env.OnActivity(d.a.Retries, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RetryPageInput) (*activities.RetryPage, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			keys := make([]string, 0, len(d.retries))
			for k, r := range d.retries {
				if k > in.Cursor && !r.NextAt.After(in.DueBy) {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			out := &activities.RetryPage{}
			if len(keys) > in.Limit {
				keys = keys[:in.Limit]
				out.Next = keys[len(keys)-1]
			}
			for _, k := range keys {
				switch {
				case d.gone[k]:
					delete(d.retries, k)
					out.Unsubscribed++
				case d.blocked != nil && d.blocked(k):
					r := d.retries[k]
					r.NextAt = env.Now().Add(in.Recheck)
					d.retries[k] = r
					out.Blocked++
				default:
					out.Retries = append(out.Retries, d.retries[k])
				}
			}
			return out, nil
		})
	env.OnActivity(d.a.SummarizePending, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ string) (*activities.PendingSummary, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			out := &activities.PendingSummary{Count: len(d.retries)}
			for k, r := range d.retries {
				if out.NextAt.IsZero() || r.NextAt.Before(out.NextAt) {
					out.NextAt = r.NextAt
				}
				if r.Bursts >= out.WorstBursts {
					out.WorstKey, out.WorstBursts, out.WorstError = k, r.Bursts, r.Error
				}
				out.Sample = append(out.Sample, k)
			}
			return out, nil
		})
	env.OnActivity(d.a.DropPending, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ string) (int, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			n := len(d.retries)
			d.retries = map[string]activities.Retry{}
			return n, nil
		})
	env.OnActivity(d.a.SkipSubscriber, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SkipInput) (*activities.SkipOutcome, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			if slices.Contains(d.recorded, in.Key) {
				return &activities.SkipOutcome{Delivered: true}, nil
			}
			out := &activities.SkipOutcome{Subscribed: !d.gone[in.Key] && !strings.HasPrefix(in.Key, "999")}
			if r, ok := d.retries[in.Key]; ok {
				delete(d.retries, in.Key)
				out.WasPending, out.Bursts, out.LastError = true, r.Bursts, r.Error
			}
			return out, nil
		})
	return d
}

// opResult is what an operator Update answered.
type opResult struct {
	accepted, done bool
	rejected, err  error
	answer         string
}

// operator sends an operator Update; its answer is filled in when it comes.
func (d *deliveryEnv) operator(name string, args ...any) *opResult {
	r := &opResult{}
	d.UpdateWorkflow(name, "", &testsuite.TestUpdateCallback{
		OnAccept: func() { r.accepted = true },
		OnReject: func(err error) { r.rejected = err },
		OnComplete: func(v any, err error) {
			r.done, r.err = true, err
			if s, ok := v.(string); ok {
				r.answer = s
			}
		},
	}, args...)
	return r
}

func (d *deliveryEnv) pages(pages ...activities.RecipientPage) {
	for i := range pages {
		p := pages[i]
		d.OnActivity(d.a.Recipients, mock.Anything, mock.Anything).Return(&p, nil).Once()
	}
}

func (d *deliveryEnv) progress(t *testing.T) workflows.Progress {
	var p workflows.Progress
	require.NoError(t, d.GetWorkflowResult(&p))
	return p
}

func TestDeliveryFansOutAndRecordsLedger(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b", "c")})
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.ElementsMatch(t, []string{"a", "b", "c"}, d.sent)
	require.ElementsMatch(t, []string{"a", "b", "c"}, d.recorded)
	p := d.progress(t)
	require.Equal(t, 3, p.Delivered)
	require.Equal(t, workflows.StateDone, p.State)
}

func TestDeliverySkipsWhatTheLedgerHas(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("c"), AlreadyDelivered: 2})
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []string{"c"}, d.sent)
	p := d.progress(t)
	require.Equal(t, 2, p.AlreadyDelivered)
	require.Equal(t, 1, p.Delivered)
}

// 429 waits exactly retry_after, then the same attempt burst succeeds.
func TestDelivery429WaitsRetryAfter(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	d.fail["a"] = []error{temporal.NewApplicationErrorWithOptions("too many requests, Too Many Requests: retry after 7", activities.ErrTypeRateLimited,
		temporal.ApplicationErrorOptions{NextRetryDelay: 7 * time.Second})}
	var sentAt time.Time
	d.SetOnActivityCompletedListener(func(info *activityInfo, _ encodedValue, err error) {
		if isSend(info.ActivityType.Name) && err == nil {
			sentAt = d.Now()
		}
	})
	start := d.Now()
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, 2, d.attempts["a"])
	require.Equal(t, []string{"a"}, d.sent)
	waited := sentAt.Sub(start)
	require.GreaterOrEqual(t, waited, 7*time.Second)
	require.Less(t, waited, 8*time.Second)
}

func TestDeliveryTerminalRemovesAndMigrationDelivers(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("gone", "moved", "ok")})
	d.results["gone"] = &activities.SendResult{Removed: true, Detail: "forbidden, Forbidden: bot was blocked by the user"}
	d.results["moved"] = &activities.SendResult{MigratedTo: -1009, NewKey: "-1009"}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	p := d.progress(t)
	require.Equal(t, 1, p.Removed)
	require.Equal(t, 1, p.Migrated)
	require.Equal(t, 2, p.Delivered)
	require.ElementsMatch(t, []string{"moved", "-1009", "ok"}, d.recorded, "a migrated subscriber is in the ledger under both keys, a removed one is not")
}

// A message Telegram can never accept fails that subscriber once, visibly,
// and never blocks the others.
func TestDeliveryPermanentErrorFailsVisiblyWithoutRetry(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	d.fail["a"] = []error{temporal.NewApplicationErrorWithOptions("bad request, Bad Request: message is too long", activities.ErrTypePermanentMessage,
		temporal.ApplicationErrorOptions{NonRetryable: true})}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	err := d.GetWorkflowError()
	require.Error(t, err)
	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae))
	require.Equal(t, "DeliveryIncomplete", ae.Type())
	require.Equal(t, 1, d.attempts["a"])
	require.Equal(t, []string{"b"}, d.sent)
}

// Transient failures exhaust a burst, the delivery backs off (visible in the
// progress query and search attributes) and a later burst succeeds.
func TestDeliveryBacksOffBetweenBursts(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	boom := temporal.NewApplicationError("error response from telegram for method sendMessage, 502 Bad Gateway", activities.ErrTypeTransient)
	for i := 0; i < int(workflows.DefaultTuning().SendAttempts); i++ {
		d.fail["a"] = append(d.fail["a"], boom)
	}
	var states []string
	d.OnUpsertTypedSearchAttributes(mock.MatchedBy(func(sa temporal.SearchAttributes) bool {
		if v, ok := sa.GetKeyword(workflows.AttrDeliveryState); ok && (len(states) == 0 || states[len(states)-1] != v) {
			states = append(states, v)
		}
		return true
	})).Return(nil)
	var during workflows.Progress
	d.RegisterDelayedCallback(func() {
		v, err := d.QueryWorkflow("progress")
		require.NoError(t, err)
		require.NoError(t, v.Get(&during))
	}, 50*time.Second)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, int(workflows.DefaultTuning().SendAttempts)+1, d.attempts["a"])
	require.Equal(t, []string{"b", "a"}, d.sent)
	require.Equal(t, 1, during.Pending)
	require.Equal(t, []string{"a"}, during.PendingKeys)
	require.Equal(t, workflows.StateBackingOff, during.State)
	require.Contains(t, states, workflows.StateBackingOff)
	require.Equal(t, workflows.StateDone, states[len(states)-1])
}

// A chat whose bursts are spent is given up, and the ledger's write says
// so with the reason, for /why (before: nothing was written, and /why said
// "retrying" for 7 days); one that got through in the end is not.
func TestDeliveryRecordsAGiveUpForWhy(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	boom := temporal.NewApplicationError("error response from telegram for method sendMessage, 502 Bad Gateway", activities.ErrTypeTransient)
	for range 1000 {
		d.fail["a"] = append(d.fail["a"], boom)
	}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
		Tuning: workflows.Tuning{MaxBursts: 3, SendAttempts: 2}})
	require.Error(t, d.GetWorkflowError(), "a delivery with a chat given up fails")
	require.Len(t, d.gaveUp, 1)
	require.Equal(t, "a", d.gaveUp[0].Key)
	require.Contains(t, d.gaveUp[0].Why, "gave up after 3 bursts")
	require.Contains(t, d.gaveUp[0].Why, "502 Bad Gateway")
	require.Equal(t, []string{"b"}, d.sent)
}

func TestDeliveryOperatorSkipAndGiveUp(t *testing.T) {
	for _, tc := range []struct {
		update  string
		args    []any
		wantErr bool
		skipped int
	}{
		{workflows.UpdateSkip, []any{"a"}, false, 1},
		{workflows.UpdateGiveUp, nil, true, 0},
	} {
		t.Run(tc.update, func(t *testing.T) {
			d := newDeliveryEnv(t)
			d.pages(activities.RecipientPage{Recipients: recipients("a")})
			boom := temporal.NewApplicationError("502", activities.ErrTypeTransient)
			for i := 0; i < 1000; i++ {
				d.fail["a"] = append(d.fail["a"], boom)
			}
			var res *opResult
			d.RegisterDelayedCallback(func() { res = d.operator(tc.update, tc.args...) }, 10*time.Minute)
			d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
			require.True(t, res.accepted && res.done, "%+v", res)
			require.NoError(t, res.err)
			t.Logf("answer: %s", res.answer)
			require.NotEmpty(t, res.answer)
			if tc.wantErr {
				require.Error(t, d.GetWorkflowError())
				return
			}
			require.NoError(t, d.GetWorkflowError())
			require.Equal(t, tc.skipped, d.progress(t).Skipped)
		})
	}
}

// A step lost with a killed worker (a ledger write, a page read) is
// retried after the delivery's SendHeartbeat, as a send is: the window
// waits on it, and its 30 s time-out stalled the fan-out
// (TestWorkerKilledMidFanOutStillDeliversToEveryone saw 29 s when the
// kill took a ledger write with it). The heartbeat time-out travels in
// the input.
func TestDeliveryStepsHeartbeat(t *testing.T) {
	for _, beat := range []time.Duration{0, 3 * time.Second} {
		d := newDeliveryEnv(t)
		d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
		boom := temporal.NewApplicationError("502", activities.ErrTypeTransient)
		for i := 0; i < 1000; i++ {
			d.fail["b"] = append(d.fail["b"], boom)
		}
		var skip, giveUp *opResult
		d.RegisterDelayedCallback(func() { skip = d.operator(workflows.UpdateSkip, "a") }, 5*time.Minute)
		d.RegisterDelayedCallback(func() { giveUp = d.operator(workflows.UpdateGiveUp) }, 20*time.Minute)
		d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
			Tuning: workflows.Tuning{SendHeartbeat: beat}})
		require.True(t, skip.done && giveUp.done)
		want := beat
		if want == 0 {
			want = workflows.DefaultTuning().SendHeartbeat
		}
		for _, name := range []string{"PrepareMessage", "Recipients", "Send", "RecordDelivered", "Retries", "SkipSubscriber", "DropPending"} {
			require.Equal(t, want, d.heartbeats[name], "%s's heartbeat time-out (started: %v)", name, d.heartbeats)
		}
	}
}

func TestDeliveryRetryNowSkipsTheBackoff(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	for i := 0; i < int(workflows.DefaultTuning().SendAttempts); i++ {
		d.fail["a"] = append(d.fail["a"], temporal.NewApplicationError("502", activities.ErrTypeTransient))
	}
	start := d.Now()
	var doneAt time.Time
	d.SetOnActivityCompletedListener(func(info *activityInfo, _ encodedValue, err error) {
		if isSend(info.ActivityType.Name) && err == nil {
			doneAt = d.Now()
		}
	})
	d.RegisterDelayedCallback(func() { d.operator(workflows.UpdateRetryNow) }, 3*time.Minute)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Less(t, doneAt.Sub(start), 4*time.Minute, "the backoff of a minute and more was cut short")
	require.Equal(t, []string{"a"}, d.sent)
}

// A subscriber an earlier update of the same incident has not reached yet
// waits for it; the others do not. It gets this update within the recheck
// interval of the earlier one reaching it, not after an hour of backoff.
func TestDeliveryKeepsPerSubscriberOrder(t *testing.T) {
	d := newDeliveryEnv(t)
	e := componentEvent("c1", "operational", t0)
	e.Predecessor = "component:c1:major_outage:earlier"
	d.OnActivity(d.a.PredecessorProgress, mock.Anything, workflows.DeliveryWorkflowID(e.Predecessor), true).
		Return(&activities.PredecessorState{FirstPassDone: true}, nil).Once()
	// The page holds "a" back: an earlier update still retries it.
	d.OnActivity(d.a.Recipients, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PageInput) (*activities.RecipientPage, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.retries["a"] = activities.Retry{Recipient: recipients("a")[0], NextAt: d.Now().Add(in.Recheck)}
			return &activities.RecipientPage{Recipients: recipients("b"), Blocked: 1}, nil
		}).Once()
	start := d.Now()
	reached := start.Add(3 * time.Hour) // the earlier update reaches "a" after three hours of retries
	d.blocked = func(k string) bool { return k == "a" && d.Now().Before(reached) }
	var sentAt time.Time
	d.SetOnActivityCompletedListener(func(info *activityInfo, _ encodedValue, err error) {
		if isSend(info.ActivityType.Name) && err == nil {
			sentAt = d.Now()
		}
	})
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []string{"b", "a"}, d.sent)
	require.GreaterOrEqual(t, sentAt, reached)
	require.Less(t, sentAt.Sub(reached), workflows.DefaultTuning().Recheck+time.Second, "within one recheck of the earlier update reaching it")
	require.Zero(t, d.progress(t).Failed)
	d.AssertNumberOfCalls(t, "PredecessorProgress", 1)
}

// Large deliveries continue as new with their cursor and counts.
func TestDeliveryContinuesAsNewWithCursor(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b"), Next: "b"})
	d.SetContinueAsNewSuggested(true)
	tuning := workflows.Tuning{PageSize: 2, WindowSize: 7, SendAttempts: 3}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0), Tuning: tuning})
	err := d.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(err, &can), "got %v", err)
	var next workflows.DeliveryInput
	require.NoError(t, convertPayload(can, &next))
	require.NotNil(t, next.State)
	require.Equal(t, "b", next.State.Cursor)
	require.Equal(t, 1, next.State.Delivered, "the history was full after the first send")
	require.Equal(t, []activities.Retry{{Recipient: recipients("a", "b")[1]}}, next.State.Queue, "the rest of the page carries over")
	require.True(t, next.State.MessageReady)
	require.Equal(t, event.KindComponent, next.Event.Kind)
	require.Equal(t, 2, next.Tuning.PageSize, "the tuning travels through continue-as-new")
	require.Equal(t, 7, next.Tuning.WindowSize)
	require.Equal(t, int32(3), next.Tuning.SendAttempts)

	// The continued run resumes from the cursor and does not format again.
	d2 := newDeliveryEnv(t)
	d2.OnActivity(d2.a.Recipients, mock.Anything, mock.MatchedBy(func(in activities.PageInput) bool { return in.Cursor == "b" })).
		Return(&activities.RecipientPage{Recipients: recipients("c")}, nil).Once()
	d2.ExecuteWorkflow(workflows.DeliveryWorkflow, next)
	require.NoError(t, d2.GetWorkflowError())
	require.Equal(t, 3, d2.progress(t).Delivered)
	d2.AssertNotCalled(t, "PrepareMessage", mock.Anything, mock.Anything)
}

// A window being sent counts as pending for the next update of the same
// incident: its first pass is not done until the window's results are in.
func TestDeliveryWindowInFlightIsPending(t *testing.T) {
	d := newSlowDeliveryEnv(t, 10*time.Second)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	var during workflows.Progress
	d.RegisterDelayedCallback(func() {
		v, err := d.QueryWorkflow(activities.ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&during))
	}, 5*time.Second)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.False(t, during.FirstPassDone)
	require.Equal(t, []string{"a"}, during.PendingKeys)
	done := d.progress(t)
	require.True(t, done.FirstPassDone)
	require.Empty(t, done.PendingKeys)
}

// A flood of 429s longer than a burst keeps waiting exactly retry_after and
// never uses up the retry budget.
func TestDelivery429FloodDoesNotUseTheRetryBudget(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	for i := 0; i < 3*int(workflows.DefaultTuning().SendAttempts); i++ {
		d.fail["a"] = append(d.fail["a"], temporal.NewApplicationErrorWithOptions("Too Many Requests: retry after 3", activities.ErrTypeRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: 3 * time.Second}))
	}
	start := d.Now()
	var sentAt time.Time
	d.SetOnActivityCompletedListener(func(info *activityInfo, _ encodedValue, err error) {
		if isSend(info.ActivityType.Name) && err == nil {
			sentAt = d.Now()
		}
	})
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []string{"a"}, d.sent)
	waited := sentAt.Sub(start)
	want := time.Duration(3*workflows.DefaultTuning().SendAttempts) * 3 * time.Second
	require.GreaterOrEqual(t, waited, want)
	require.Less(t, waited, want+5*time.Second, "no burst backoff on top of retry_after")
}

// An operator can skip a subscriber that has not been tried yet, and give
// up a delivery that has not read every page: nobody is silently dropped.
func TestDeliveryOperatorActsDuringTheFirstPass(t *testing.T) {
	t.Run("skip before the page is read", func(t *testing.T) {
		d := newDeliveryEnv(t)
		d.OnActivity(d.a.Recipients, mock.Anything, mock.Anything).After(time.Minute).Return(&activities.RecipientPage{Recipients: recipients("a", "b")}, nil).Once()
		d.RegisterDelayedCallback(func() { d.operator(workflows.UpdateSkip, "b") }, 10*time.Second)
		d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
		require.NoError(t, d.GetWorkflowError())
		require.Equal(t, []string{"a"}, d.sent)
		require.Equal(t, 1, d.progress(t).Skipped)
	})
	t.Run("give up with pages unread", func(t *testing.T) {
		d := newSlowDeliveryEnv(t, time.Minute)
		d.pages(activities.RecipientPage{Recipients: recipients("a", "b"), Next: "b"})
		d.RegisterDelayedCallback(func() { d.operator(workflows.UpdateGiveUp) }, 10*time.Second)
		d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
			Tuning: workflows.Tuning{WindowSize: 1, PageSize: 2}})
		err := d.GetWorkflowError()
		require.Error(t, err)
		var ae *temporal.ApplicationError
		require.True(t, errors.As(err, &ae))
		var p workflows.Progress
		require.NoError(t, ae.Details(&p))
		require.Equal(t, 1, p.Delivered)
		require.Equal(t, 2, p.Failed, "the queued subscriber and the unread pages count as failed")
	})
}

// A chat that sends /stop while its retry is pending is not sent to.
func TestDeliveryDropsRetriesOfUnsubscribedChats(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	for i := 0; i < int(workflows.DefaultTuning().SendAttempts); i++ {
		d.fail["a"] = append(d.fail["a"], temporal.NewApplicationError("502", activities.ErrTypeTransient))
	}
	d.RegisterDelayedCallback(func() { d.mu.Lock(); d.gone["a"] = true; d.mu.Unlock() }, 45*time.Second)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Empty(t, d.sent)
	require.Equal(t, int(workflows.DefaultTuning().SendAttempts), d.attempts["a"])
	require.Equal(t, 1, d.progress(t).Unsubscribed)
}

// Until a subscriber has the message, it is pending: counted by the
// progress query, and listed there (queued, in flight) or kept in MongoDB
// (waiting for a retry), where later updates of the same incident look.
func TestDeliveryProgressListsEveryUndeliveredSubscriber(t *testing.T) {
	d := newSlowDeliveryEnv(t, 3*time.Second)
	// One send at a time: while one is in flight, the others are queued or
	// wait their turn in the retry round.
	all := []string{"a", "b", "c"}
	d.pages(activities.RecipientPage{Recipients: recipients(all...)})
	for _, k := range all {
		for i := 0; i < int(workflows.DefaultTuning().SendAttempts); i++ {
			d.fail[k] = append(d.fail[k], temporal.NewApplicationError("502", activities.ErrTypeTransient))
		}
	}
	checks := 0
	for at := time.Second; at < 10*time.Minute; at += 2 * time.Second {
		d.RegisterDelayedCallback(func() {
			if d.IsWorkflowCompleted() {
				return
			}
			v, err := d.QueryWorkflow(activities.ProgressQuery)
			require.NoError(t, err)
			var p workflows.Progress
			require.NoError(t, v.Get(&p))
			d.mu.Lock()
			defer d.mu.Unlock()
			undelivered := 0
			for _, k := range all {
				if !slices.Contains(d.sent, k) {
					undelivered++
					_, stored := d.retries[k]
					require.True(t, slices.Contains(p.PendingKeys, k) || stored, "%s is neither in the progress nor in MongoDB at %v: %+v", k, at, p)
				}
			}
			require.Equal(t, undelivered, p.Pending, "at %v: %+v", at, p)
			checks++
		}, at)
	}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0), Tuning: workflows.Tuning{WindowSize: 1}})
	require.NoError(t, d.GetWorkflowError())
	require.ElementsMatch(t, all, d.sent)
	require.Greater(t, checks, 20)
}

// A skip for a subscriber whose send is in flight holds even when another
// send finishes first: it is not retried.
func TestDeliverySkipOfAnInFlightSend(t *testing.T) {
	d := newSlowDeliveryEnv(t, 5*time.Second)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	for i := 0; i < 100; i++ {
		d.fail["a"] = append(d.fail["a"], temporal.NewApplicationError("502", activities.ErrTypeTransient))
	}
	d.RegisterDelayedCallback(func() { d.operator(workflows.UpdateSkip, "a") }, 2*time.Second)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []string{"b"}, d.sent)
	p := d.progress(t)
	require.Equal(t, 1, p.Skipped)
	require.Equal(t, int(workflows.DefaultTuning().SendAttempts), d.attempts["a"], "one burst, no retry after the skip")
}

// Telegram down for everyone: more than 10,000 subscribers fail their first
// burst. What the delivery carries through continue-as-new stays far under
// Temporal's 512 KB warning (it was about 2.4 MB at 10,000 before the
// pending subscribers moved to MongoDB), and every one of them is retried.
func TestDeliveryStateStaysBoundedWithTenThousandPending(t *testing.T) {
	const n, pageSize = 10_500, 500
	d := newDeliveryEnv(t)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%d", 1_000_000+i)
	}
	d.OnActivity(d.a.Recipients, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PageInput) (*activities.RecipientPage, error) {
			i, _ := slices.BinarySearch(keys, in.Cursor)
			if in.Cursor != "" {
				i++
			}
			page := &activities.RecipientPage{}
			for _, k := range keys[i:min(i+in.Limit, n)] {
				page.Recipients = append(page.Recipients, activities.Recipient{Key: k, ChatID: 1})
			}
			if i+in.Limit < n {
				page.Next = keys[i+in.Limit-1]
			}
			return page, nil
		})
	long := strings.Repeat("Bad Gateway <html>"+strings.Repeat("x", 100)+"</html> ", 20) // an HTML error page
	for _, k := range keys {
		d.fail[k] = []error{temporal.NewApplicationError(long, activities.ErrTypeTransient)}
	}
	d.RegisterDelayedCallback(func() { d.SetContinueAsNewSuggested(true) }, 30*time.Second)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
		Tuning: workflows.Tuning{PageSize: pageSize, SendAttempts: 1}})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(d.GetWorkflowError(), &can), "got %v", d.GetWorkflowError())
	size := 0
	for _, p := range can.Input.GetPayloads() {
		size += len(p.GetData())
	}
	t.Logf("continue-as-new input with %d pending: %d bytes", d.maxRetries, size)
	require.GreaterOrEqual(t, d.maxRetries, n-pageSize, "the pending subscribers are in MongoDB")
	require.Less(t, size, 64<<10, "far under the 512 KB warning")

	var next workflows.DeliveryInput
	require.NoError(t, convertPayload(can, &next))
	require.Equal(t, n, next.State.PendingCount+len(next.State.InFlight)+next.State.Delivered)
	for _, f := range next.State.Failures {
		require.LessOrEqual(t, len(f.Error), 400)
	}
}

// Operator actions do not wait behind the previous update: while the
// delivery waits for it (hours, if it is stuck), give-up ends the delivery
// at once and skip takes effect when the pages are read.
func TestDeliveryOperatorActsWhileWaitingForThePredecessor(t *testing.T) {
	e := componentEvent("c1", "operational", t0)
	e.Predecessor = "component:c1:major_outage:earlier"
	t.Run("give-up", func(t *testing.T) {
		d := newDeliveryEnv(t)
		d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).After(24*time.Hour).
			Return(&activities.PredecessorState{FirstPassDone: true}, nil)
		d.pages(activities.RecipientPage{Recipients: recipients("a")})
		var res *opResult
		var again *opResult
		d.RegisterDelayedCallback(func() {
			res = d.operator(workflows.UpdateGiveUp)
			again = d.operator(workflows.UpdateGiveUp)
		}, 10*time.Minute)
		start := d.Now()
		d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
		require.Less(t, d.Now().Sub(start), 11*time.Minute, "ended at once, not after the predecessor")
		require.True(t, res.accepted && res.done, "%+v", res)
		t.Logf("answer: %s", res.answer)
		require.Contains(t, res.answer, "giving up")
		require.Error(t, again.rejected, "the validator refuses a second give-up")
		var ae *temporal.ApplicationError
		require.True(t, errors.As(d.GetWorkflowError(), &ae))
		require.Empty(t, d.sent)
	})
	t.Run("skip", func(t *testing.T) {
		d := newDeliveryEnv(t)
		d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).After(time.Hour).
			Return(&activities.PredecessorState{FirstPassDone: true}, nil)
		d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
		var res, unknown *opResult
		d.RegisterDelayedCallback(func() {
			res = d.operator(workflows.UpdateSkip, "b")
			unknown = d.operator(workflows.UpdateSkip, "999")
		}, 10*time.Minute)
		d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
		require.NoError(t, d.GetWorkflowError())
		require.True(t, res.done, "answered while waiting: %+v", res)
		require.NoError(t, res.err)
		require.Contains(t, res.answer, "left out when its page")
		require.Error(t, unknown.err, "an unknown subscriber is refused")
		require.Equal(t, []string{"a"}, d.sent)
		require.Equal(t, 1, d.progress(t).Skipped)
	})
}

// A group that becomes a supergroup on its first send, whose sends to the
// supergroup then fail for a burst, is retried at the supergroup: the old
// key's subscription is gone, and must not make it count as unsubscribed.
func TestDeliveryMigratedChatFailingOneBurstIsRetriedThere(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("-5")})
	moved := activities.Recipient{Key: "-1005", ChatID: -1005}
	for i := 0; i < int(workflows.DefaultTuning().SendAttempts); i++ {
		d.fail["-5"] = append(d.fail["-5"], temporal.NewApplicationErrorWithOptions("Bad Gateway", activities.ErrTypeTransient,
			temporal.ApplicationErrorOptions{Details: []any{moved}}))
	}
	d.gone["-5"] = true // the migration deleted the old subscription
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []string{"-1005"}, d.sent, "retried at the supergroup")
	p := d.progress(t)
	require.Equal(t, 1, p.Delivered)
	require.Zero(t, p.Unsubscribed)
	require.Equal(t, 1, p.Migrated)
	require.Contains(t, d.recorded, "-1005")
}

// The next page of subscribers is read while the last sends of the page
// before go out: sends of 1 s, a window of 2, a page read of 2 s; the
// second page's first send starts when the read ends (3 s in), not a
// read after the first page's last send (4 s in).
func TestDeliveryReadsTheNextPageAhead(t *testing.T) {
	d := newSlowDeliveryEnv(t, time.Second)
	first := activities.RecipientPage{Recipients: recipients("a", "b", "c", "d"), Next: "d"}
	second := activities.RecipientPage{Recipients: recipients("e", "f")}
	d.OnActivity(d.a.Recipients, mock.Anything, mock.Anything).Return(&first, nil).Once()
	d.OnActivity(d.a.Recipients, mock.Anything, mock.Anything).After(2*time.Second).Return(&second, nil).Once()
	start := d.Now()
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
		Tuning: workflows.Tuning{WindowSize: 2}})
	require.NoError(t, d.GetWorkflowError())
	require.ElementsMatch(t, []string{"a", "b", "c", "d", "e", "f"}, d.sent)
	var eAt time.Time
	for i, in := range d.inputs {
		if in.Recipient.Key == "e" {
			eAt = d.at[i]
		}
	}
	// d.at is when a send ends: e's ends 4 s in (5 s without the read ahead).
	require.Less(t, eAt.Sub(start), 4500*time.Millisecond, "the second page was read during the first's last sends")
}

// A send that told later steps of its story too (their sends blocked
// behind it for the chat) has them written with the ledger, for that
// chat only; every send of a delivery of this version may do so.
func TestDeliveryRecordsTheLaterStepsASendTold(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	later := []activities.Covered{{Event: "incident:i:u2:v", Seq: 2}, {Event: "incident:i:u3:v", Seq: 3}}
	d.results["a"] = &activities.SendResult{As: "reply", Covers: later}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []activities.CoveredBy{{Sub: "a", Events: later}}, d.covered)
	require.ElementsMatch(t, []string{"a", "b"}, d.recorded)
	for _, in := range d.inputs {
		require.True(t, in.FoldLater, "the send may tell the later steps blocked behind it")
	}
}

// A delivery whose predecessor still waits for its own takes it over: it
// tells that step too (formatted again with it), waits for what it waited
// for, and sends once to each chat.
func TestDeliveryTakesOverAWaitingPredecessor(t *testing.T) {
	e := componentEvent("c1", "operational", t0)
	e.Predecessor = "incident:i:u2:v"
	d := newDeliveryEnv(t)
	var asked []string
	d.takeOver = func(in activities.SupersedeInput) *activities.Superseded {
		asked = append(asked, in.WorkflowID)
		if in.WorkflowID == workflows.DeliveryWorkflowID("incident:i:u2:v") && in.By == e.Key {
			return &activities.Superseded{Step: event.FoldedStep{Key: "incident:i:u2:v", Status: "investigating"}, Predecessor: "incident:i:u1:v"}
		}
		return nil
	}
	var waitedFor []string
	d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).Return(
		func(_ context.Context, id string, _ bool) (*activities.PredecessorState, error) {
			waitedFor = append(waitedFor, id)
			return &activities.PredecessorState{FirstPassDone: true}, nil
		})
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []string{workflows.DeliveryWorkflowID("incident:i:u2:v"), workflows.DeliveryWorkflowID("incident:i:u1:v")}, asked)
	require.Equal(t, []string{workflows.DeliveryWorkflowID("incident:i:u1:v")}, waitedFor, "waits for what the step taken over waited for")
	require.Len(t, d.prepared, 1, "formatted once, with the step taken over")
	require.Equal(t, "incident:i:u2:v", d.prepared[0].Folded[0].Key)
	require.ElementsMatch(t, []string{"a", "b"}, d.sent)
}

// A delivery that waits for its predecessor and has sent nothing hands its
// step over to a newer one and ends without sending; asked again by the
// same newer step it answers the same (validateSupersede), and its result
// keeps the answer for a take-over whose answer was lost; another is
// refused.
func TestDeliveryWaitingIsTakenOver(t *testing.T) {
	e := componentEvent("c1", "operational", t0)
	e.Predecessor = "component:c1:major_outage:earlier"
	d := newDeliveryEnv(t)
	d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).After(time.Hour).
		Return(&activities.PredecessorState{FirstPassDone: true}, nil)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	var first *testsuite.TestUpdateCallback
	var got activities.Superseded
	var otherErr error
	mk := func(into *activities.Superseded, rejected *error) *testsuite.TestUpdateCallback {
		return &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) {
			if rejected != nil {
				*rejected = err
			}
		}, OnComplete: func(v any, err error) {
			if s, ok := v.(activities.Superseded); ok && into != nil {
				*into = s
			}
		}}
	}
	first = mk(&got, nil)
	d.RegisterDelayedCallback(func() { d.UpdateWorkflow(activities.UpdateSupersede, "1", first, "newer") }, 10*time.Minute)
	start := d.Now()
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
	require.NoError(t, d.GetWorkflowError())
	require.Less(t, d.Now().Sub(start), 11*time.Minute, "ended at once, not after the predecessor")
	require.Equal(t, e.Key, got.Step.Key)
	require.Equal(t, e.Predecessor, got.Predecessor)
	require.Empty(t, d.sent)
	require.Empty(t, d.recorded)
	p := d.progress(t)
	require.Equal(t, workflows.StateSuperseded, p.State)
	// The result keeps what was handed over: a take-over whose answer was
	// lost reads it there.
	require.Equal(t, "newer", p.SupersededBy)
	require.Equal(t, got, *p.HandedOver)

	// A delivery that is sending is never taken over.
	busy := newSlowDeliveryEnv(t, time.Hour)
	busy.pages(activities.RecipientPage{Recipients: recipients("a")})
	refused := mk(nil, &otherErr)
	busy.RegisterDelayedCallback(func() { busy.UpdateWorkflow(activities.UpdateSupersede, "1", refused, "newer") }, 10*time.Minute)
	busy.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, busy.GetWorkflowError())
	require.Error(t, otherErr, "refused while sending")
	require.Equal(t, []string{"a"}, busy.sent)
}
