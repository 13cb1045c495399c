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

// dispatcher runs jobs concurrently, each key's (chat's) jobs one at a time
// in the order submitted. At most maxPending jobs are queued or running
// (submit blocks beyond that) and at most maxRunning run at once, so a slow
// chat holds one worker, never the others.
//
// A chat's load is bounded too: Telegram returns at most 100 updates after
// the oldest unfinished one, so a chat with a long queue would keep every
// other chat's updates unfetched. A droppable job submitted while its chat
// already has perKey jobs starts a flood: it is dropped, and so are the
// chat's droppable jobs still waiting and every droppable job of the chat
// until it has been quiet for floodQuiet. Only the running job then holds
// the chat's place.
type dispatcher struct {
	slots      chan struct{}
	running    chan struct{}
	perKey     int
	floodQuiet time.Duration
	now        func() time.Time

	mu     sync.Mutex
	queues map[int64][]job
	load   map[int64]int       // queued or running, per key
	floods map[int64]time.Time // last drop, per flooding key
	wg     sync.WaitGroup
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

func newDispatcher(maxPending, maxRunning, perKey int, floodQuiet time.Duration, now func() time.Time) *dispatcher {
	return &dispatcher{
		slots:      make(chan struct{}, maxPending),
		running:    make(chan struct{}, maxRunning),
		perKey:     perKey,
		floodQuiet: floodQuiet,
		now:        now,
		queues:     map[int64][]job{},
		load:       map[int64]int{},
		floods:     map[int64]time.Time{},
	}
}

// submit queues j behind the key's earlier jobs, or drops it (j.drop is
// called) when the key floods. ok is false if ctx ended first.
func (d *dispatcher) submit(ctx context.Context, key int64, j job) (a admission, ok bool) {
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

// admit decides whether a droppable job of key may be queued; starting a
// flood drops the key's waiting droppable jobs.
func (d *dispatcher) admit(key int64) admission {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if last, ok := d.floods[key]; ok {
		if now.Sub(last) < d.floodQuiet {
			d.floods[key] = now
			return dropped
		}
		delete(d.floods, key)
	}
	if d.perKey <= 0 || d.load[key] < d.perKey {
		return queued
	}
	d.floods[key] = now
	if len(d.floods) > 1000 {
		for k, t := range d.floods {
			if now.Sub(t) >= d.floodQuiet {
				delete(d.floods, k)
			}
		}
	}
	// Drop every waiting one: kept, they would hold the chat's place
	// (and every later chat's updates) for as long as their replies take.
	var drops []func()
	q := d.queues[key]
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
	return floodStarted
}

func (d *dispatcher) drain(key int64) {
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
