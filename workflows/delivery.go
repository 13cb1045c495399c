package workflows

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Tuning is what a delivery reads to pace itself. It travels in the
// workflow input (and through continue-as-new), never in package variables:
// a deploy that changes a default must not change the commands of a
// delivery already running. Zero fields take the defaults.
type Tuning struct {
	// PageSize is how many subscribers one Recipients activity reads.
	PageSize int `json:"page_size,omitempty"`
	// WindowSize bounds concurrent Send activities of one delivery (a
	// sliding window) and is the ledger's batch size.
	WindowSize int `json:"window_size,omitempty"`
	// MaxHistoryLength triggers continue-as-new well before Temporal's limits.
	MaxHistoryLength int `json:"max_history_length,omitempty"`
	// MaxBursts is how many bursts of retries a subscriber gets before the
	// delivery gives up on it (about six hours with BurstBackoff).
	MaxBursts int `json:"max_bursts,omitempty"`
	// BurstBackoff is the pause after the first failed burst; it doubles up to an hour.
	BurstBackoff time.Duration `json:"burst_backoff,omitempty"`
	// SendAttempts is the number of attempts within one burst.
	SendAttempts int32 `json:"send_attempts,omitempty"`
	// Recheck is how often a subscriber waiting for an earlier update of
	// the same incident or component is looked at again: it gets this
	// update within Recheck of the earlier one reaching it.
	Recheck time.Duration `json:"recheck,omitempty"`
	// SendTimeout bounds one send attempt (StartToCloseTimeout): longer
	// than the longest a send can take (HTTP_TIMEOUT is at most 30s; a move
	// to a supergroup sends twice).
	SendTimeout time.Duration `json:"send_timeout,omitempty"`
	// SendHeartbeat is the send's HeartbeatTimeout, and every step's of
	// the delivery (a page read, a ledger write): a send that takes long
	// heartbeats while it waits for Telegram, a step while it runs, so one
	// lost with a killed worker is retried after this, whatever
	// HTTP_TIMEOUT or the step's own time-out is.
	SendHeartbeat time.Duration `json:"send_heartbeat,omitempty"`
	// BatchSize is how many sends one SendBatch activity makes (at most
	// WindowSize): a fan-out costs an activity and a few history events a
	// batch, not a message (versionBatchSends).
	BatchSize int `json:"batch_size,omitempty"`
	// BatchWait: a send of a batch whose chat's next turn comes within it
	// waits for it in the batch; a later one goes back to the delivery
	// (a timer, then a Send of its own).
	BatchWait time.Duration `json:"batch_wait,omitempty"`
}

// DefaultTuning is what a delivery uses when its input leaves a field zero.
func DefaultTuning() Tuning {
	return Tuning{PageSize: 500, WindowSize: 2 * store.SendBatch, MaxHistoryLength: 8000, MaxBursts: 12, BurstBackoff: time.Minute,
		SendAttempts: 6, Recheck: 30 * time.Second, SendTimeout: 75 * time.Second, SendHeartbeat: 5 * time.Second,
		BatchSize: store.SendBatch, BatchWait: 3 * time.Second}
}

// SendWindowFor is the sends a delivery keeps in flight at rate calls a
// second: half a second's worth in whole batches, at least two. A batch
// goes round (scheduled, sent, its result in the history) in about 200 ms
// on a busy server, so two batches in flight held a fan-out near 240 a
// second whatever the rate; the ledger is written every two windows.
func SendWindowFor(rate float64) int {
	batches := int(math.Ceil(rate / 2 / store.SendBatch))
	return max(2, batches) * store.SendBatch
}

// withDefaults fills the zero fields from DefaultTuning.
func (t Tuning) withDefaults() Tuning {
	d := DefaultTuning()
	if t.PageSize <= 0 {
		t.PageSize = d.PageSize
	}
	if t.WindowSize <= 0 {
		t.WindowSize = d.WindowSize
	}
	if t.MaxHistoryLength <= 0 {
		t.MaxHistoryLength = d.MaxHistoryLength
	}
	if t.MaxBursts <= 0 {
		t.MaxBursts = d.MaxBursts
	}
	if t.BurstBackoff <= 0 {
		t.BurstBackoff = d.BurstBackoff
	}
	if t.SendAttempts <= 0 {
		t.SendAttempts = d.SendAttempts
	}
	if t.Recheck <= 0 {
		t.Recheck = d.Recheck
	}
	if t.SendTimeout <= 0 {
		t.SendTimeout = d.SendTimeout
	}
	if t.SendHeartbeat <= 0 {
		t.SendHeartbeat = d.SendHeartbeat
	}
	if t.BatchSize <= 0 {
		t.BatchSize = d.BatchSize
	}
	t.BatchSize = min(t.BatchSize, t.WindowSize)
	if t.BatchWait <= 0 {
		t.BatchWait = d.BatchWait
	}
	return t
}

// Operator actions: Updates (they answer what they did), with the names
// the runbook has always used (docs/operations.md).
const (
	UpdateSkip     = "skip-subscriber"
	UpdateRetryNow = "retry-now"
	UpdateGiveUp   = "give-up"
)

// Bounds of what a delivery carries, whatever the number of subscribers.
const (
	maxFailuresKept = 20
	maxErrorLen     = 300
	maxSkipKeys     = 100
	maxPendingShown = 20
	// versionBoundedState: pending subscribers in MongoDB, operator
	// Updates. Histories without it replay with legacyDeliveryWorkflow.
	versionBoundedState = "bounded-state"
	// versionCallPerSend: one Bot API call per Send activity, a card
	// update a chain of them, each after its chat's turn (activities/calls.go).
	versionCallPerSend = "call-per-send"
	// versionPrefetchPages: the next page of subscribers is read while the
	// last sends of the page before go out (no pause at every page).
	versionPrefetchPages = "prefetch-pages"
	// versionFoldLater: a chat's send of a step tells the later steps of
	// the story blocked behind it in one message (activities/together.go),
	// and the ledger records them told.
	versionFoldLater = "fold-later-steps"
	// versionTakeOver: a delivery takes over the earlier step's delivery
	// still waiting for its own predecessor (activities/supersede.go).
	versionTakeOver = "take-over-waiting"
	// maxTakeOvers bounds the waiting deliveries one takes over in a row.
	maxTakeOvers = 20
	// versionHandOver: a delivery offers its step to the earlier one
	// sending its first pass, whose sends to the chats it has not reached
	// yet then tell it too (activities/handover.go).
	versionHandOver = "hand-over-sending"
	// versionBatchSends: the sends go out in batches, one SendBatch
	// activity each (activities/batch.go); a send a batch hands back goes
	// on as a Send of its own.
	versionBatchSends = "batch-sends"
	// versionFlushBehind: the ledger is written after the window is
	// filled again, not before: the sends go on while it is written
	// (before, one batch was out during every write, and on a loaded
	// machine the write outlasted it: the fan-out stalled).
	versionFlushBehind = "flush-behind-sends"
)

