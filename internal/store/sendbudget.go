package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// SendBudget is one process's part of the bot's budget of Bot API calls
// for the whole cluster (TELEGRAM_RATE_LIMIT a second), leased from
// MongoDB (docs/benchmarks.md, "One send budget"):
//
//   - Time is the server's: the budget is a grid of slots, one every
//     Interval of MongoDB's clock (hello's localTime), which each process
//     maps to its own clock with an offset it measures (every
//     budgetSyncEvery). A worker whose clock is seconds ahead or behind
//     takes the same slots as the others, at the same real times.
//   - A process takes leaseSize consecutive slots at once with one insert
//     of the lease's number (call_slots, "l<number>": unique, so one
//     process gets it), and hands them to its sends in order: about one
//     round trip for half a second's budget, whatever the sends in flight.
//   - A call starts within lateFor of its slot, or the slot is dropped and
//     the call takes the next (a GC pause, a slow store): with the slots
//     (1 + gridMargin) / rate apart, no real second holds more than the
//     rate, at Telegram too (what lateness leaves of the margin is for the
//     calls' transport: lateFor).
//   - A slot taken and not called (the chat's turn has not come) goes back
//     to the process's free slots (Give).
//
// The grid is the same for every process only with the same rate: every
// worker must run with the same TELEGRAM_RATE_LIMIT.
type SendBudget struct {
	st       *Store
	interval time.Duration // between two slots, server time
	lease    int64         // slots per lease
	clock    func() time.Time

	mu     sync.Mutex
	free   []int64              // slot numbers this process holds, ascending
	offset time.Duration        // the server's clock minus this process's
	synced time.Time            // by this process's clock; zero: never
	rtt    time.Duration        // of the last lease insert: how far ahead to lease
	next   int64                // the first lease number not known taken
	taken  []takenLease         // this process's leases, to delete a minute on
	gates  map[int64]*leaseGate // by lease number: the replies' claims in it (replyslots.go)
	reply  int64                // the next slot number a reply tries

	fetch sync.Mutex // one lease in flight per process
	// waiting counts the sends waiting for the lease in flight.
	waiting atomic.Int64
	// demand counts the slots this process's batches said they will take
	// in a moment (Expect) and have not taken yet.
	demand atomic.Int64
	// maxLate is how late after its slot a call may start (lateFor).
	maxLate time.Duration
}

type takenLease struct {
	id string
	at time.Time // by this process's clock
}

// maxLeaseLead bounds how far ahead of now a lease starts for the
// insert's own time.
const maxLeaseLead = 250 * time.Millisecond

// MaxLate is the most a call may start after its slot; a later one
// takes another slot. A call may start a slot's spacing late (lateFor),
// so at high rates much less.
const MaxLate = 30 * time.Millisecond

// minLate is the least lateness allowed: a timer's wake-up and a
// scheduler's delay on a busy machine.
const minLate = 10 * time.Millisecond

// gridMargin is how much longer than a second the slots of a second's
// rate span, so that a rate of 25 leases 24.04 calls a second: a call
// started late and one a second's rate of slots after it on time, the
// later quicker to Telegram by what lateness leaves of the margin
// (transportReserve and more), are a second apart when they arrive.
const gridMargin = 40 * time.Millisecond

// transportReserve is the least of the margin left for the time a call
// takes from its start to Telegram varying from call to call.
const transportReserve = gridMargin - MaxLate

// lateFor is how late after its slot a call may start at a slot spacing
// of interval: one slot's spacing, within minLate and MaxLate. At 1000 a
// second with 40 ms for lateness, 14-30 calls of 10,000 reached the fake
// in a second that held 1000 already (a 429 each), and 2-10 with 30 ms:
// up to 40 calls could start in one slot's time, and a few ms of
// transport put some in the second after. With 10 ms (30 ms for
// transport), none, and the same rate.
func lateFor(interval time.Duration) time.Duration {
	return min(max(interval, minLate), MaxLate)
}

// budgetSyncEvery is how often a process measures its clock against the
// server's (three hellos, the quickest answer counting).
const budgetSyncEvery = 30 * time.Second

// budgetWithin is how far ahead a slot may lie for a call to wait for it
// inside its attempt; beyond that the send comes back later.
const budgetWithin = 2 * time.Second

// leaseKept is how long after it ends a lease's document is kept: every
// process that may still try its number has learned it is taken.
const leaseKept = time.Minute

