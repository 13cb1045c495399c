package store

import (
	"context"
	"testing"
	"time"
)

// A process's first measure of the server's clock is waited for; a later
// one runs beside the lease that found it due, which goes on with the
// offset it has. Waited for, the three hellos held a batch's lease back:
// with five workers on a loaded machine a batch's first slots went by
// unused about every ten seconds (0.928 of the rate).
func TestOnlyTheFirstClockMeasureIsWaitedFor(t *testing.T) {
	release := make(chan struct{})
	reads := make(chan struct{}, 16)
	server := time.Now().Add(3 * time.Second) // the server's clock, 3 s ahead
	b := &SendBudget{clock: time.Now, interval: time.Millisecond, readClock: func(ctx context.Context) (time.Time, error) {
		reads <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
		return server, nil
	}}
	ctx := context.Background()

	first := make(chan error, 1)
	go func() { first <- b.syncClock(ctx) }()
	<-reads
	select {
	case err := <-first:
		t.Fatalf("the first measure returned before the server answered: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for len(reads) > 0 { // its other two hellos
		<-reads
	}
	if b.offset < 2*time.Second {
		t.Fatalf("offset %v after the first measure, want about 3 s", b.offset)
	}

	// Half a minute on: due again, and the server slow to answer.
	release = make(chan struct{})
	b.mu.Lock()
	b.synced = b.clock().Add(-budgetSyncEvery - time.Second)
	was := b.synced
	b.mu.Unlock()
	server = server.Add(time.Second)
	start := time.Now()
	if err := b.syncClock(ctx); err != nil {
		t.Fatal(err)
	}
	<-reads // the measure is under way
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("a due measure held the lease %v", took)
	}
	if err := b.syncClock(ctx); err != nil { // a second lease meanwhile starts no second measure
		t.Fatal(err)
	}
	select {
	case <-reads:
		t.Fatal("two measures under way at once")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	for deadline := time.Now().Add(10 * time.Second); ; {
		b.mu.Lock()
		synced := b.synced
		b.mu.Unlock()
		if synced.After(was) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the measure beside the lease never landed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
