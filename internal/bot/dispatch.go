package bot

import (
	"context"
	"sync"
)

// tracker knows which updates are in flight and computes the watermark:
// the highest update ID such that it and every update before it were
// handled. That is what gets persisted and what the next getUpdates
// starts after, so a restart neither loses an update nor replays one that
// was fully handled and recorded.
type tracker struct {
	mu         sync.Mutex
	inflight   map[int64]struct{}
	maxStarted int64
	changed    chan struct{} // signalled (cap 1) whenever an update finishes
}

func newTracker(last int64) *tracker {
	return &tracker{inflight: map[int64]struct{}{}, maxStarted: last, changed: make(chan struct{}, 1)}
}

// isNew reports whether the update was not dispatched before.
func (t *tracker) isNew(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return id > t.maxStarted
}

// start marks an update as dispatched and in flight.
func (t *tracker) start(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight[id] = struct{}{}
	if id > t.maxStarted {
		t.maxStarted = id
	}
}

// abort undoes start for the latest update when it could not be handed
// over (shutdown): it will be fetched again after a restart.
func (t *tracker) abort(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.inflight, id)
	if id == t.maxStarted {
		t.maxStarted = id - 1
	}
}

// done marks an update as handled.
func (t *tracker) done(id int64) {
	t.mu.Lock()
	delete(t.inflight, id)
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

// dispatcher runs jobs concurrently, each key's jobs one at a time in the
// order submitted. At most maxPending jobs are queued or running (submit
// blocks beyond that) and at most maxRunning run at once, so a slow chat
// holds one worker, never the others.
type dispatcher struct {
	slots   chan struct{}
	running chan struct{}

	mu     sync.Mutex
	queues map[int64][]job
	wg     sync.WaitGroup
}

type job func()

func newDispatcher(maxPending, maxRunning int) *dispatcher {
	return &dispatcher{
		slots:   make(chan struct{}, maxPending),
		running: make(chan struct{}, maxRunning),
		queues:  map[int64][]job{},
	}
}

// submit queues j behind the key's earlier jobs; false if ctx ended first.
func (d *dispatcher) submit(ctx context.Context, key int64, j job) bool {
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	d.mu.Lock()
	q, active := d.queues[key]
	d.queues[key] = append(q, j)
	if !active {
		d.wg.Add(1)
		go d.drain(key)
	}
	d.mu.Unlock()
	return true
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
		q[0] = nil
		d.queues[key] = q[1:]
		d.mu.Unlock()

		d.running <- struct{}{}
		j()
		<-d.running
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
