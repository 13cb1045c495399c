package workflows

// The delivery as it ran before its pending subscribers moved to MongoDB
// (versionBoundedState). Deliveries started before that change replay and
// finish with this code; it is frozen: do not change it, delete it once no
// such delivery can be running (after LedgerRetention).

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
)

// Signals the legacy delivery listened to; the current one takes Updates
// of the same names.
const (
	legacySignalSkip     = "skip-subscriber"
	legacySignalRetryNow = "retry-now"
	legacySignalGiveUp   = "give-up"
)

// legacyState is DeliveryState as it was; DeliveryState keeps its JSON
// names (queue, pending, blocked), so both read the same input.
type legacyState struct {
	MessageReady       bool                   `json:"message_ready,omitempty"`
	PredecessorChecked bool                   `json:"predecessor_checked,omitempty"`
	Blocked            []string               `json:"blocked,omitempty"`
	Cursor             string                 `json:"cursor,omitempty"`
	PagesDone          bool                   `json:"pages_done,omitempty"`
	Queue              []activities.Recipient `json:"queue,omitempty"`
	Pending            []Pending              `json:"pending,omitempty"`
	Delivered          int                    `json:"delivered"`
	AlreadyDelivered   int                    `json:"already_delivered,omitempty"`
	Removed            int                    `json:"removed"`
	Migrated           int                    `json:"migrated,omitempty"`
	Skipped            int                    `json:"skipped,omitempty"`
	Unsubscribed       int                    `json:"unsubscribed,omitempty"`
	FailedCount        int                    `json:"failed"`
	Failures           []Failure              `json:"failures,omitempty"`
	GaveUp             bool                   `json:"gave_up,omitempty"`
	InFlight           []string               `json:"in_flight,omitempty"`
	SkipKeys           []string               `json:"skip_keys,omitempty"`
	FirstPassDone      bool                   `json:"first_pass_done,omitempty"`
	Runs               int                    `json:"runs"`
	LastState          string                 `json:"last_state,omitempty"`
}

// toLegacy and fromLegacy move a state between the two types (field by
// field: workflow code stays free of reflection).
func toLegacy(st *DeliveryState) *legacyState {
	if st == nil {
		return nil
	}
	return &legacyState{
		MessageReady: st.MessageReady, PredecessorChecked: st.PredecessorChecked, Blocked: st.Blocked, Cursor: st.Cursor,
		PagesDone: st.PagesDone, Queue: st.LegacyQueue, Pending: st.LegacyPending, Delivered: st.Delivered,
		AlreadyDelivered: st.AlreadyDelivered, Removed: st.Removed, Migrated: st.Migrated, Skipped: st.Skipped,
		Unsubscribed: st.Unsubscribed, FailedCount: st.FailedCount, Failures: st.Failures, GaveUp: st.GaveUp,
		InFlight: st.InFlight, SkipKeys: st.SkipKeys, FirstPassDone: st.FirstPassDone, Runs: st.Runs, LastState: st.LastState,
	}
}

func fromLegacy(st *legacyState) *DeliveryState {
	return &DeliveryState{
		MessageReady: st.MessageReady, PredecessorChecked: st.PredecessorChecked, Blocked: st.Blocked, Cursor: st.Cursor,
		PagesDone: st.PagesDone, LegacyQueue: st.Queue, LegacyPending: st.Pending, Delivered: st.Delivered,
		AlreadyDelivered: st.AlreadyDelivered, Removed: st.Removed, Migrated: st.Migrated, Skipped: st.Skipped,
		Unsubscribed: st.Unsubscribed, FailedCount: st.FailedCount, Failures: st.Failures, GaveUp: st.GaveUp,
		InFlight: st.InFlight, SkipKeys: st.SkipKeys, FirstPassDone: st.FirstPassDone, Runs: st.Runs, LastState: st.LastState,
	}
}

// legacyDeliveryWorkflow replays deliveries recorded before the bounded
// state (versionBoundedState): frozen, do not change.
func legacyDeliveryWorkflow(ctx workflow.Context, in DeliveryInput) (*Progress, error) {
	d := &legacyDelivery{e: in.Event, st: toLegacy(in.State), tune: in.Tuning.withDefaults()}
	if d.st == nil {
		d.st = &legacyState{LastState: StateDelivering}
	}
	d.st.Runs++
	if err := workflow.SetQueryHandler(ctx, activities.ProgressQuery, func() (*Progress, error) { return d.progress(), nil }); err != nil {
		return nil, err
	}
	d.skipCh = workflow.GetSignalChannel(ctx, legacySignalSkip)
	d.retryCh = workflow.GetSignalChannel(ctx, legacySignalRetryNow)
	d.giveUpCh = workflow.GetSignalChannel(ctx, legacySignalGiveUp)
	return d.run(ctx)
}