// DeliveryInput starts a delivery; State is set when it continues as new.
type DeliveryInput struct {
	Event  event.Event    `json:"event"`
	Tuning Tuning         `json:"tuning,omitempty"`
	State  *DeliveryState `json:"state,omitempty"`
}

// Pending is a subscriber still to be delivered to (legacy state only:
// pending subscribers now live in MongoDB).
type Pending struct {
	Recipient           activities.Recipient `json:"recipient"`
	Bursts              int                  `json:"bursts"`
	Waits               int                  `json:"waits,omitempty"`
	LastError           string               `json:"last_error,omitempty"`
	NextAt              time.Time            `json:"next_at"`
	WaitsForPredecessor bool                 `json:"waits_for_predecessor,omitempty"`
}

// Failure is a subscriber the delivery gave up on.
type Failure struct {
	Key   string `json:"key"`
	Error string `json:"error"`
}

// DeliveryState is the durable progress of one delivery. Everything in it
// is bounded (a page, a window, a sample); the subscribers pending a retry
// are counted here and kept in MongoDB.
type DeliveryState struct {
	MessageReady       bool   `json:"message_ready,omitempty"`
	PredecessorChecked bool   `json:"predecessor_checked,omitempty"`
	Cursor             string `json:"cursor,omitempty"`
	PagesDone          bool   `json:"pages_done,omitempty"`
	// Queue is the rest of the page being sent (first pass or retry round).
	Queue []activities.Retry `json:"retry_queue,omitempty"`

	Delivered        int `json:"delivered"`
	AlreadyDelivered int `json:"already_delivered,omitempty"`
	Removed          int `json:"removed"`
	Migrated         int `json:"migrated,omitempty"`
	Skipped          int `json:"skipped,omitempty"`
	// Unsubscribed left (or changed filters) while their retry was pending.
	Unsubscribed int `json:"unsubscribed,omitempty"`
	FailedCount  int `json:"failed"`
	// Failures keeps the first few failures for operators.
	Failures []Failure `json:"failures,omitempty"`
	GaveUp   bool      `json:"gave_up,omitempty"`
	// InFlight are the subscribers of the window being sent: a later update
	// must wait for them as for pending ones.
	InFlight []string `json:"in_flight,omitempty"`
	// SkipKeys are subscribers an operator skipped: dropped when read, and
	// not retried if their send was in flight.
	SkipKeys []string `json:"skip_keys,omitempty"`
	// FirstPassDone: every subscriber has been tried once.
	FirstPassDone bool   `json:"first_pass_done,omitempty"`
	Runs          int    `json:"runs"`
	LastState     string `json:"last_state,omitempty"`

	// StartedAt: groups that move to a supergroup later are found at their
	// old place in the pages.
	StartedAt time.Time `json:"started_at,omitempty"`
	// PendingCount subscribers have a retry in MongoDB.
	PendingCount int                        `json:"pending_count,omitempty"`
	Summary      *activities.PendingSummary `json:"summary,omitempty"`
	// RoundDueBy is set while a retry round runs; RoundCursor pages it.
	RoundDueBy  time.Time `json:"round_due_by,omitempty"`
	RoundCursor string    `json:"round_cursor,omitempty"`
	RoundRead   bool      `json:"round_read,omitempty"` // every page of the round is read
	RetryAll    bool      `json:"retry_all,omitempty"`

	// Waiting: the delivery waits for its predecessor and has sent
	// nothing: a newer step of the story may take it over.
	Waiting bool `json:"waiting,omitempty"`
	// SupersededBy is the newer step that took this one over: it ends
	// without sending (the newer one tells this step).
	SupersededBy string `json:"superseded_by,omitempty"`
	// TookOver counts the earlier waiting steps this one took over.
	TookOver int `json:"took_over,omitempty"`
	// Newer is the newest step of the story handed over while this
	// delivery sends its first pass: every send started since tells it too.
	Newer *activities.Covered `json:"newer,omitempty"`
	// HandOverOffered: this delivery offered its step to the one before.
	HandOverOffered bool `json:"hand_over_offered,omitempty"`

	// Legacy fields: state of a run from before versionBoundedState.
	LegacyQueue   []activities.Recipient `json:"queue,omitempty"`
	LegacyPending []Pending              `json:"pending,omitempty"`
	Blocked       []string               `json:"blocked,omitempty"`
}

// Progress answers the "progress" query. Bounded: PendingKeys is a sample.
type Progress struct {
	State            string    `json:"state"`
	Delivered        int       `json:"delivered"`
	AlreadyDelivered int       `json:"already_delivered"`
	Pending          int       `json:"pending"`
	Removed          int       `json:"removed"`
	Migrated         int       `json:"migrated"`
	Skipped          int       `json:"skipped"`
	Unsubscribed     int       `json:"unsubscribed"`
	Failed           int       `json:"failed"`
	FirstPassDone    bool      `json:"first_pass_done"`
	PendingKeys      []string  `json:"pending_keys,omitempty"`
	Failures         []Failure `json:"failures,omitempty"`
	NextAttempt      time.Time `json:"next_attempt,omitempty"`
	// LastError is the latest Telegram error of the subscriber worst off.
	LastError string `json:"last_error,omitempty"`
	// Predecessor is the event this one waits for (later deliveries walk
	// back through it).
	Predecessor string `json:"predecessor,omitempty"`
	// SupersededBy took this delivery over; HandedOver is what it got.
	SupersededBy string                 `json:"superseded_by,omitempty"`
	HandedOver   *activities.Superseded `json:"handed_over,omitempty"`
	// Newer is the newer step handed over to this delivery while it sends
	// (activities/handover.go): its sends from then on tell it too.
	Newer string `json:"newer,omitempty"`
}

var a *activities.Activities

