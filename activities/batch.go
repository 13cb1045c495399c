package activities

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// A batch of sends in one activity (issue 29, item 6): a fan-out's sends
// cost an activity and a few history events per batch instead of per
// message, and the sends of a batch claim their chats' turns and write
// their /why records together (store: groupinsert.go), a round trip or two
// for the batch instead of two per message.
//
// Each send of the batch runs its chain of calls as the delivery would
// (sendStep, one call per step, the chat's turn first): a next call due
// within WaitWithin is waited for in the batch; a later one, a failure
// that leaves the burst attempts, or a worker stopping hands the send back
// to the delivery, which goes on with it as with a Send's result (a timer,
// then a Send). The batch heartbeats what each send did: a batch retried
// (its worker died) goes on from there, so a send told before the last
// heartbeat is not sent again. What may be sent twice is what any Send
// risks, a call whose answer was lost, for at most the sends of a batch.

// SendBatchInput is a batch of one delivery's sends.
type SendBatchInput struct {
	Sends []SendInput `json:"sends"`
	// WaitWithin: a send whose next call is due within this waits for it
	// in the batch; a later one goes back to the delivery.
	WaitWithin time.Duration `json:"wait_within,omitempty"`
}

// SendOutcome is what became of one send of a batch, in the order of the
// input: a result as a Send's (Result.Next set: the delivery goes on with
// that Send at Result.NotBefore), or a failure.
type SendOutcome struct {
	Result  *SendResult  `json:"result,omitempty"`
	Failure *SendFailure `json:"failure,omitempty"`
}

