// Package dispatch runs the command bot's updates: each lane's (a sender
// in a chat) in order, lanes concurrently within bounds, and each lane
// within its budget. It knows chats, senders and budgets; nothing of
// Telegram's updates or the bot's commands.
package dispatch

import (
	"context"
	"sync"
	"time"
)

// Lane is who an update comes from: a sender in a chat. Each lane's
// updates are handled in order and budgeted on their own, so one member
// flooding a group slows only themselves, never the group's admins or
// the other members.
//
// A sender's button taps have a lane of their own: a tap must be answered
// within seconds, so it never waits behind the sender's commands.
type Lane struct {
	Chat   int64
	Sender int64 // user, or the chat posting as itself (0: a chat event)
	Taps   bool
}

// Rule is how much one Lane may ask: a burst of commands, then one
// every refill. A command beyond the burst that its next token reaches
// within Backlog waits for it (a person's steady pace is queued, never a
// flood); only what would wait longer, or would make the Lane's load
// exceed MaxLoad, is dropped. What is dropped costs nothing, so a sender
// who floods at any rate is still heard at the refill rate and never
// shut out for longer; MaxLoad bounds what one Lane has Queued or
// running (Telegram returns at most 100 updates after the oldest
// unfinished one).
type Rule struct {
	Burst   int
	Refill  time.Duration
	Backlog time.Duration // longest a command waits for its token (0: none waits)
	MaxLoad int
	// NoteEvery: a flooding Lane is told at most this often that its
	// commands were dropped.
	NoteEvery time.Duration
}

// Budget is a Lane's state under the rule.
type Budget struct {
	tokens float64   // below 1: the next command waits for its token
	at     time.Time // when tokens was computed
	noted  time.Time // last flood note
}

// Admit applies the rule to one droppable update of a Lane with load
// updates Queued or running. It returns the Lane's next state, whether
// the update is Queued, dropped, or dropped with a note due, and for a
// Queued one how long it waits for its token (0: none).
// The zero budget is a Lane not seen before: a full burst.
func (r Rule) Admit(b Budget, load int, now time.Time) (Budget, Admission, time.Duration) {
	if b.at.IsZero() {
		b.tokens = float64(r.Burst)
	} else if r.Refill > 0 && now.After(b.at) {
		b.tokens += float64(now.Sub(b.at)) / float64(r.Refill)
	}
	b.tokens = min(b.tokens, float64(r.Burst))
	b.at = now
	if r.Burst <= 0 {
		return b, Queued, 0
	}
	// A Lane told it floods waits for nothing: its commands waiting
	// would hold the update offset, and it is heard at the refill rate.
	flooding := !b.noted.IsZero() && now.Sub(b.noted) < r.NoteEvery
	if r.MaxLoad <= 0 || load < r.MaxLoad {
		if b.tokens >= 1 {
			b.tokens--
			return b, Queued, 0
		}
		if wait := time.Duration((1 - b.tokens) * float64(r.Refill)); !flooding && r.Backlog > 0 && wait <= r.Backlog {
			b.tokens--
			return b, Queued, wait
		}
	}
	if !flooding {
		// The waiting ones are dropped with this one (Dispatcher.admit):
		// their tokens come back.
		b.noted, b.tokens = now, max(b.tokens, 0)
		return b, FloodStarted, 0
	}
	return b, Dropped, 0
}

// Idle reports whether a Lane's budget is back to a full burst and its
// note long past: the state can be forgotten.
func (r Rule) Idle(b Budget, now time.Time) bool {
	full := r.Refill <= 0 || b.tokens+float64(now.Sub(b.at))/float64(r.Refill) >= float64(r.Burst)
	return full && now.Sub(b.noted) >= r.NoteEvery
}

// Dispatcher runs jobs concurrently, each Lane's (a sender in a chat)
// jobs one at a time in the order submitted. At most maxPending jobs are
// Queued or running (submit blocks beyond that) and at most maxRunning run
// at once, so a slow chat holds one worker, never the others; a job that
// waits on I/O shared with others (Aside) gives its worker up meanwhile.
//
// A Lane's load is bounded by its Rule (taps have a rule of their own):
// a droppable job beyond its budget waits for its token when that comes
// within the rule's Backlog, and is dropped (its Drop called instead of
// Run) beyond that or beyond MaxLoad, since Telegram returns at most 100
// updates after the oldest unfinished one and a long queue would keep
// every other chat's updates unfetched; the first drop of a flood drops
// the Lane's waiting droppable jobs too, and a flooding Lane queues none
// for its token, so only the running one holds the offset. Budgets are
// per sender: a member
// flooding a group never holds an admin's command, and dropped updates
// cost nothing, so the flooder is heard again at the rule's refill rate
// however fast they send.
type Dispatcher struct {
	slots   chan struct{}
	running chan struct{}
	rule    Rule
	taps    Rule
	now     func() time.Time

	mu      sync.Mutex
	queues  map[Lane][]Job
	load    map[Lane]int // Queued or running, per Lane
	budgets map[Lane]Budget
	wg      sync.WaitGroup
}