// DeliveryWorkflow delivers one event to every subscriber that wants it,
// exactly once each (see the ledger in activities.Recipients/RecordDelivered).
func DeliveryWorkflow(ctx workflow.Context, in DeliveryInput) (*Progress, error) {
	if workflow.GetVersion(ctx, versionBoundedState, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return legacyDeliveryWorkflow(ctx, in)
	}
	d := newDelivery(ctx, in)
	d.perCall = workflow.GetVersion(ctx, versionCallPerSend, workflow.DefaultVersion, 1) == 1
	d.prefetch = workflow.GetVersion(ctx, versionPrefetchPages, workflow.DefaultVersion, 1) == 1
	d.foldLater = d.perCall && workflow.GetVersion(ctx, versionFoldLater, workflow.DefaultVersion, 1) == 1
	d.takeOver = d.foldLater && workflow.GetVersion(ctx, versionTakeOver, workflow.DefaultVersion, 1) == 1
	d.handOver = d.takeOver && workflow.GetVersion(ctx, versionHandOver, workflow.DefaultVersion, 1) == 1
	d.batched = d.handOver && workflow.GetVersion(ctx, versionBatchSends, workflow.DefaultVersion, 1) == 1
	d.flushBehind = d.batched && workflow.GetVersion(ctx, versionFlushBehind, workflow.DefaultVersion, 1) == 1
	if err := d.setup(ctx); err != nil {
		return nil, err
	}
	return d.run(ctx)
}

type delivery struct {
	e     event.Event
	tune  Tuning
	st    *DeliveryState
	actx  workflow.Context
	batch outcomes
	// finished: the result is decided; operator actions are refused.
	finished bool
	// perCall: sends make one Bot API call each (versionCallPerSend).
	perCall bool
	// prefetch: the next page is read ahead (versionPrefetchPages);
	// nextPage is that read while it goes on.
	prefetch bool
	nextPage workflow.Future
	// foldLater: sends tell the later steps blocked behind them (versionFoldLater).
	foldLater bool
	// takeOver: the delivery takes over, and hands over, waiting steps
	// (versionTakeOver).
	takeOver bool
	// handOver: the delivery offers its step to the one sending before
	// it, and takes newer steps while it sends (versionHandOver).
	handOver bool
	// batched: sends go out in batches (versionBatchSends); batches is
	// how many are out.
	batched bool
	batches int
	// flushBehind: the ledger is written with the window full
	// (versionFlushBehind).
	flushBehind bool
}

// outcomes are the results of sends not yet written to MongoDB.
type outcomes struct {
	delivered []string
	retries   []activities.Retry
	settled   []string
	// cards sent whose record the send could not write (not counted in
	// size: they go with the deliveries they came with).
	cards []store.IncidentCard
	// covered: later steps the sends told too (their ledger is written first).
	covered []activities.CoveredBy
	// gaveUp: chats whose bursts are spent, for /why (they ride with the
	// batch's settled retries, not counted in size: no flush of their own).
	gaveUp []activities.GaveUp
}

func (o *outcomes) size() int { return len(o.delivered) + len(o.retries) + len(o.settled) }

func newDelivery(ctx workflow.Context, in DeliveryInput) *delivery {
	d := &delivery{e: in.Event, st: in.State, tune: in.Tuning.withDefaults()}
	if d.st == nil {
		d.st = &DeliveryState{LastState: StateDelivering, StartedAt: workflow.Now(ctx)}
	}
	d.st.Runs++
	d.actx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second, RetryPolicy: stepRetry,
	})
	return d
}

// stepRetry: the delivery's own steps retry until they succeed (their
// failures are infrastructure ones).
var stepRetry = &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}

func (d *delivery) run(ctx workflow.Context) (*Progress, error) {
	workflow.GetLogger(ctx).Info("delivery run started", "event", d.e.Key, "run", d.st.Runs)
	if !d.st.MessageReady && !d.st.PredecessorChecked {
		// Before the message is formatted: once, with the steps taken over
		// (workers cache a formatted message by its event).
		if err := d.takeOverWaiting(ctx); err != nil {
			return nil, err
		}
	}
	if err := d.prepare(ctx); err != nil {
		return nil, err
	}
	if err := d.offerHandOver(ctx); err != nil {
		return nil, err
	}
	if err := d.awaitPredecessors(ctx); err != nil {
		return nil, err
	}
	if d.st.SupersededBy != "" {
		return d.superseded(ctx)
	}
	if !d.st.FirstPassDone {
		done, err := d.firstPass(ctx)
		if err != nil {
			return nil, err
		}
		if !done {
			return nil, d.continueAsNew(ctx)
		}
		workflow.GetLogger(ctx).Info("first pass done", "event", d.e.Key, "delivered", d.st.Delivered, "pending", d.st.PendingCount)
	}
	for d.st.PendingCount > 0 && !d.st.GaveUp {
		if d.historyFull(ctx) {
			return nil, d.continueAsNew(ctx)
		}
		if err := d.backOff(ctx); err != nil {
			return nil, err
		}
		if d.st.GaveUp {
			break
		}
		if err := d.retryRound(ctx); err != nil {
			return nil, err
		}
	}
	return d.finish(ctx)
}

// step gives an activity call of the delivery its timeout and summary.
// A step lost with a killed worker is retried after SendHeartbeat, as a
// send is, not after its timeout: the window of sends waits on some steps
// (a ledger write, a page read), so a step's 30 s would stall the fan-out
// (the steps heartbeat while they run: activities.heartbeatWhile).
func (d *delivery) step(timeout time.Duration, summary string) workflow.Context {
	return workflow.WithActivityOptions(d.actx, workflow.ActivityOptions{StartToCloseTimeout: timeout,
		HeartbeatTimeout: d.tune.SendHeartbeat, RetryPolicy: stepRetry, Summary: summary})
}

// prepare formats the message once, and moves the pending subscribers of a
// legacy run's state to MongoDB.
func (d *delivery) prepare(ctx workflow.Context) error {
	st := d.st
	if !st.MessageReady {
		c := d.step(30*time.Second, "Format the notification")
		if err := workflow.ExecuteActivity(c, a.PrepareMessage, d.e).Get(ctx, nil); err != nil {
			return err
		}
		st.MessageReady = true
	}
	if len(st.LegacyPending) > 0 || len(st.LegacyQueue) > 0 {
		if st.StartedAt.IsZero() {
			st.StartedAt = workflow.Now(ctx)
		}
		for _, r := range st.LegacyQueue {
			st.Queue = append(st.Queue, activities.Retry{Recipient: r})
		}
		for _, p := range st.LegacyPending {
			d.batch.retries = append(d.batch.retries, activities.Retry{Recipient: p.Recipient, Bursts: p.Bursts, NextAt: p.NextAt, Error: capError(p.LastError)})
		}
		st.PendingCount += len(st.LegacyPending)
		st.LegacyPending, st.LegacyQueue, st.Blocked = nil, nil, nil
		return d.flush(ctx)
	}
	return nil
}