type legacyDelivery struct {
	e                         event.Event
	tune                      Tuning
	st                        *legacyState
	skipCh, retryCh, giveUpCh workflow.ReceiveChannel
	// due are the retries of the current round not started yet; they are
	// pending for the progress query and for skip.
	due []Pending
}

func (d *legacyDelivery) run(ctx workflow.Context) (*Progress, error) {
	st := d.st
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	if !st.MessageReady {
		c := legacyStep(actx, 30*time.Second, "Format the notification")
		if err := workflow.ExecuteActivity(c, a.PrepareMessage, d.e).Get(ctx, nil); err != nil {
			return nil, err
		}
		st.MessageReady = true
	}
	if d.e.Predecessor != "" && !st.PredecessorChecked {
		workflow.SetCurrentDetails(ctx, "Waiting until the previous update ("+DeliveryWorkflowID(d.e.Predecessor)+") has tried every subscriber once.")
		pctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 24 * time.Hour, HeartbeatTimeout: 30 * time.Second,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
			Summary:     "Wait for the previous update's first pass",
		})
		var ps activities.PredecessorState
		if err := workflow.ExecuteActivity(pctx, a.PredecessorProgress, DeliveryWorkflowID(d.e.Predecessor), true).Get(ctx, &ps); err != nil {
			return nil, err
		}
		if !ps.Closed {
			st.Blocked = ps.Pending
		}
		st.PredecessorChecked = true
		workflow.SetCurrentDetails(ctx, "")
	}

	// First pass: every subscriber once, page by page, with a sliding
	// window of sends.
	pagesRead := 0
	firstPass := func() (Pending, bool, error) {
		for len(st.Queue) == 0 {
			// Pages that yield nobody (all delivered, all filtered out)
			// still grow the history.
			if st.PagesDone || st.GaveUp || (pagesRead > 0 && d.historyFull(ctx)) {
				return Pending{}, false, nil
			}
			pagesRead++
			if err := d.readPage(ctx, actx); err != nil {
				return Pending{}, false, err
			}
		}
		r := st.Queue[0]
		st.Queue = st.Queue[1:]
		return Pending{Recipient: r}, true, nil
	}
	if !st.FirstPassDone {
		if err := d.pump(ctx, actx, firstPass); err != nil {
			return nil, err
		}
		d.drainSignals(ctx)
		if !st.GaveUp && (!st.PagesDone || len(st.Queue) > 0) {
			return nil, workflow.NewContinueAsNewError(ctx, DeliveryWorkflow, DeliveryInput{Event: d.e, Tuning: d.tune, State: fromLegacy(st)})
		}
		st.FirstPassDone = true
	}

	// Retries: bursts with growing pauses, visible as backing_off.
	for len(st.Pending) > 0 && !st.GaveUp {
		d.setState(ctx, StateBackingOff)
		if d.waitForRetry(ctx) {
			continue
		}
		now := workflow.Now(ctx)
		var due, blocked []Pending
		var rest []Pending
		for _, p := range st.Pending {
			switch {
			case p.NextAt.After(now):
				rest = append(rest, p)
			case p.WaitsForPredecessor:
				blocked = append(blocked, p)
			default:
				due = append(due, p)
			}
		}
		if len(blocked) > 0 {
			c := legacyStep(actx, 30*time.Second, "Check the previous update's progress")
			var ps activities.PredecessorState
			if err := workflow.ExecuteActivity(c, a.PredecessorProgress, DeliveryWorkflowID(d.e.Predecessor), false).Get(ctx, &ps); err != nil {
				return nil, err
			}
			for _, p := range blocked {
				if !ps.Closed && slices.Contains(ps.Pending, p.Recipient.Key) {
					p.Waits++
					p.NextAt = now.Add(backoff(p.Waits, 2*time.Second))
					rest = append(rest, p)
					continue
				}
				p.WaitsForPredecessor = false
				due = append(due, p)
			}
		}
		st.Pending = rest
		d.due = due
		if len(d.due) > 0 {
			keys := make([]string, len(d.due))
			for i, p := range d.due {
				keys[i] = p.Recipient.Key
			}
			c := legacyStep(actx, 30*time.Second, "Check the subscriptions are still there")
			var still []string
			if err := workflow.ExecuteActivity(c, a.StillSubscribed, d.e, keys).Get(ctx, &still); err != nil {
				return nil, err
			}
			d.due = slices.DeleteFunc(d.due, func(p Pending) bool {
				if slices.Contains(still, p.Recipient.Key) {
					return false
				}
				st.Unsubscribed++
				return true
			})
		}
		d.setState(ctx, StateDelivering)
		retry := func() (Pending, bool, error) {
			if len(d.due) == 0 {
				return Pending{}, false, nil
			}
			p := d.due[0]
			d.due = d.due[1:]
			return p, true, nil
		}
		if err := d.pump(ctx, actx, retry); err != nil {
			return nil, err
		}
		// Not started (history full, or given up): back to pending.
		st.Pending = append(st.Pending, d.due...)
		d.due = nil
		d.drainSignals(ctx)
		if st.GaveUp {
			break
		}
		if d.historyFull(ctx) {
			return nil, workflow.NewContinueAsNewError(ctx, DeliveryWorkflow, DeliveryInput{Event: d.e, Tuning: d.tune, State: fromLegacy(st)})
		}
	}
	if st.GaveUp {
		for _, p := range st.Pending {
			d.fail(p.Recipient.Key, "given up by an operator; last error: "+p.LastError)
		}
		for _, r := range st.Queue {
			d.fail(r.Key, "given up by an operator before it was tried")
		}
		if !st.PagesDone {
			d.fail("(subscribers not yet read)", "given up by an operator before every page of subscribers was read")
		}
		st.Pending, st.Queue = nil, nil
	}

	p := d.progress()
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("**Finished:** delivered %d, already delivered %d, removed %d (chat gone), migrated %d, skipped %d, failed %d.",
		st.Delivered, st.AlreadyDelivered, st.Removed, st.Migrated, st.Skipped, st.FailedCount))
	if st.FailedCount > 0 {
		d.setState(ctx, StateFailed)
		p.State = StateFailed
		return p, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%d subscriber(s) could not be delivered to; see the failures in the result details", st.FailedCount),
			"DeliveryIncomplete", nil, p)
	}
	d.setState(ctx, StateDone)
	p.State = StateDone
	return p, nil
}

