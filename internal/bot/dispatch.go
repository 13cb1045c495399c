package bot

import (
	"context"
	"sync"
	"time"
)

// tracker knows which updates are in flight and computes the watermark:
// the highest update ID such that it and every update before it were
// handled. That is what gets persisted and what the next getUpdates
// starts after, so a restart neither loses an update nor replays one that
// was fully handled and recorded.
//
// Telegram may restart its IDs below the watermark (after a week without
// updates, or for a new token): rebase starts a new ID space, and the
// updates still in flight from the old one (another generation) no longer
// count.
type tracker struct {
	mu         sync.Mutex
	gen        int
	inflight   map[int64]struct{}
	maxStarted int64
	changed    chan struct{} // signalled (cap 1) whenever an update finishes
}

func newTracker(last int64) *tracker {
	return &tracker{inflight: map[int64]struct{}{}, maxStarted: last, changed: make(chan struct{}, 1)}
}

// rebase follows Telegram's new ID space: last is the ID before the first
// new update.
func (t *tracker) rebase(last int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen++
	t.inflight = map[int64]struct{}{}
	t.maxStarted = last
}

// isNew reports whether the update was not dispatched before.
func (t *tracker) isNew(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return id > t.maxStarted
}

// start marks an update as dispatched and in flight; the generation it
// returns goes back with done or abort.
func (t *tracker) start(id int64) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight[id] = struct{}{}
	if id > t.maxStarted {
		t.maxStarted = id
	}
	return t.gen
}

// abort undoes start for the latest update when it could not be handed
// over (shutdown): it will be fetched again after a restart.
func (t *tracker) abort(id int64, gen int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen != t.gen {
		return
	}
	delete(t.inflight, id)
	if id == t.maxStarted {
		t.maxStarted = id - 1
	}
}

// done marks an update as handled.
func (t *tracker) done(id int64, gen int) {
	t.mu.Lock()
	if gen == t.gen {
		delete(t.inflight, id)
	}
	t.mu.Unlock()
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// watermark is the last update ID up to which everything was handled.
func (t *tracker) watermark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.maxStarted
	for id := range t.inflight {
		if id-1 < w {
			w = id - 1
		}
	}
	return w
}

// dispatcher runs jobs concurrently, each lane's (a sender in a chat)
// jobs one at a time in the order submitted. At most maxPending jobs are
// queued or running (submit blocks beyond that) and at most maxRunning run
// at once, so a slow chat holds one worker, never the others.
//
// A lane's load is bounded by its floodRule: a droppable job beyond its
// budget is dropped (its drop called instead of run), and at most maxLoad
// wait, since Telegram returns at most 100 updates after the oldest
// unfinished one and a long queue would keep every other chat's updates
// unfetched; the first drop of a flood drops the lane's waiting droppable
// jobs too, so only the running one holds the offset. Budgets
// are per sender: a member flooding a group never holds an admin's
// command, and dropped updates cost nothing, so the flooder is heard
// again at the rule's refill rate however fast they send.
type dispatcher struct {
	slots   chan struct{}
	running chan struct{}
	rule    floodRule
	now     func() time.Time

	mu      sync.Mutex
	queues  map[lane][]job
	load    map[lane]int // queued or running, per lane
	budgets map[lane]laneBudget
	wg      sync.WaitGroup
}

// job is one unit of work. drop, when set, makes it droppable: it is
// called instead of run when a flood drops the job.
type job struct {
	run  func()
	drop func()
}

// admission is what submit did with a job.
type admission int

const (
	queued       admission = iota
	dropped                // part of a flood already answered
	floodStarted           // dropped, and the first of a flood: answer it once
)

func newDispatcher(maxPending, maxRunning int, rule floodRule, now func() time.Time) *dispatcher {
	return &dispatcher{
		slots:   make(chan struct{}, maxPending),
		running: make(chan struct{}, maxRunning),
		rule:    rule,
		now:     now,
		queues:  map[lane][]job{},
		load:    map[lane]int{},
		budgets: map[lane]laneBudget{},
	}
}

// submit queues j behind the lane's earlier jobs, or drops it (j.drop is
// called) when the lane floods. ok is false if ctx ended first.
func (d *dispatcher) submit(ctx context.Context, key lane, j job) (a admission, ok bool) {
	if j.drop != nil {
		if a := d.admit(key); a != queued {
			j.drop()
			return a, true
		}
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return queued, false
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
	return queued, true
}

// admit decides whether a droppable job of the lane may be queued;
// starting a flood drops the lane's waiting droppable jobs.
func (d *dispatcher) admit(key lane) admission {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	b, a := d.rule.admit(d.budgets[key], d.load[key], now)
	d.budgets[key] = b
	if len(d.budgets) > 1000 {
		for k, b := range d.budgets {
			if d.load[k] == 0 && d.rule.idle(b, now) {
				delete(d.budgets, k)
			}
		}
	}
	if a != floodStarted {
		return a
	}
	// Drop every waiting one: kept, they would hold the update offset
	// (and with it every later chat's updates, Telegram returning only
	// 100 after the oldest unfinished one) for as long as their replies
	// take.
	q, active := d.queues[key]
	if !active {
		return a
	}
	var drops []func()
	kept := q[:0]
	for _, w := range q {
		if w.drop != nil {
			drops = append(drops, w.drop)
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
	return a
}

func (d *dispatcher) drain(key lane) {
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
		q[0] = job{}
		d.queues[key] = q[1:]
		d.mu.Unlock()

		d.running <- struct{}{}
		j.run()
		<-d.running
		d.mu.Lock()
		if d.load[key]--; d.load[key] <= 0 {
			delete(d.load, key)
		}
		d.mu.Unlock()
		<-d.slots
	}
}

// wait blocks until every submitted job finished or ctx ends; it reports
// whether all finished.
func (d *dispatcher) wait(ctx context.Context) bool {
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