// SendFailure is a send's call that failed in the batch; Result (the
// outcome's) is what the chain did before it.
type SendFailure struct {
	Message    string        `json:"message"`
	Type       string        `json:"type"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Final: the failure ends the send's burst (permanent, or its last
	// attempt); otherwise Retry is the call to try again.
	Final bool       `json:"final,omitempty"`
	Moved *Recipient `json:"moved,omitempty"`
	Retry *SendInput `json:"retry,omitempty"`
}

// Error is the failure as the Send activity would have failed: what the
// delivery settles a final one with.
func (f SendFailure) Error() error {
	opts := temporal.ApplicationErrorOptions{NonRetryable: f.Final, NextRetryDelay: f.RetryAfter}
	if f.Moved != nil {
		opts.Details = []any{*f.Moved}
	}
	return temporal.NewApplicationErrorWithOptions(f.Message, f.Type, opts)
}

// SendBatchResult has one outcome per send, in the input's order.
type SendBatchResult struct {
	Outcomes []SendOutcome `json:"outcomes"`
}

// batchProgress is a batch's heartbeat: each send's outcome so far, or
// the call it is at and what its chain did before.
type batchProgress struct {
	Done []bool        `json:"done"`
	At   []SendInput   `json:"at"`
	Acc  []SendOutcome `json:"acc"`
}

// left is how many sends are still to finish.
func (p *batchProgress) left() int {
	n := 0
	for _, done := range p.Done {
		if !done {
			n++
		}
	}
	return n
}

// SendBatch sends each of in.Sends (see above).
func (a *Activities) SendBatch(ctx context.Context, in SendBatchInput) (*SendBatchResult, error) {
	n := len(in.Sends)
	p := batchProgress{Done: make([]bool, n), At: append([]SendInput(nil), in.Sends...), Acc: make([]SendOutcome, n)}
	if activity.HasHeartbeatDetails(ctx) {
		var was batchProgress
		if err := activity.GetHeartbeatDetails(ctx, &was); err == nil && len(was.Done) == n && len(was.At) == n && len(was.Acc) == n {
			p = was
		}
	}
	var mu sync.Mutex
	snapshot := func() batchProgress {
		mu.Lock()
		defer mu.Unlock()
		return batchProgress{Done: append([]bool(nil), p.Done...), At: append([]SendInput(nil), p.At...), Acc: append([]SendOutcome(nil), p.Acc...)}
	}
	fates := &fateBuffer{}
	stopBeat := a.heartbeatProgress(ctx, snapshot, func() { fates.writeOlder(ctx, a, fatesKept) })
	defer stopBeat()
	defer fates.write(ctx, a)
	bctx := context.WithValue(inBatch(ctx), fatesKey{}, fates)
	if a.Budget != nil { // the batch's sends lease together
		var done func()
		bctx, done = a.Budget.Expect(bctx, p.left())
		defer done()
	}
	stop := activity.GetWorkerStopChannel(ctx)
	var wg sync.WaitGroup
	for i := range n {
		mu.Lock()
		done, at, acc := p.Done[i], p.At[i], p.Acc[i]
		mu.Unlock()
		if done {
			continue
		}
		wg.Go(func() {
			a.batchChain(bctx, stop, in.WaitWithin, at, acc, func(next SendInput, acc SendOutcome, finished bool) {
				mu.Lock()
				defer mu.Unlock()
				p.At[i], p.Acc[i], p.Done[i] = next, acc, finished
			})
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := snapshot()
	return &SendBatchResult{Outcomes: out.Acc}, nil
}

// batchChain runs one send's chain from the call in, with acc what it did
// before; note records each step (finished: the outcome is final for the
// batch: settled, handed back, or failed).
func (a *Activities) batchChain(ctx context.Context, stop <-chan struct{}, within time.Duration, in SendInput, acc SendOutcome,
	note func(next SendInput, acc SendOutcome, finished bool)) {
	var sofar SendResult
	if acc.Result != nil {
		sofar = *acc.Result
	}
	handBack := func(next SendInput, at time.Time) {
		r := sofar
		r.Next, r.NotBefore = &next, at
		note(next, SendOutcome{Result: &r}, true)
	}
	for range maxCalls {
		select {
		case <-stop: // draining: the delivery goes on with it elsewhere
			handBack(in, a.now())
			return
		default:
		}
		res, err := a.sendStep(ctx, in)
		if err != nil {
			// As the Send activity's failures are logged by the SDK.
			activity.GetLogger(ctx).Warn("a send of the batch failed", "subscriber", in.Recipient.Key, "error", err)
			note(in, SendOutcome{Result: &sofar, Failure: FailedInBatch(err, in)}, true)
			return
		}
		sofar = Accumulate(sofar, *res)
		if res.Next == nil {
			r := sofar
			note(in, SendOutcome{Result: &r}, true)
			return
		}
		next := *res.Next
		wait := res.NotBefore.Sub(a.now())
		if wait > within {
			handBack(next, res.NotBefore)
			return
		}
		note(next, SendOutcome{Result: &sofar}, false)
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-stop:
				t.Stop()
				handBack(next, res.NotBefore)
				return
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		in = next
	}
	// Still waiting for its turn after maxCalls steps (a slot of a slow
	// budget, a busy group): the delivery goes on with it, as with any
	// send whose turn is further off. Failing it here cost chats a burst
	// and a minute's backoff at 3 calls a second.
	handBack(in, a.now())
}

// Accumulate is what a chain of Sends did after one more Send's result:
// a move to a supergroup is the first Send's, a card left to record the
// latest one's (a batch's chains, sendWhole, and the delivery's chains).
func Accumulate(acc, res SendResult) SendResult {
	if res.MigratedTo == 0 {
		res.MigratedTo, res.NewKey = acc.MigratedTo, acc.NewKey
	}
	if res.Card == nil && !res.CardRecorded {
		res.Card = acc.Card
	}
	res.Next, res.NotBefore = nil, time.Time{}
	return res
}

// FailedInBatch is a failed call of in as the delivery needs it: final,
// or the call to try again with this failure counted in its burst.
func FailedInBatch(err error, in SendInput) *SendFailure {
	f := &SendFailure{Message: err.Error(), Type: ErrTypeTransient}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		f.Message, f.Type, f.RetryAfter, f.Final = ae.Message(), ae.Type(), ae.NextRetryDelay(), ae.NonRetryable()
		var moved Recipient
		if ae.HasDetails() && ae.Details(&moved) == nil && moved.Key != "" {
			f.Moved = &moved
		}
	}
	if f.Type == ErrTypePermanentMessage {
		f.Final = true
	}
	if !f.Final {
		retry := in
		retry.Failed++
		if f.Moved != nil {
			retry.Recipient, retry.Moved, retry.Step = *f.Moved, true, nil
		}
		f.Retry = &retry
	}
	return f
}

// batchHeartbeatEvery: a batch runs for seconds and heartbeats its
// progress this often (the worker sends it at once: worker.HeartbeatFlush),
// well within the heartbeat time-out even when the machine is loaded; and
// a batch retried resends at most the second since.
const batchHeartbeatEvery = time.Second

// heartbeatProgress records the batch's progress every batchHeartbeatEvery,
// and then runs also (the fates noted so far written).
func (a *Activities) heartbeatProgress(ctx context.Context, progress func() batchProgress, also func()) (stop func()) {
	return tickWhile(ctx, batchHeartbeatEvery, func() {
		activity.RecordHeartbeat(ctx, progress())
		also()
	})
}

type batchKey struct{}

// inBatch marks a batch's context: a send's attempt is the batch's first
// whatever the batch activity's attempt (a failure is counted in
// SendInput.Failed, carried to the Send that retries it).
func inBatch(ctx context.Context) context.Context { return context.WithValue(ctx, batchKey{}, true) }

// attemptOf is the attempt of the call ctx makes: the activity's, or the
// first within a batch.
func attemptOf(ctx context.Context) int32 {
	if b, _ := ctx.Value(batchKey{}).(bool); b {
		return 1
	}
	return activity.GetInfo(ctx).Attempt
}