// step gives an activity call of the delivery its timeout and summary;
// it retries until it succeeds (its failures are infrastructure ones).
func legacyStep(actx workflow.Context, timeout time.Duration, summary string) workflow.Context {
	return workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: timeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}, Summary: summary})
}

// readPage reads the next page of recipients into the queue.
func (d *legacyDelivery) readPage(ctx, actx workflow.Context) error {
	st := d.st
	c := legacyStep(actx, time.Minute, "Read a page of subscribers")
	var page activities.RecipientPage
	if err := workflow.ExecuteActivity(c, a.Recipients, activities.PageInput{Event: d.e, Cursor: st.Cursor, Limit: d.tune.PageSize}).Get(ctx, &page); err != nil {
		return err
	}
	st.AlreadyDelivered += page.AlreadyDelivered
	now := workflow.Now(ctx)
	for _, r := range page.Recipients {
		if slices.Contains(st.SkipKeys, r.Key) {
			st.Skipped++
			continue
		}
		if slices.Contains(st.Blocked, r.Key) {
			st.Pending = append(st.Pending, Pending{Recipient: r, WaitsForPredecessor: true, NextAt: now.Add(2 * time.Second)})
			continue
		}
		st.Queue = append(st.Queue, r)
	}
	st.Cursor = page.Next
	st.PagesDone = page.Next == ""
	// The list view's counts follow the delivery page by page (versioned:
	// deliveries recorded before this change replay without it).
	if workflow.GetVersion(ctx, "page-counts", workflow.DefaultVersion, 1) >= 1 {
		_ = workflow.UpsertTypedSearchAttributes(ctx,
			AttrPendingCount.ValueSet(int64(d.pendingCount())),
			AttrFailedCount.ValueSet(int64(st.FailedCount)))
	}
	// Signals that came while the page was read apply to it.
	d.drainSignals(ctx)
	return nil
}