// awaitPredecessors waits until every earlier delivery of the same incident
// or component still running has tried everyone once. Operator actions are
// handled meanwhile; give-up ends the wait.
func (d *delivery) awaitPredecessors(ctx workflow.Context) error {
	if d.e.Predecessor == "" || d.st.PredecessorChecked {
		return nil
	}
	workflow.SetCurrentDetails(ctx, "Waiting until the previous updates ("+DeliveryWorkflowID(d.e.Predecessor)+" and earlier) have tried every subscriber once.")
	wctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	pctx := workflow.WithActivityOptions(wctx, workflow.ActivityOptions{
		StartToCloseTimeout: 24 * time.Hour, HeartbeatTimeout: 30 * time.Second, RetryPolicy: stepRetry,
		Summary: "Wait for the previous updates' first pass",
	})
	f := workflow.ExecuteActivity(pctx, a.PredecessorProgress, DeliveryWorkflowID(d.e.Predecessor), true)
	d.st.Waiting = d.takeOver
	if err := workflow.Await(ctx, func() bool { return f.IsReady() || d.st.GaveUp || d.st.SupersededBy != "" }); err != nil {
		return err
	}
	d.st.Waiting = false
	workflow.SetCurrentDetails(ctx, "")
	if d.st.GaveUp || d.st.SupersededBy != "" {
		return nil
	}
	if err := f.Get(ctx, nil); err != nil {
		return err
	}
	d.st.PredecessorChecked = true
	return nil
}

// takeOverWaiting takes over the deliveries of earlier steps that wait,
// as this one would, for the step before them: this delivery tells their
// steps (named in its message) and waits for what they waited for. The earliest step that is sending (or done) is waited for.
func (d *delivery) takeOverWaiting(ctx workflow.Context) error {
	if !d.takeOver || d.e.Predecessor == "" {
		return nil
	}
	took := 0
	for i := 0; i < maxTakeOvers && d.e.Predecessor != ""; i++ {
		c := d.step(time.Minute, "Take over the earlier update if it is still waiting")
		var s *activities.Superseded
		in := activities.SupersedeInput{WorkflowID: DeliveryWorkflowID(d.e.Predecessor), By: d.e.Key}
		if err := workflow.ExecuteActivity(c, a.SupersedeWaiting, in).Get(ctx, &s); err != nil {
			return err
		}
		if s == nil {
			break
		}
		d.e = activities.SupersededEvent(d.e, *s)
		took++
	}
	if took > 0 {
		d.st.TookOver += took
		workflow.GetLogger(ctx).Info("took over waiting updates", "event", d.e.Key, "took_over", took)
	}
	return nil
}

// offerHandOver offers this step, once and after its message is stored
// (the sends that tell it read it), to the delivery it waits for: if
// that one is sending its first pass, the chats it has not reached yet
// get this step in that pass (activities/handover.go). Whatever the
// answer, this delivery waits and sends as before: the chats told find
// themselves in its ledger.
func (d *delivery) offerHandOver(ctx workflow.Context) error {
	st := d.st
	if !d.handOver || d.e.Predecessor == "" || st.PredecessorChecked || st.HandOverOffered || !handsOver(d.e) {
		return nil
	}
	c := d.step(time.Minute, "Hand this update to the earlier one still sending")
	in := activities.HandOverInput{WorkflowID: DeliveryWorkflowID(d.e.Predecessor), OrderKey: d.e.OrderKey,
		Step: activities.Covered{Event: d.e.Key, Seq: d.e.Seq}}
	var took bool
	if err := workflow.ExecuteActivity(c, a.HandOverSending, in).Get(ctx, &took); err != nil {
		return err
	}
	st.HandOverOffered = true
	if took {
		workflow.GetLogger(ctx).Info("handed over to the delivery sending", "event", d.e.Key, "to", d.e.Predecessor)
	}
	return nil
}

// handsOver: e's step can be told in an earlier step's message: an
// incident's update (component changes have their bursts; maintenance
// updates and reminders keep their own path).
func handsOver(e event.Event) bool {
	return e.Kind == event.KindIncident && e.Reminder == nil && e.OrderKey != "" && e.Seq > 0
}

// validateHandOver accepts a newer step of the story while this delivery
// sends its first pass (again for the same step: its activity retried).
func (d *delivery) validateHandOver(_ workflow.Context, h activities.HandOver) error {
	st := d.st
	switch {
	case st.Newer != nil && h.Step.Event != "" && *st.Newer == h.Step:
		return nil
	case !d.handOver || !handsOver(d.e) || h.OrderKey != d.e.OrderKey || h.Step.Event == "":
		return errors.New("this delivery does not take that step")
	case h.Step.Seq <= d.e.Seq || (st.Newer != nil && h.Step.Seq <= st.Newer.Seq):
		return errors.New("that step is not newer than the one this delivery tells")
	case d.finished || st.GaveUp || st.SupersededBy != "" || st.Waiting || st.FirstPassDone || !st.MessageReady ||
		(d.e.Predecessor != "" && !st.PredecessorChecked):
		return errors.New("this delivery is not sending its first pass")
	}
	return nil
}

// takeHandOver makes every send started from now on tell the newer step.
func (d *delivery) takeHandOver(_ workflow.Context, h activities.HandOver) error {
	step := h.Step
	d.st.Newer = &step
	return nil
}

// validateSupersede accepts a newer step's take-over while this delivery
// waits and has sent nothing (again for the same newer step: its
// activity retried).
func (d *delivery) validateSupersede(_ workflow.Context, by string) error {
	switch {
	case d.st.SupersededBy == by && by != "":
		return nil
	case !d.takeOver || !d.st.Waiting || d.st.SupersededBy != "" || d.finished || d.st.GaveUp:
		return errors.New("this delivery is not waiting: it cannot be taken over")
	}
	return nil
}

// supersede hands this delivery's step over to the newer step by.
func (d *delivery) supersede(_ workflow.Context, by string) (activities.Superseded, error) {
	d.st.SupersededBy = by
	return activities.SupersededOf(d.e), nil
}

// superseded ends a delivery taken over by a newer step: nothing sent.
func (d *delivery) superseded(ctx workflow.Context) (*Progress, error) {
	d.finished = true
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return nil, err
	}
	workflow.SetCurrentDetails(ctx, "**Taken over** by the newer update "+DeliveryWorkflowID(d.st.SupersededBy)+", which tells this one too.")
	d.setState(ctx, StateSuperseded)
	p := d.progress()
	h := activities.SupersededOf(d.e)
	p.State, p.SupersededBy, p.HandedOver = StateSuperseded, d.st.SupersededBy, &h
	return p, nil
}