// NewSendBudget is this process's part of a budget of perSecond calls for
// the cluster; clock is this process's clock (time.Now, a test's).
func (s *Store) NewSendBudget(perSecond float64, clock func() time.Time) *SendBudget {
	b := &SendBudget{st: s, clock: clock}
	if perSecond > 0 {
		b.interval = time.Duration(float64(time.Second) * (1 + gridMargin.Seconds()) / perSecond)
		b.maxLate = lateFor(b.interval)
		b.lease = leaseSize(perSecond)
	}
	return b
}

// SendBatch is how many sends a delivery hands one SendBatch activity
// (workflows.Tuning.BatchSize): a lease's slots divide it, so that a
// batch on one worker uses its leases to the last slot. A lease of 13 at
// 25 a second left one slot of every batch of 25 unused when the next
// batch went to another worker: 0.92 of the rate on two workers.
const SendBatch = 24

// leaseSize is the slots of a lease at perSecond: about half a second's
// budget, a divisor of SendBatch or, above it, a multiple (every worker
// computes the same). Leases stay about two a second at any rate: every
// lease is a document of call_slots and a check for replies, and FerretDB
// scans the collection for each (leases of 24 at 1000 a second made forty
// a second, and the checks outran the slots: the fan-out stalled).
func leaseSize(perSecond float64) int64 {
	half := max(2, int64(math.Ceil(perSecond/2)))
	if half >= SendBatch {
		return half / SendBatch * SendBatch
	}
	for l := half; l > 1; l-- {
		if SendBatch%l == 0 {
			return l
		}
	}
	return 2
}

// Interval is the time between two slots of the cluster's budget.
func (b *SendBudget) Interval() time.Duration { return b.interval }

// Slot is one call's place in the budget.
type Slot struct {
	At time.Time // when the call may start, by this process's clock
	n  int64
}

// Take hands out this process's next free slot, leasing more when it
// has none; ok is false when no slot is free within budgetWithin (retryAt:
// when to come back).
func (b *SendBudget) Take(ctx context.Context) (slot Slot, ok bool, retryAt time.Time, err error) {
	return b.TakeAhead(ctx, 0)
}

// TakeAhead is Take for a call that has work to do before it starts (the
// chat's turn to claim): its slot starts lead from now at the earliest,
// so that the call is not late for it; the slots sooner go to others.
func (b *SendBudget) TakeAhead(ctx context.Context, lead time.Duration) (slot Slot, ok bool, retryAt time.Time, err error) {
	slot, ok, retryAt, err = b.takeAhead(ctx, lead)
	if ok {
		if d, _ := ctx.Value(demandKey{}).(*demand); d != nil {
			d.took()
		}
	}
	return slot, ok, retryAt, err
}

func (b *SendBudget) takeAhead(ctx context.Context, lead time.Duration) (slot Slot, ok bool, retryAt time.Time, err error) {
	lead = min(max(lead, 0), maxLeaseLead)
	if b.interval <= 0 {
		return Slot{At: b.clock()}, true, time.Time{}, nil
	}
	// Slots leased by one send may go to others of the process first: it
	// leases again, until the next lease lies beyond budgetWithin.
	for range 64 {
		if slot, ok := b.pop(lead); ok {
			return slot, true, time.Time{}, nil
		}
		b.waiting.Add(1)
		b.fetch.Lock()
		b.waiting.Add(-1)
		slot, ok := b.pop(lead) // another send of this process leased meanwhile
		if !ok {
			var far time.Time
			if far, err = b.leaseMore(ctx); err != nil || !far.IsZero() {
				b.fetch.Unlock()
				return Slot{}, false, far, err
			}
			slot, ok = b.pop(lead)
		}
		b.fetch.Unlock()
		if ok {
			return slot, true, time.Time{}, nil
		}
	}
	return Slot{}, false, b.clock().Add(time.Second), nil
}

// Expect tells the budget that n sends will each take a slot in a moment
// (a batch's start); the context returned carries it to their Takes. The
// lease they start is sized for all of them, in one insert. Without it
// the first send leased for itself (half a second's slots) and the
// sends after it leased again once those were handed out: two inserts a
// batch, each a quarter of a second at a load of 6, and on two workers
// a third when the first lost its race. done forgets the sends that
// took none (their chat's turn had not come).
func (b *SendBudget) Expect(ctx context.Context, n int) (_ context.Context, done func()) {
	if b.interval <= 0 || n <= 0 {
		return ctx, func() {}
	}
	d := &demand{b: b}
	d.left.Store(int64(n))
	b.demand.Add(int64(n))
	return context.WithValue(ctx, demandKey{}, d), func() { b.demand.Add(-d.left.Swap(0)) }
}