// pump keeps up to WindowSize sends in flight, starting the next as soon as
// one finishes, and writes the ledger once per WindowSize deliveries. It
// stops taking work when the history is full or an operator gave up, and
// returns when everything it started has finished.
func (d *legacyDelivery) pump(ctx, actx workflow.Context, next func() (Pending, bool, error)) error {
	st := d.st
	sctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{
		TaskQueue:           SendTaskQueue(workflow.GetInfo(ctx).TaskQueueName),
		StartToCloseTimeout: 90 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			MaximumAttempts: d.tune.SendAttempts, NonRetryableErrorTypes: []string{activities.ErrTypePermanentMessage},
		},
		Summary: "Send the notification to one subscriber",
	})
	sel := workflow.NewSelector(ctx)
	inFlight := 0
	var delivered []string
	flush := func() error {
		if len(delivered) == 0 {
			return nil
		}
		c := legacyStep(actx, 30*time.Second, fmt.Sprintf("Record %d delivery(ies) in the ledger", len(delivered)))
		if err := workflow.ExecuteActivity(c, a.RecordDelivered, activities.RecordInput{EventKey: d.e.Key, Keys: delivered}).Get(ctx, nil); err != nil {
			return err
		}
		delivered = nil
		return nil
	}
	started := 0
	var nextErr error
	for {
		// At least one send per run, so a run that starts near the history
		// limit still makes progress.
		for nextErr == nil && inFlight < d.tune.WindowSize && !st.GaveUp && (started == 0 || !d.historyFull(ctx)) {
			p, ok, err := next()
			if err != nil {
				// Finish what is in flight and record it before failing.
				nextErr = err
				break
			}
			if !ok {
				break
			}
			st.InFlight = append(st.InFlight, p.Recipient.Key)
			inFlight++
			started++
			f := workflow.ExecuteActivity(sctx, a.Send, activities.SendInput{EventKey: d.e.Key, Recipient: p.Recipient})
			sel.AddFuture(f, func(f workflow.Future) {
				inFlight--
				if i := slices.Index(st.InFlight, p.Recipient.Key); i >= 0 {
					st.InFlight = slices.Delete(st.InFlight, i, i+1)
				}
				var res activities.SendResult
				err := f.Get(ctx, &res)
				if d.settle(ctx, p, &res, err) {
					delivered = append(delivered, p.Recipient.Key)
				}
			})
		}
		if inFlight == 0 {
			if err := flush(); err != nil {
				return err
			}
			return nextErr
		}
		sel.Select(ctx)
		d.drainSignals(ctx)
		if len(delivered) >= d.tune.WindowSize {
			if err := flush(); err != nil && nextErr == nil {
				nextErr = err
			}
		}
	}
}

// settle records one send's outcome; true when it was delivered.
func (d *legacyDelivery) settle(ctx workflow.Context, p Pending, res *activities.SendResult, err error) bool {
	st := d.st
	if err != nil && slices.Contains(st.SkipKeys, p.Recipient.Key) {
		st.Skipped++ // skipped by an operator while its send was in flight
		return false
	}
	switch {
	case err == nil && res.Removed:
		st.Removed++
	case err == nil:
		st.Delivered++
		if res.MigratedTo != 0 {
			st.Migrated++
		}
		return true
	case isPermanent(err):
		d.fail(p.Recipient.Key, errorText(err))
	case retryAfter(err) > 0:
		// Telegram's flood limit outlasted the burst: wait exactly what it
		// asked, without using up the retry budget.
		p.LastError = errorText(err)
		p.NextAt = workflow.Now(ctx).Add(retryAfter(err))
		st.Pending = append(st.Pending, p)
	default:
		p.Bursts++
		p.LastError = errorText(err)
		if p.Bursts >= d.tune.MaxBursts {
			d.fail(p.Recipient.Key, fmt.Sprintf("gave up after %d bursts: %s", p.Bursts, p.LastError))
			return false
		}
		p.NextAt = workflow.Now(ctx).Add(backoff(p.Bursts, d.tune.BurstBackoff))
		st.Pending = append(st.Pending, p)
	}
	return false
}

// waitForRetry sleeps until the earliest pending retry or an operator
// signal. It returns true when a signal changed the pending set.
func (d *legacyDelivery) waitForRetry(ctx workflow.Context) bool {
	st := d.st
	next := st.Pending[0].NextAt
	worst := st.Pending[0]
	for _, p := range st.Pending {
		if p.NextAt.Before(next) {
			next = p.NextAt
		}
		if p.Bursts > worst.Bursts {
			worst = p
		}
	}
	wait := next.Sub(workflow.Now(ctx))
	if wait <= 0 {
		return false
	}
	reason := "waits for the previous update of this " + string(d.e.Kind) + " to reach it"
	if !worst.WaitsForPredecessor {
		reason = fmt.Sprintf("failed burst %d of %d with: %s", worst.Bursts, d.tune.MaxBursts, worst.LastError)
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf(
		"**Backing off:** %d subscriber(s) pending.\n\n**Worst:** subscriber `%s` %s\n\n**Next attempt:** %s",
		len(st.Pending), worst.Recipient.Key, reason, next.UTC().Format(time.RFC3339)))

	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	timer := workflow.NewTimerWithOptions(tctx, wait, workflow.TimerOptions{Summary: "Back off before the next burst of retries"})
	changed := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(timer, func(workflow.Future) {})
	sel.AddReceive(d.skipCh, func(c workflow.ReceiveChannel, _ bool) {
		var key string
		c.Receive(ctx, &key)
		d.skip(key)
		changed = true
	})
	sel.AddReceive(d.retryCh, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		d.retryNow(ctx)
		changed = true
	})
	sel.AddReceive(d.giveUpCh, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		d.st.GaveUp = true
		changed = true
	})
	sel.Select(ctx)
	workflow.SetCurrentDetails(ctx, "")
	return changed
}