// firstPass tries every subscriber once, page by page, with a sliding
// window of sends. It returns false when the history is full first.
func (d *delivery) firstPass(ctx workflow.Context) (bool, error) {
	st := d.st
	pagesRead := 0
	next := func() (activities.Retry, bool, error) {
		for len(st.Queue) == 0 {
			if d.nextPage != nil { // read ahead
				if err := d.absorbPage(ctx); err != nil {
					return activities.Retry{}, false, err
				}
				continue
			}
			// Pages that yield nobody (all delivered, all filtered out)
			// still grow the history.
			if st.PagesDone || st.GaveUp || (pagesRead > 0 && d.historyFull(ctx)) {
				return activities.Retry{}, false, nil
			}
			pagesRead++
			if err := d.readPage(ctx); err != nil {
				return activities.Retry{}, false, err
			}
		}
		r := st.Queue[0]
		st.Queue = st.Queue[1:]
		if d.prefetch && d.nextPage == nil && len(st.Queue) < d.tune.WindowSize && !st.PagesDone && !st.GaveUp && !d.historyFull(ctx) {
			pagesRead++
			d.startPage(ctx)
		}
		return r, true, nil
	}
	if err := d.pump(ctx, next, false); err != nil {
		return false, err
	}
	if d.nextPage != nil { // read ahead when the history filled: it goes with the state
		if err := d.absorbPage(ctx); err != nil {
			return false, err
		}
	}
	if st.GaveUp {
		return true, nil
	}
	if !st.PagesDone || len(st.Queue) > 0 {
		return false, nil
	}
	st.FirstPassDone = true
	return true, d.summarize(ctx)
}

// readPage reads the next page of recipients into the queue.
func (d *delivery) readPage(ctx workflow.Context) error {
	d.startPage(ctx)
	return d.absorbPage(ctx)
}

// startPage starts reading the next page of recipients.
func (d *delivery) startPage(ctx workflow.Context) {
	st := d.st
	c := d.step(time.Minute, "Read a page of subscribers")
	in := activities.PageInput{Event: d.e, Cursor: st.Cursor, Limit: d.tune.PageSize, Since: st.StartedAt, Recheck: d.tune.Recheck}
	d.nextPage = workflow.ExecuteActivity(c, a.Recipients, in)
}

// absorbPage puts the page read into the queue.
func (d *delivery) absorbPage(ctx workflow.Context) error {
	st := d.st
	f := d.nextPage
	d.nextPage = nil
	var page activities.RecipientPage
	if err := f.Get(ctx, &page); err != nil {
		return err
	}
	st.AlreadyDelivered += page.AlreadyDelivered
	st.PendingCount += page.Blocked
	for _, r := range page.Recipients {
		if slices.Contains(st.SkipKeys, r.Key) {
			st.Skipped++
			continue
		}
		st.Queue = append(st.Queue, activities.Retry{Recipient: r})
	}
	st.Cursor = page.Next
	st.PagesDone = page.Next == ""
	// The list view's counts follow the delivery page by page.
	_ = workflow.UpsertTypedSearchAttributes(ctx,
		AttrPendingCount.ValueSet(int64(d.pendingCount())),
		AttrFailedCount.ValueSet(int64(st.FailedCount)))
	return nil
}

// backOff sleeps until the next retry is due, or an operator asks to
// retry now or give up.
func (d *delivery) backOff(ctx workflow.Context) error {
	st := d.st
	next := workflow.Now(ctx)
	if st.Summary != nil {
		next = st.Summary.NextAt
	}
	wait := next.Sub(workflow.Now(ctx))
	if wait <= 0 || st.RetryAll || !st.RoundDueBy.IsZero() {
		return nil
	}
	d.setState(ctx, StateBackingOff)
	workflow.SetCurrentDetails(ctx, d.backOffDetails(next))
	_, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: wait,
		TimerOptions: workflow.TimerOptions{Summary: "Back off before the next burst of retries"}},
		func() bool { return st.RetryAll || st.GaveUp })
	workflow.SetCurrentDetails(ctx, "")
	return err
}

func (d *delivery) backOffDetails(next time.Time) string {
	s := d.st.Summary
	reason := "waits for an earlier update of this " + string(d.e.Kind) + " to reach it"
	if !s.WorstBlocked {
		reason = fmt.Sprintf("failed burst %d of %d with: %s", s.WorstBursts, d.tune.MaxBursts, s.WorstError)
	}
	return fmt.Sprintf("**Backing off:** %d subscriber(s) pending.\n\n**Worst:** subscriber `%s` %s\n\n**Next attempt:** %s",
		d.st.PendingCount, s.WorstKey, reason, next.UTC().Format(time.RFC3339))
}

// retryRound sends, page by page, every retry due now (all of them after
// retry-now), then reads the new pending summary.
func (d *delivery) retryRound(ctx workflow.Context) error {
	st := d.st
	if st.RoundDueBy.IsZero() {
		st.RoundDueBy = workflow.Now(ctx)
		if st.RetryAll {
			st.RoundDueBy = st.RoundDueBy.Add(100 * 365 * 24 * time.Hour)
		}
		st.RetryAll = false
	}
	d.setState(ctx, StateDelivering)
	pagesRead := 0
	next := func() (activities.Retry, bool, error) {
		for len(st.Queue) == 0 {
			if st.RoundRead || st.GaveUp || (pagesRead > 0 && d.historyFull(ctx)) {
				return activities.Retry{}, false, nil
			}
			pagesRead++
			if err := d.readRetries(ctx); err != nil {
				return activities.Retry{}, false, err
			}
		}
		r := st.Queue[0]
		st.Queue = st.Queue[1:]
		return r, true, nil
	}
	if err := d.pump(ctx, next, true); err != nil {
		return err
	}
	if (st.RoundRead && len(st.Queue) == 0) || st.GaveUp {
		// Given up: the queue's retries are still in MongoDB, dropped as pending.
		st.RoundDueBy, st.RoundCursor, st.RoundRead, st.Queue = time.Time{}, "", false, nil
	}
	return d.summarize(ctx)
}