// demand is one batch's sends (Expect) that have not taken a slot yet.
type demand struct {
	b    *SendBudget
	left atomic.Int64
}

type demandKey struct{}

// took counts one slot taken by the batch's sends (a send that takes
// more, a pin after its message, counts once more at most n in all).
func (d *demand) took() {
	for {
		l := d.left.Load()
		if l <= 0 {
			return
		}
		if d.left.CompareAndSwap(l, l-1) {
			d.b.demand.Add(-1)
			return
		}
	}
}

// Give returns a slot taken and not called: a later send of this process
// may use it while it is not past.
func (b *SendBudget) Give(slot Slot) {
	if b.interval <= 0 || slot.n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, found := slices.BinarySearch(b.free, slot.n); !found {
		b.free = slices.Insert(b.free, i, slot.n)
	}
}

// Late reports whether a call about to start now is too late for its
// slot (by more than lateFor its spacing): it must take another.
func (b *SendBudget) Late(slot Slot) bool {
	return b.interval > 0 && b.clock().Sub(slot.At) > b.maxLate
}

// Ready reports whether a call may start now in its slot: not too late
// for it (Late), and the slot not taken by a command reply, which goes
// first (replyslots.go; it waits for the lease's check of replies, at
// most until the slot is late). false: the call takes another slot.
func (b *SendBudget) Ready(ctx context.Context, slot Slot) bool {
	if b.interval <= 0 || slot.n == 0 {
		return true
	}
	if b.Late(slot) || !b.waitGate(ctx, slot) {
		return false
	}
	return !b.Late(slot)
}

// pop takes the first free slot that starts lead from now or later (a
// little sooner: room for the wait's own lateness); those too soon for it
// stay for others while they are not past.
func (b *SendBudget) pop(lead time.Duration) (Slot, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock()
	from := now.Add(lead - b.maxLate/2)
	for i := 0; i < len(b.free); {
		at := b.slotTime(b.free[i])
		if now.Sub(at) > b.maxLate/2 { // past
			b.free = slices.Delete(b.free, i, i+1)
			continue
		}
		if at.Before(from) {
			i++
			continue
		}
		if b.claimedByReply(b.free[i]) {
			b.free = slices.Delete(b.free, i, i+1)
			continue
		}
		n := b.free[i]
		b.free = slices.Delete(b.free, i, i+1)
		return Slot{At: at, n: n}, true
	}
	return Slot{}, false
}

// slotTime is slot n by this process's clock; the caller holds b.mu.
func (b *SendBudget) slotTime(n int64) time.Time {
	return time.Unix(0, n*int64(b.interval)).Add(-b.offset)
}

// leaseMore takes the next lease not taken from a moment from now (the
// caller holds b.fetch); far is when to come back when the next free
// lease starts beyond budgetWithin.
func (b *SendBudget) leaseMore(ctx context.Context) (far time.Time, err error) {
	if err := b.syncClock(ctx); err != nil {
		return time.Time{}, err
	}
	col := b.st.db.Collection(colCallSlots)
	for lost := 0; lost < 8; lost++ {
		b.mu.Lock()
		now := b.clock()
		// Leased from the insert's answer on; a slow answer of late (a
		// store's hiccup) counts at most maxLeaseLead, or no lease would
		// ever start within budgetWithin again.
		server := now.Add(b.offset).Add(min(max(b.rtt, 5*time.Millisecond), maxLeaseLead))
		first := (server.UnixNano() + int64(b.interval) - 1) / int64(b.interval)
		// The lease under way (its slots from first on), unless known
		// taken; after a lease lost to another process, a few at once:
		// the others that lost it race for the next too.
		j := max(first/b.lease, b.next)
		// As many as the sends waiting for a slot need, or the batches
		// under way say they will (Expect), beyond the slots held: a
		// batch's start together in one insert, the lease under way
		// counted for the slots it has left.
		want := max(b.waiting.Load()+1, b.demand.Load()-int64(len(b.free)))
		k := leasesFor(want, b.lease, max(first, j*b.lease)-j*b.lease)
		k = min(max(int64(1+lost), k), 3)
		start := time.Unix(0, j*b.lease*int64(b.interval)).Add(-b.offset)
		b.mu.Unlock()
		if start.Sub(now) > budgetWithin {
			return start.Add(-budgetWithin / 2), nil
		}
		docs := make([]any, 0, k)
		for i := range k {
			at := time.Unix(0, (j+i)*b.lease*int64(b.interval))
			if i > 0 && at.Add(-b.offset).Sub(now) > budgetWithin {
				break
			}
			docs = append(docs, callSlot{ID: leaseID(j + i), At: at})
		}
		sent := b.clock()
		_, err := col.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
		rtt := b.clock().Sub(sent)
		won, err := leasesWon(err, len(docs))
		if err != nil {
			return time.Time{}, fmt.Errorf("mongodb: lease the bot's send budget: %w", err)
		}
		b.mu.Lock()
		b.rtt = rtt
		b.next = max(b.next, j+int64(len(docs)))
		for _, i := range won {
			l := j + int64(i)
			b.openGate(l)
			for n := l * b.lease; n < (l+1)*b.lease; n++ {
				if n >= first {
					b.free = append(b.free, n)
				}
			}
			b.taken = append(b.taken, takenLease{id: leaseID(l), at: time.Unix(0, l*b.lease*int64(b.interval)).Add(-b.offset)})
		}
		slices.Sort(b.free)
		b.mu.Unlock()
		if len(won) > 0 {
			b.pruneLeases(now)
			return time.Time{}, nil
		}
	}
	return time.Time{}, nil
}