func (d *legacyDelivery) drainSignals(ctx workflow.Context) {
	for {
		var key string
		if ok := d.skipCh.ReceiveAsync(&key); !ok {
			break
		}
		d.skip(key)
	}
	for d.retryCh.ReceiveAsync(nil) {
		d.retryNow(ctx)
	}
	for d.giveUpCh.ReceiveAsync(nil) {
		d.st.GaveUp = true
	}
}

func (d *legacyDelivery) skip(key string) {
	n := len(d.st.Pending) + len(d.st.Queue) + len(d.due)
	d.st.Pending = slices.DeleteFunc(d.st.Pending, func(p Pending) bool { return p.Recipient.Key == key })
	d.st.Queue = slices.DeleteFunc(d.st.Queue, func(r activities.Recipient) bool { return r.Key == key })
	d.due = slices.DeleteFunc(d.due, func(p Pending) bool { return p.Recipient.Key == key })
	d.st.Skipped += n - len(d.st.Pending) - len(d.st.Queue) - len(d.due)
	if !slices.Contains(d.st.SkipKeys, key) {
		// Not read yet, or its send is in flight: drop it when it comes.
		d.st.SkipKeys = append(d.st.SkipKeys, key)
	}
}

func (d *legacyDelivery) retryNow(ctx workflow.Context) {
	now := workflow.Now(ctx)
	for i := range d.st.Pending {
		d.st.Pending[i].NextAt = now
	}
}

func (d *legacyDelivery) fail(key, msg string) {
	d.st.FailedCount++
	if len(d.st.Failures) < maxFailuresKept {
		d.st.Failures = append(d.st.Failures, Failure{Key: key, Error: msg})
	}
}

func (d *legacyDelivery) setState(ctx workflow.Context, state string) {
	st := d.st
	if st.LastState == state && state != StateBackingOff {
		return
	}
	st.LastState = state
	_ = workflow.UpsertTypedSearchAttributes(ctx,
		AttrDeliveryState.ValueSet(state),
		AttrPendingCount.ValueSet(int64(d.pendingCount())),
		AttrFailedCount.ValueSet(int64(st.FailedCount)))
}

// pendingCount is every subscriber not settled yet that the delivery knows of.
func (d *legacyDelivery) pendingCount() int {
	return len(d.st.Queue) + len(d.st.Pending) + len(d.st.InFlight) + len(d.due)
}

func (d *legacyDelivery) historyFull(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetCurrentHistoryLength() > d.tune.MaxHistoryLength || info.GetContinueAsNewSuggested()
}

func (d *legacyDelivery) progress() *Progress {
	st := d.st
	p := &Progress{
		State: st.LastState, Delivered: st.Delivered, AlreadyDelivered: st.AlreadyDelivered,
		Pending: d.pendingCount(), Removed: st.Removed, Migrated: st.Migrated, Skipped: st.Skipped, Unsubscribed: st.Unsubscribed,
		Failed: st.FailedCount, FirstPassDone: st.FirstPassDone, Failures: st.Failures,
	}
	p.PendingKeys = append(p.PendingKeys, st.InFlight...)
	for _, q := range d.due {
		p.PendingKeys = append(p.PendingKeys, q.Recipient.Key)
	}
	worst := -1
	for _, q := range st.Pending {
		if q.LastError != "" && q.Bursts > worst {
			worst, p.LastError = q.Bursts, q.LastError
		}
	}
	if p.LastError == "" && len(st.Failures) > 0 {
		p.LastError = st.Failures[len(st.Failures)-1].Error
	}
	for _, q := range st.Pending {
		p.PendingKeys = append(p.PendingKeys, q.Recipient.Key)
		if p.NextAttempt.IsZero() || q.NextAt.Before(p.NextAttempt) {
			p.NextAttempt = q.NextAt
		}
	}
	if !p.FirstPassDone {
		// Not yet tried: successors must wait for the whole first pass anyway.
		for _, q := range st.Queue {
			p.PendingKeys = append(p.PendingKeys, q.Key)
		}
	}
	return p
}
