package bot

import (
	"context"
	"sync"
	"time"
)

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