// readRetries reads the next page of due retries into the queue.
func (d *delivery) readRetries(ctx workflow.Context) error {
	st := d.st
	c := d.step(time.Minute, "Read a page of retries due")
	var page activities.RetryPage
	in := activities.RetryPageInput{Event: d.e, Cursor: st.RoundCursor, Limit: d.tune.PageSize, DueBy: st.RoundDueBy, Recheck: d.tune.Recheck}
	if err := workflow.ExecuteActivity(c, a.Retries, in).Get(ctx, &page); err != nil {
		return err
	}
	st.Unsubscribed += page.Unsubscribed
	st.PendingCount -= page.Unsubscribed
	for _, r := range page.Retries {
		if slices.Contains(st.SkipKeys, r.Recipient.Key) {
			continue // its retry was removed by the skip
		}
		// A send needs the recipient and the burst count only.
		st.Queue = append(st.Queue, activities.Retry{Recipient: r.Recipient, Bursts: r.Bursts})
	}
	st.RoundCursor = page.Next
	st.RoundRead = page.Next == ""
	return nil
}

// summarize reads the count, next due and worst of the pending retries.
func (d *delivery) summarize(ctx workflow.Context) error {
	c := d.step(30*time.Second, "Summarize the pending subscribers")
	var s activities.PendingSummary
	if err := workflow.ExecuteActivity(c, a.SummarizePending, d.e.Key).Get(ctx, &s); err != nil {
		return err
	}
	s.Sample = s.Sample[:min(len(s.Sample), maxPendingShown)]
	s.WorstError = capError(s.WorstError)
	d.st.Summary, d.st.PendingCount = &s, s.Count
	return nil
}

// pump keeps up to WindowSize sends in flight, starting the next as soon as
// one finishes (batched: as soon as a whole batch fits), and writes
// outcomes once per WindowSize. It stops taking work when the history is
// full or an operator gave up, and returns when everything it started has
// finished and is written.
func (d *delivery) pump(ctx workflow.Context, next func() (activities.Retry, bool, error), retrying bool) error {
	st := d.st
	sctx := d.sendContext(ctx)
	sel := workflow.NewSelector(ctx)
	inFlight, started := 0, 0
	var nextErr error
	for {
		// At least one send per run, so a run that starts near the history
		// limit still makes progress.
		var batch []queued
		for nextErr == nil && inFlight < d.tune.WindowSize && !st.GaveUp && (started == 0 || !d.historyFull(ctx)) {
			if d.batched && len(batch) == 0 && d.batches > 0 && d.tune.WindowSize-inFlight < d.tune.BatchSize {
				break // room for a whole batch first, while one is out
			}
			p, ok, err := next()
			if err != nil {
				nextErr = err // finish what is in flight and record it first
				break
			}
			if !ok {
				break
			}
			st.InFlight = append(st.InFlight, p.Recipient.Key)
			inFlight++
			started++
			q := queued{in: d.sendInput(p), done: func(res *activities.SendResult, err error) {
				inFlight--
				if i := slices.Index(st.InFlight, p.Recipient.Key); i >= 0 {
					st.InFlight = slices.Delete(st.InFlight, i, i+1)
				}
				d.settle(ctx, p, retrying, res, err)
			}}
			if !d.batched {
				d.send(ctx, sctx, sel, q.in, activities.SendResult{}, q.done)
				continue
			}
			if batch = append(batch, q); len(batch) == d.tune.BatchSize {
				d.sendBatch(ctx, sctx, sel, batch)
				batch = nil
			}
		}
		if len(batch) > 0 {
			d.sendBatch(ctx, sctx, sel, batch)
		}
		if inFlight == 0 {
			if err := d.flush(ctx); err != nil {
				return err
			}
			return nextErr
		}
		if d.flushBehind {
			d.flushDue(ctx, &nextErr) // the window full again: sends go on meanwhile
		}
		sel.Select(ctx)
		if !d.flushBehind {
			d.flushDue(ctx, &nextErr)
		}
	}
}

// flushDue writes the outcomes when a ledger write's worth waits; an
// error stops the pump taking work (nextErr), what is out finishes.
func (d *delivery) flushDue(ctx workflow.Context, nextErr *error) {
	if d.batch.size() < d.ledgerBatch() {
		return
	}
	if err := d.flush(ctx); err != nil && *nextErr == nil {
		*nextErr = err
	}
}

// ledgerBatch is how many outcomes a ledger write takes: a window's, or
// with batched sends two (the ledger is written half as often: its
// round trips a message halve; nothing waits on it before the pass ends).
func (d *delivery) ledgerBatch() int {
	if d.batched {
		return 2 * d.tune.WindowSize
	}
	return d.tune.WindowSize
}

// queued is a send the pump started: its input, and what settles it.
type queued struct {
	in   activities.SendInput
	done func(*activities.SendResult, error)
}

// sendInput is the first Send of p's chain.
func (d *delivery) sendInput(p activities.Retry) activities.SendInput {
	in := activities.SendInput{EventKey: d.e.Key, Recipient: p.Recipient}
	if d.perCall {
		in.PerCall, in.Ticket, in.Attempts = true, activities.BurstTicketOf(d.e.At, d.e.Key, p.Recipient.Key, d.e.Burst), d.tune.SendAttempts
		in.Burst = d.e.Burst
		in.FoldLater = d.foldLater
		in.Newer = d.st.Newer
	}
	return in
}

// sendBatch runs the sends of batch in one SendBatch; each goes on from
// its outcome as from a Send's result (goOn). A batch that fails as a
// whole (its attempts spent) leaves each send to a Send of its own.
func (d *delivery) sendBatch(ctx, sctx workflow.Context, sel workflow.Selector, batch []queued) {
	in := activities.SendBatchInput{WaitWithin: d.tune.BatchWait}
	for _, q := range batch {
		in.Sends = append(in.Sends, q.in)
	}
	f := workflow.ExecuteActivity(d.batchContext(ctx, len(batch)), a.SendBatch, in)
	d.batches++
	sel.AddFuture(f, func(f workflow.Future) {
		d.batches--
		var res activities.SendBatchResult
		if err := f.Get(ctx, &res); err != nil || len(res.Outcomes) != len(batch) {
			workflow.GetLogger(ctx).Warn("a batch of sends failed: each goes on alone", "event", d.e.Key, "error", err)
			for _, q := range batch {
				d.send(ctx, sctx, sel, q.in, activities.SendResult{}, q.done)
			}
			return
		}
		for i, o := range res.Outcomes {
			d.goOn(ctx, sctx, sel, batch[i], o)
		}
	})
}

