package dispatch

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestDispatcherOrderAndBound(t *testing.T) {
	d := New(8, 2, Rule{}, time.Now)
	var mu sync.Mutex
	order := map[int64][]int{}
	running, peak := 0, 0
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		key := int64(i % 4)
		i := i
		if _, ok := d.Submit(ctx, Lane{Chat: key}, Job{Run: func() {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			order[key] = append(order[key], i)
			mu.Unlock()
		}}); !ok {
			t.Fatal("submit failed")
		}
	}
	if !d.Wait(ctx) {
		t.Fatal("wait")
	}
	if peak > 2 {
		t.Fatalf("%d ran at once, bound is 2", peak)
	}
	for key, got := range order {
		for j := 1; j < len(got); j++ {
			if got[j] < got[j-1] {
				t.Fatalf("chat %d ran out of order: %v", key, got)
			}
		}
		if len(got) != 10 {
			t.Fatalf("chat %d ran %d jobs", key, len(got))
		}
	}
	// A full dispatcher blocks submit until ctx ends.
	full := New(1, 1, Rule{}, time.Now)
	block := make(chan struct{})
	full.Submit(ctx, Lane{Chat: 1}, Job{Run: func() { <-block }})
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, ok := full.Submit(cctx, Lane{Chat: 2}, Job{Run: func() {}}); ok {
		t.Fatal("submit beyond the bound succeeded")
	}
	close(block)
	full.Wait(ctx)
}

// A sender beyond their budget floods: the job that overflows, their
// waiting droppable jobs and their later ones are dropped until the
// budget refills; jobs that must run (not droppable) always run; another
// sender in the same chat, and other chats, are untouched.
func TestDispatcherDropsAFlood(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	rule := Rule{Burst: 3, Refill: 2 * time.Second, MaxLoad: 3, NoteEvery: time.Minute}
	d := New(100, 4, rule, clock)
	ctx := context.Background()
	block := make(chan struct{})
	var ran, droppedJobs []string
	rec := func(list *[]string, name string) func() {
		return func() { mu.Lock(); *list = append(*list, name); mu.Unlock() }
	}
	member, admin, other := Lane{Chat: -1, Sender: 7}, Lane{Chat: -1, Sender: 8}, Lane{Chat: 2, Sender: 2}
	submit := func(key Lane, name string, droppable bool) Admission {
		j := Job{Run: rec(&ran, name)}
		if droppable {
			j.Drop = rec(&droppedJobs, name)
		}
		a, ok := d.Submit(ctx, key, j)
		if !ok {
			t.Fatal("submit failed")
		}
		return a
	}
	started := make(chan struct{})
	if a, _ := d.Submit(ctx, member, Job{Run: func() { close(started); <-block; rec(&ran, "a1")() }, Drop: rec(&droppedJobs, "a1")}); a != Queued {
		t.Fatal("first job not Queued")
	}
	<-started // the running job is not dropped
	want := []Admission{Queued, Queued, FloodStarted, Dropped}
	for i, name := range []string{"a2", "a3", "a4", "a5"} {
		if a := submit(member, name, true); a != want[i] {
			t.Fatalf("%s: Admission %d, want %d", name, a, want[i])
		}
	}
	submit(member, "member-event", false) // e.g. the bot removed from the chat
	if a := submit(admin, "admin", true); a != Queued {
		t.Fatal("a flooding member deafened an admin of the same chat")
	}
	submit(other, "b1", true)
	close(block)
	d.Wait(ctx)
	mu.Lock()
	slices.Sort(ran)
	slices.Sort(droppedJobs)
	if !slices.Equal(ran, []string{"a1", "admin", "b1", "member-event"}) || !slices.Equal(droppedJobs, []string{"a2", "a3", "a4", "a5"}) {
		t.Fatalf("ran %v, dropped %v", ran, droppedJobs)
	}
	now = now.Add(time.Second)
	mu.Unlock()
	if a := submit(member, "a6", true); a != Dropped {
		t.Fatal("a flooding sender heard before their budget refilled")
	}
	// Dropped updates cost nothing: flooding on does not push the next
	// hearing further away.
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if a := submit(member, "a7", true); a != Queued {
		t.Fatal("a flooding sender not heard again after one refill")
	}
	d.Wait(ctx)
}