// Job is one unit of work. Drop, when set, makes it droppable: it is
// called instead of Run when a flood drops the job.
type Job struct {
	Run  func()
	Drop func()
	// after: the job waits for its sender's token until then.
	after time.Time
}

// Admission is what submit did with a job.
type Admission int

const (
	Queued       Admission = iota
	Dropped                // part of a flood already answered
	FloodStarted           // dropped, and the first of a flood: answer it once
)

// New makes a dispatcher whose commands' and taps' lanes both keep rule;
// SetTapRule gives taps their own.
func New(maxPending, maxRunning int, rule Rule, now func() time.Time) *Dispatcher {
	return &Dispatcher{
		slots:   make(chan struct{}, maxPending),
		running: make(chan struct{}, maxRunning),
		rule:    rule,
		taps:    rule,
		now:     now,
		queues:  map[Lane][]Job{},
		load:    map[Lane]int{},
		budgets: map[Lane]Budget{},
	}
}

// SetTapRule sets the rule of the taps' lanes (before the first Submit).
func (d *Dispatcher) SetTapRule(r Rule) { d.taps = r }

func (d *Dispatcher) ruleOf(key Lane) Rule {
	if key.Taps {
		return d.taps
	}
	return d.rule
}

// Submit queues j behind the Lane's earlier jobs, or drops it (j.Drop is
// called) when the Lane floods. ok is false if ctx ended first.
func (d *Dispatcher) Submit(ctx context.Context, key Lane, j Job) (a Admission, ok bool) {
	if j.Drop != nil {
		a, wait := d.admit(key)
		if a != Queued {
			j.Drop()
			return a, true
		}
		if wait > 0 {
			j.after = d.now().Add(wait)
		}
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return Queued, false
	}
	d.mu.Lock()
	q, active := d.queues[key]
	d.queues[key] = append(q, j)
	d.load[key]++
	if !active {
		d.wg.Add(1)
		go d.drain(key)
	}
	d.mu.Unlock()
	return Queued, true
}

// admit decides whether a droppable job of the Lane may be Queued, and
// how long it waits for its token.
func (d *Dispatcher) admit(key Lane) (Admission, time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	rule := d.ruleOf(key)
	b, a, wait := rule.Admit(d.budgets[key], d.load[key], now)
	d.budgets[key] = b
	if len(d.budgets) > 1000 {
		for k, b := range d.budgets {
			if d.load[k] == 0 && d.ruleOf(k).Idle(b, now) {
				delete(d.budgets, k)
			}
		}
	}
	if a != FloodStarted {
		return a, wait
	}
	// Drop every waiting one: kept, they would hold the update offset
	// (and with it every later chat's updates, Telegram returning only
	// 100 after the oldest unfinished one) for as long as their replies
	// take.
	q, active := d.queues[key]
	if !active {
		return a, 0
	}
	var drops []func()
	kept := q[:0]
	for _, w := range q {
		if w.Drop != nil {
			drops = append(drops, w.Drop)
		} else {
			kept = append(kept, w)
		}
	}
	clear(q[len(kept):])
	d.queues[key] = kept
	d.load[key] -= len(drops)
	for _, drop := range drops {
		<-d.slots
		drop()
	}
	return a, 0
}

func (d *Dispatcher) drain(key Lane) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		q := d.queues[key]
		if len(q) == 0 {
			delete(d.queues, key)
			d.mu.Unlock()
			return
		}
		j := q[0]
		q[0] = Job{}
		d.queues[key] = q[1:]
		d.mu.Unlock()

		// Waiting for the sender's token holds no worker.
		if wait := j.after.Sub(d.now()); !j.after.IsZero() && wait > 0 {
			time.Sleep(wait)
		}
		d.running <- struct{}{}
		j.Run()
		<-d.running
		d.mu.Lock()
		if d.load[key]--; d.load[key] <= 0 {
			delete(d.load, key)
		}
		d.mu.Unlock()
		<-d.slots
	}
}

type asideKey struct{}

// Within marks ctx as a job's of d (one holding a worker): Aside called
// with it gives the worker up while it waits.
func (d *Dispatcher) Within(ctx context.Context) context.Context {
	return context.WithValue(ctx, asideKey{}, d)
}

// Aside runs wait, which only waits for I/O shared with other jobs (one
// fetch of a status page many commands read), outside the bound on jobs
// running: a hanging page then holds the jobs waiting for it, never the
// workers every other chat's commands need. The job's Lane stays busy.
func Aside(ctx context.Context, wait func()) {
	d, ok := ctx.Value(asideKey{}).(*Dispatcher)
	if !ok {
		wait()
		return
	}
	<-d.running
	defer func() { d.running <- struct{}{} }()
	wait()
}

// Wait blocks until every submitted job finished or ctx ends; it reports
// whether all finished.
func (d *Dispatcher) Wait(ctx context.Context) bool {
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// Class says whose share of a chat's message budget a message uses:
// urgent ones are the ones a chat's admins wait for (internal/bot's
// pacer lets them go first), casual ones anyone can ask for.
type Class int

const (
	Casual Class = iota
	Urgent
)

// Sleep waits d; false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