// goOn takes one send from its outcome in a batch: settled, failed for
// its burst, or on with a Send (a failed call again after the retry
// policy's first pause or what Telegram asked; a later call at its time).
func (d *delivery) goOn(ctx, sctx workflow.Context, sel workflow.Selector, q queued, o activities.SendOutcome) {
	var acc activities.SendResult
	if o.Result != nil {
		acc = *o.Result
	}
	next, at := acc.Next, acc.NotBefore
	acc = activities.Accumulate(activities.SendResult{}, acc)
	switch f := o.Failure; {
	case f != nil && (f.Final || f.Retry == nil):
		q.done(&acc, f.Error())
		return
	case f != nil:
		if f.Moved != nil && acc.MigratedTo == 0 { // moved to a supergroup: retried there
			acc.MigratedTo, acc.NewKey = f.Moved.ChatID, f.Moved.Key
		}
		// The attempts left of the burst (the batch's was its first).
		next, at = f.Retry, workflow.Now(ctx).Add(max(time.Second, f.RetryAfter))
		sctx = workflow.WithRetryPolicy(sctx, *d.sendRetry(d.tune.SendAttempts - f.Retry.Failed))
	case next == nil:
		q.done(&acc, nil)
		return
	}
	in := *next
	wait := at.Sub(workflow.Now(ctx))
	if wait <= 0 {
		d.send(ctx, sctx, sel, in, acc, q.done)
		return
	}
	t := workflow.NewTimerWithOptions(ctx, wait, workflow.TimerOptions{Summary: "Wait for the chat's turn under Telegram's limits"})
	sel.AddFuture(t, func(workflow.Future) { d.send(ctx, sctx, sel, in, acc, q.done) })
}

// send runs one Send and, while its result names the next Send of the
// chain (a card update's reply, a chat's turn to come), that one at its
// time, on a timer: the waits for Telegram's limits are the delivery's,
// never inside an attempt. done gets the chain's result.
func (d *delivery) send(ctx, sctx workflow.Context, sel workflow.Selector, in activities.SendInput, acc activities.SendResult,
	done func(*activities.SendResult, error)) {
	f := workflow.ExecuteActivity(sctx, a.Send, in)
	sel.AddFuture(f, func(f workflow.Future) {
		var res activities.SendResult
		if err := f.Get(ctx, &res); err != nil {
			done(&acc, err)
			return
		}
		acc = activities.Accumulate(acc, res)
		if res.Next == nil {
			done(&acc, nil)
			return
		}
		next := *res.Next
		wait := res.NotBefore.Sub(workflow.Now(ctx))
		if wait <= 0 {
			d.send(ctx, sctx, sel, next, acc, done)
			return
		}
		t := workflow.NewTimerWithOptions(ctx, wait, workflow.TimerOptions{Summary: "Wait for the chat's turn under Telegram's limits"})
		sel.AddFuture(t, func(workflow.Future) { d.send(ctx, sctx, sel, next, acc, done) })
	})
}

// batchContext is a SendBatch's options: its sends wait for their slots
// and short turns inside it, so its time-out is theirs together; a batch
// lost with its worker misses its heartbeat and goes on from the last one.
func (d *delivery) batchContext(ctx workflow.Context, n int) workflow.Context {
	return workflow.WithActivityOptions(d.actx, workflow.ActivityOptions{
		TaskQueue:           SendTaskQueue(workflow.GetInfo(ctx).TaskQueueName),
		StartToCloseTimeout: 4*d.tune.SendTimeout + time.Duration(n)*d.tune.BatchWait,
		HeartbeatTimeout:    d.tune.SendHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: d.tune.SendAttempts,
		},
		Summary: fmt.Sprintf("Send the notification to %d subscribers", n),
	})
}

func (d *delivery) sendContext(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(d.actx, workflow.ActivityOptions{
		TaskQueue: SendTaskQueue(workflow.GetInfo(ctx).TaskQueueName),
		// Time-outs that match what a send can take: a send lost with a
		// killed worker misses its heartbeat and is retried after
		// SendHeartbeat; the wait for the rate limit happens before the
		// attempt starts (ScheduleToStart), not inside it.
		StartToCloseTimeout: d.tune.SendTimeout,
		HeartbeatTimeout:    d.tune.SendHeartbeat,
		RetryPolicy:         d.sendRetry(d.tune.SendAttempts),
		Summary:             "Send the notification to one subscriber",
	})
}

// sendRetry is a Send's retry policy: attempts (at least one) in a burst.
func (d *delivery) sendRetry(attempts int32) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
		MaximumAttempts: max(attempts, 1), NonRetryableErrorTypes: []string{activities.ErrTypePermanentMessage},
	}
}

// flush writes the ledger and the retries of the sends finished so far.
func (d *delivery) flush(ctx workflow.Context) error {
	b := d.batch
	if b.size() == 0 {
		return nil
	}
	c := d.step(30*time.Second, fmt.Sprintf("Record %d delivery(ies) and %d retry(ies)", len(b.delivered), len(b.retries)))
	in := activities.RecordInput{EventKey: d.e.Key, Keys: b.delivered, OrderKey: d.e.OrderKey, EventAt: d.e.At, Retries: b.retries, Settled: b.settled,
		Step: activities.StepOf(d.e), Cards: b.cards, Covered: b.covered, GaveUp: b.gaveUp}
	if err := workflow.ExecuteActivity(c, a.RecordDelivered, in).Get(ctx, nil); err != nil {
		return err
	}
	d.batch = outcomes{}
	return nil
}