// The case: an admin working through 8 commands 1.2 s apart under
// the rule the bot keeps (defaultFlood in internal/bot). On the old rule
// (no backlog, a token every 2 s) the 7th was dropped as a flood.
func TestSteadyPaceIsQueuedNotDropped(t *testing.T) {
	rule := Rule{Burst: 3, Refill: 2 * time.Second, Backlog: 3 * time.Second, MaxLoad: 4, NoteEvery: time.Minute}
	t0 := time.Unix(1000, 0)
	var b Budget
	var waits []time.Duration
	for i := range 8 {
		var a Admission
		var wait time.Duration
		b, a, wait = rule.Admit(b, 1, t0.Add(time.Duration(i)*1200*time.Millisecond))
		if a != Queued {
			t.Fatalf("command %d: admission %d", i+1, a)
		}
		waits = append(waits, wait.Round(time.Millisecond))
	}
	// The 7th and 8th wait for their tokens (the old rule dropped them).
	if want := []time.Duration{0, 0, 0, 0, 0, 0, 800 * time.Millisecond, 1600 * time.Millisecond}; !slices.Equal(waits, want) {
		t.Fatalf("waits %v", waits)
	}
	// Faster: queued for the token up to the backlog, each a refill after
	// the one before; dropped beyond.
	b = Budget{}
	waits = nil
	for i := range 6 {
		var a Admission
		var wait time.Duration
		b, a, wait = rule.Admit(b, 0, t0)
		if i < 4 && a != Queued {
			t.Fatalf("command %d dropped within the backlog", i+1)
		}
		if i >= 4 && a == Queued {
			t.Fatalf("command %d queued beyond the backlog (wait %v)", i+1, wait)
		}
		if a == Queued {
			waits = append(waits, wait)
		}
	}
	if want := []time.Duration{0, 0, 0, 2 * time.Second}; !slices.Equal(waits, want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	// Told it floods, a sender queues nothing for its token for a while
	// (waiting, it would hold the update offset): heard at the refill
	// rate only.
	b, a, _ := rule.Admit(b, 0, t0.Add(time.Second))
	if a != Dropped {
		t.Fatalf("a flooding sender queued for its token: %d", a)
	}
	if _, a, wait := rule.Admit(b, 0, t0.Add(2*time.Second)); a != Queued || wait != 0 {
		t.Fatalf("a flooding sender not heard after a refill: %d %v", a, wait)
	}
}

// A job queued for its token runs after the wait; the wait holds no
// worker (another lane's job runs meanwhile).
func TestDispatcherWaitsForTheToken(t *testing.T) {
	rule := Rule{Burst: 1, Refill: 300 * time.Millisecond, Backlog: time.Second, MaxLoad: 5}
	d := New(10, 1, rule, time.Now)
	ctx := context.Background()
	var mu sync.Mutex
	var order []string
	rec := func(name string) func() { return func() { mu.Lock(); order = append(order, name); mu.Unlock() } }
	start := time.Now()
	var second time.Time
	d.Submit(ctx, Lane{Chat: 1, Sender: 1}, Job{Run: rec("first"), Drop: func() {}})
	d.Submit(ctx, Lane{Chat: 1, Sender: 1}, Job{Run: func() { second = time.Now(); rec("second")() }, Drop: func() {}})
	time.Sleep(20 * time.Millisecond)
	d.Submit(ctx, Lane{Chat: 2, Sender: 2}, Job{Run: rec("other"), Drop: func() {}})
	d.Wait(ctx)
	if !slices.Equal(order, []string{"first", "other", "second"}) {
		t.Fatalf("order %v", order)
	}
	if second.Sub(start) < 250*time.Millisecond {
		t.Fatalf("the second job ran %v after the first: before its token", second.Sub(start))
	}
}

// Aside gives the job's worker up while it waits: with one worker, a job
// waiting aside does not hold another lane's job.
func TestAsideFreesTheWorker(t *testing.T) {
	d := New(10, 1, Rule{}, time.Now)
	ctx := d.Within(context.Background())
	release := make(chan struct{})
	ran := make(chan struct{})
	d.Submit(ctx, Lane{Chat: 1}, Job{Run: func() { Aside(ctx, func() { <-release }) }})
	time.Sleep(20 * time.Millisecond)
	d.Submit(ctx, Lane{Chat: 2}, Job{Run: func() { close(ran) }})
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("a job waiting aside held the only worker")
	}
	close(release)
	d.Wait(context.Background())
}