// leasesFor is how many leases from the one under way hold want slots,
// when past of its slots are gone already.
func leasesFor(want, lease, past int64) int64 {
	k := int64(1)
	if rest := want - (lease - past); rest > 0 {
		k += (rest + lease - 1) / lease
	}
	return k
}

func leaseID(j int64) string { return "l" + strconv.FormatInt(j, 10) }

// leasesWon are the indexes of the n leases inserted: those not refused
// as taken (a duplicate _id); err when another error refused one.
func leasesWon(err error, n int) ([]int, error) {
	taken := map[int]bool{}
	if err != nil {
		var bw mongo.BulkWriteException
		if !errors.As(err, &bw) || bw.WriteConcernError != nil {
			return nil, err
		}
		for _, we := range bw.WriteErrors {
			if !mongo.IsDuplicateKeyError(we) {
				return nil, err
			}
			taken[we.Index] = true
		}
	}
	var won []int
	for i := range n {
		if !taken[i] {
			won = append(won, i)
		}
	}
	return won, nil
}

// syncClock measures the offset of the server's clock when it is
// budgetSyncEvery old: three hellos, the quickest answer's localTime
// taken for the middle of its round trip.
func (b *SendBudget) syncClock(ctx context.Context) error {
	b.mu.Lock()
	due := b.synced.IsZero() || b.clock().Sub(b.synced) >= budgetSyncEvery
	b.mu.Unlock()
	if !due {
		return nil
	}
	best, bestRTT := time.Duration(0), time.Duration(-1)
	for range 3 {
		sent := b.clock()
		var hello struct {
			LocalTime time.Time `bson:"localTime"`
		}
		if err := b.st.db.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
			return fmt.Errorf("mongodb: read the server's clock: %w", err)
		}
		got := b.clock()
		if hello.LocalTime.IsZero() {
			return errors.New("mongodb: read the server's clock: hello has no localTime")
		}
		rtt := got.Sub(sent)
		if bestRTT < 0 || rtt < bestRTT {
			best, bestRTT = hello.LocalTime.Sub(sent.Add(rtt/2)), rtt
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// The slots held are numbers of the server's grid: they map to this
	// process's clock with the new offset from now on.
	b.offset, b.synced = best, b.clock()
	return nil
}

// pruneLeases deletes, by _id, this process's leases that ended over
// leaseKept ago (no scan; a process that died leaves its leases to the
// hourly prune), at most every chatPruneEvery.
func (b *SendBudget) pruneLeases(now time.Time) {
	b.mu.Lock()
	var old []string
	keep := b.taken[:0]
	for _, l := range b.taken {
		if now.Sub(l.at) > leaseKept {
			old = append(old, l.id)
		} else {
			keep = append(keep, l)
		}
	}
	if len(old) < int(chatPruneEvery/b.leaseSpan())+1 {
		b.mu.Unlock()
		return // gather half a minute's before deleting
	}
	b.taken = keep
	b.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		models := make([]mongo.WriteModel, len(old))
		for i, id := range old {
			models[i] = mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: id}})
		}
		_, _ = b.st.db.Collection(colCallSlots).BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)) // best effort: the hourly prune does it too
	}()
}

// leaseSpan is how long one lease's slots last.
func (b *SendBudget) leaseSpan() time.Duration { return time.Duration(b.lease) * b.interval }