// settle records one send's outcome in the batch and the counts. A retry
// (retrying) has its document in MongoDB: settled ones are removed.
func (d *delivery) settle(ctx workflow.Context, p activities.Retry, retrying bool, res *activities.SendResult, err error) {
	st, b := d.st, &d.batch
	hasRetry := retrying
	drop := func() {
		if hasRetry {
			b.settled = append(b.settled, p.Recipient.Key)
			st.PendingCount--
			hasRetry = false
		}
	}
	if err != nil && slices.Contains(st.SkipKeys, p.Recipient.Key) {
		st.Skipped++ // skipped by an operator while its send was in flight
		drop()
		return
	}
	if err == nil {
		drop()
		switch {
		case res.Removed:
			st.Removed++
		case res.Merged:
			st.Migrated++
		default:
			st.Delivered++
			b.delivered = append(b.delivered, p.Recipient.Key)
			if res.Card != nil {
				b.cards = append(b.cards, *res.Card)
			}
			if len(res.Covers) > 0 {
				key := p.Recipient.Key
				if res.MigratedTo != 0 {
					key = res.NewKey
				}
				b.covered = append(b.covered, activities.CoveredBy{Sub: key, Events: res.Covers})
			}
			if res.MigratedTo != 0 {
				st.Migrated++
				b.delivered = append(b.delivered, res.NewKey)
			}
		}
		return
	}
	if moved, ok := activities.MovedRecipient(err); ok {
		// The group became a supergroup before this failure: retry there,
		// under the new key (the old one is gone).
		drop()
		p.Recipient = moved
		st.Migrated++
	}
	msg := capError(errorText(err))
	switch {
	case isPermanent(err):
		drop()
		d.fail(p.Recipient.Key, msg)
		return
	case retryAfter(err) > 0:
		// Telegram's flood limit outlasted the burst: wait exactly what it
		// asked, without using up the retry budget.
		p.NextAt = workflow.Now(ctx).Add(retryAfter(err))
	default:
		p.Bursts++
		if p.Bursts >= d.tune.MaxBursts {
			drop()
			why := fmt.Sprintf("gave up after %d bursts: %s", p.Bursts, msg)
			d.fail(p.Recipient.Key, why)
			b.gaveUp = append(b.gaveUp, activities.GaveUp{Key: p.Recipient.Key, Why: why})
			return
		}
		p.NextAt = workflow.Now(ctx).Add(backoff(p.Bursts, d.tune.BurstBackoff))
	}
	p.Error = msg
	b.retries = append(b.retries, p)
	if !hasRetry {
		st.PendingCount++
	}
}

// finish gives up what is left when an operator asked, and returns the result.
func (d *delivery) finish(ctx workflow.Context) (*Progress, error) {
	st := d.st
	if st.GaveUp {
		if err := d.giveUpPending(ctx); err != nil {
			return nil, err
		}
	}
	d.finished = true
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return nil, err
	}
	p := d.progress()
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("**Finished:** delivered %d, already delivered %d, removed %d (chat gone), migrated %d, skipped %d, failed %d.",
		st.Delivered, st.AlreadyDelivered, st.Removed, st.Migrated, st.Skipped, st.FailedCount))
	workflow.GetLogger(ctx).Info("delivery finished", "event", d.e.Key, "delivered", st.Delivered, "failed", st.FailedCount)
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

// giveUpPending counts everyone not reached as failed and removes the
// delivery's retries, so that later updates stop waiting for it.
func (d *delivery) giveUpPending(ctx workflow.Context) error {
	st := d.st
	c := d.step(time.Minute, "Drop the pending subscribers (given up)")
	var dropped int
	if err := workflow.ExecuteActivity(c, a.DropPending, d.e.Key).Get(ctx, &dropped); err != nil {
		return err
	}
	if dropped > 0 {
		d.failMany(dropped, "(pending subscribers)", fmt.Sprintf("%d pending subscriber(s) given up by an operator", dropped))
	}
	for _, r := range st.Queue {
		d.fail(r.Recipient.Key, "given up by an operator before it was tried")
	}
	if !st.FirstPassDone && !st.PagesDone {
		d.fail("(subscribers not yet read)", "given up by an operator before every page of subscribers was read")
	}
	st.Queue, st.PendingCount = nil, 0
	return nil
}

func (d *delivery) continueAsNew(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	workflow.GetLogger(ctx).Info("delivery continues as new", "event", d.e.Key, "delivered", d.st.Delivered, "pending", d.st.PendingCount)
	return workflow.NewContinueAsNewError(ctx, DeliveryWorkflow, DeliveryInput{Event: d.e, Tuning: d.tune, State: d.st})
}

func (d *delivery) fail(key, msg string) { d.failMany(1, key, msg) }

func (d *delivery) failMany(n int, key, msg string) {
	d.st.FailedCount += n
	if len(d.st.Failures) < maxFailuresKept {
		d.st.Failures = append(d.st.Failures, Failure{Key: key, Error: capError(msg)})
	}
}

func (d *delivery) setState(ctx workflow.Context, state string) {
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
func (d *delivery) pendingCount() int {
	if !d.st.RoundDueBy.IsZero() {
		return d.st.PendingCount // a retry round's queue and sends have their retry still
	}
	return d.st.PendingCount + len(d.st.InFlight) + len(d.st.Queue)
}

func (d *delivery) historyFull(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetCurrentHistoryLength() > d.tune.MaxHistoryLength || info.GetContinueAsNewSuggested()
}

func (d *delivery) progress() *Progress {
	st := d.st
	p := &Progress{
		State: st.LastState, Delivered: st.Delivered, AlreadyDelivered: st.AlreadyDelivered,
		Pending: d.pendingCount(), Removed: st.Removed, Migrated: st.Migrated, Skipped: st.Skipped, Unsubscribed: st.Unsubscribed,
		Failed: st.FailedCount, FirstPassDone: st.FirstPassDone, Failures: st.Failures, Predecessor: d.e.Predecessor,
	}
	if st.Newer != nil {
		p.Newer = st.Newer.Event
	}
	add := func(k string) {
		if len(p.PendingKeys) < maxPendingShown && !slices.Contains(p.PendingKeys, k) {
			p.PendingKeys = append(p.PendingKeys, k)
		}
	}
	for _, k := range st.InFlight {
		add(k)
	}
	for _, q := range st.Queue {
		add(q.Recipient.Key)
	}
	for _, r := range d.batch.retries {
		add(r.Recipient.Key) // being written to MongoDB
	}
	if s := st.Summary; s != nil && st.PendingCount > 0 {
		for _, k := range s.Sample {
			add(k)
		}
		p.NextAttempt, p.LastError = s.NextAt, s.WorstError
	}
	if p.LastError == "" && len(st.Failures) > 0 {
		p.LastError = st.Failures[len(st.Failures)-1].Error
	}
	return p
}

// backoff doubles from base per burst, capped at an hour.
func backoff(bursts int, base time.Duration) time.Duration {
	d := base
	for i := 1; i < bursts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// retryAfter is the wait a 429 asked for, or 0.
func retryAfter(err error) time.Duration {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.Type() == activities.ErrTypeRateLimited {
		return max(ae.NextRetryDelay(), time.Second)
	}
	return 0
}

func isPermanent(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == activities.ErrTypePermanentMessage
}

// errorText is the innermost message: "activity error (...): cause".
func errorText(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Error()
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return "timed out: " + te.Error()
	}
	return err.Error()
}

// capError keeps an error text short: state and results stay bounded.
func capError(s string) string {
	r := []rune(s)
	if len(r) <= maxErrorLen {
		return s
	}
	return string(r[:maxErrorLen-1]) + "…"
}