func TestFloodRule(t *testing.T) {
	rule := Rule{Burst: 3, Refill: 2 * time.Second, MaxLoad: 3, NoteEvery: time.Minute}
	t0 := time.Unix(1000, 0)
	type step struct {
		at   time.Duration
		load int
		want Admission
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"a burst of three is heard", []step{{0, 0, Queued}, {0, 1, Queued}, {0, 2, Queued}}},
		{"the fourth at once is a flood, noted once", []step{{0, 0, Queued}, {0, 0, Queued}, {0, 0, Queued}, {0, 0, FloodStarted}, {0, 0, Dropped}}},
		{"heard again after one refill", []step{{0, 0, Queued}, {0, 0, Queued}, {0, 0, Queued}, {0, 0, FloodStarted}, {2 * time.Second, 0, Queued}}},
		// The old rule restarted 5 quiet seconds on every drop: one
		// command every 3 s after a burst was never heard again.
		{"a steady sender every 3 s is heard", []step{{0, 0, Queued}, {0, 0, Queued}, {0, 0, Queued}, {0, 0, FloodStarted},
			{3 * time.Second, 0, Queued}, {6 * time.Second, 0, Queued}, {9 * time.Second, 0, Queued}}},
		{"too much Queued is a flood even with tokens", []step{{0, 3, FloodStarted}}},
		{"the note comes at most once a minute", []step{{0, 0, Queued}, {0, 0, Queued}, {0, 0, Queued}, {0, 0, FloodStarted},
			{2 * time.Second, 0, Queued}, {2 * time.Second, 0, Dropped}, {61 * time.Second, 3, FloodStarted}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b Budget
			for i, s := range c.steps {
				var a Admission
				b, a, _ = rule.Admit(b, s.load, t0.Add(s.at))
				if a != s.want {
					t.Fatalf("step %d: %d, want %d", i, a, s.want)
				}
			}
		})
	}
}

// However a sender floods, they are heard at least once per refill (plus
// the backlog they were heard ahead of time) after their burst, and never
// more than burst + (elapsed + 2 backlogs)/refill times; no Queued
// command waits longer than the backlog.
func FuzzFloodRule(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 10, 200, 3}, false)
	f.Add([]byte{0, 0, 0, 0, 10, 200, 3}, true)
	f.Fuzz(func(t *testing.T, gaps []byte, backlog bool) {
		rule := Rule{Burst: 3, Refill: 2 * time.Second, MaxLoad: 3, NoteEvery: time.Minute}
		if backlog {
			rule.Backlog = 3 * time.Second
		}
		var b Budget
		at := time.Unix(1000, 0)
		start := at
		heard := 0
		lastHeard := at
		for _, g := range gaps {
			at = at.Add(time.Duration(g) * 50 * time.Millisecond)
			var a Admission
			var wait time.Duration
			b, a, wait = rule.Admit(b, 0, at)
			if wait > rule.Backlog {
				t.Fatalf("queued for %v, backlog %v", wait, rule.Backlog)
			}
			if a == Queued {
				heard++
				lastHeard = at
			} else if at.Sub(lastHeard) >= rule.Refill+rule.Backlog+time.Millisecond && heard > 0 {
				// (one queued for its token was heard ahead of time, by
				// at most the backlog)
				t.Fatalf("dropped at %v though last heard at %v", at.Sub(start), lastHeard.Sub(start))
			}
			// A flood's start gives back the tokens of the waiting
			// ones it drops: a backlog can be heard (queued) twice.
			if limit := rule.Burst + int((at.Sub(start)+2*rule.Backlog)/rule.Refill); heard > limit {
				t.Fatalf("heard %d times in %v, limit %d", heard, at.Sub(start), limit)
			}
		}
	})
}
