package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Claims of one group from many processes at once (on FerretDB, which
// loses concurrent updates of one document) get one turn; the others
// queue, and coming back when told (a simulated clock: minutes in a
// moment) they get their turns a budget's interval apart, at most 19 in
// any minute, in the order of their tickets.
func TestClaimCallSharesAGroupsBudget(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	const group = int64(-4242)
	b := telegram.BudgetOf(group)
	start := time.Now().UTC().Truncate(time.Millisecond)
	type waiter struct {
		ticket string
		at     time.Time
	}
	var mu sync.Mutex
	var waiting []waiter
	var granted []time.Time
	var wg sync.WaitGroup
	for i := range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ticket := fmt.Sprintf("t%02d", i)
			c, err := st.ClaimCall(ctx, group, ticket, b, start)
			require.NoError(t, err)
			ok, at := c.OK, c.RetryAt
			if ok {
				require.NoError(t, st.ConfirmCall(ctx, group, ticket, start))
			}
			mu.Lock()
			defer mu.Unlock()
			if ok {
				granted = append(granted, start)
			} else {
				waiting = append(waiting, waiter{ticket, at})
			}
		}()
	}
	wg.Wait()
	require.Len(t, granted, 1, "one turn at once")
	told := map[string]time.Time{}
	for _, w := range waiting {
		told[w.ticket] = w.at
	}
	var order []string // the tickets of the waiting turns, in the order they went
	for tries := 0; len(waiting) > 0 && tries < 2000; tries++ {
		slices.SortFunc(waiting, func(a, b waiter) int { return a.at.Compare(b.at) })
		w := waiting[0]
		c, err := st.ClaimCall(ctx, group, w.ticket, b, w.at)
		require.NoError(t, err)
		ok, at := c.OK, c.RetryAt
		require.False(t, at.Before(w.at))
		if ok {
			require.NoError(t, st.ConfirmCall(ctx, group, w.ticket, w.at))
			granted, order = append(granted, w.at), append(order, w.ticket)
			waiting = waiting[1:]
			continue
		}
		waiting[0].at = at
	}
	require.Len(t, granted, 25, "every send got its turn; waiting %v", waiting)
	for i := 1; i < len(granted); i++ {
		require.GreaterOrEqual(t, granted[i].Sub(granted[i-1]), b.Interval, "turns %d and %d", i-1, i)
		if i >= b.PerMinute {
			require.GreaterOrEqual(t, granted[i].Sub(granted[i-b.PerMinute]), time.Minute, "20 turns within a minute: %v", granted)
		}
	}
	require.True(t, slices.IsSorted(order), "waiting turns go in the order of their tickets, not of their claims: %v", order)
	for i, tk := range order {
		require.False(t, granted[i+1].Before(told[tk]), "%s went no earlier than it was first told", tk)
	}
}

// A claim that comes back finds its place; a turn whose owner never comes
// back holds the queue TurnGrace past the time it was told, no longer; an
// owner that comes back after that queues again at the end.
func TestClaimCallAbandonedTurns(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	const chat = int64(77)
	b := telegram.BudgetOf(chat)
	now := time.Now().UTC().Truncate(time.Millisecond)
	claim := func(ticket string, at time.Time) (bool, time.Time) {
		c, err := st.ClaimCall(ctx, chat, ticket, b, at)
		require.NoError(t, err)
		if c.OK {
			require.NoError(t, st.ConfirmCall(ctx, chat, ticket, at))
		}
		return c.OK, c.RetryAt
	}
	ok, _ := claim("a", now)
	require.True(t, ok)
	ok, atB := claim("b", now.Add(100*time.Millisecond))
	require.False(t, ok, "within the interval")
	require.Equal(t, now.Add(b.Interval), atB)
	ok, atC := claim("c", now.Add(200*time.Millisecond))
	require.False(t, ok)
	require.Equal(t, now.Add(2*b.Interval), atC, "behind b")
	ok, _ = claim("c", atC)
	require.False(t, ok, "b has not gone yet")
	late := atB.Add(store.TurnGrace + time.Second)
	ok, _ = claim("c", late)
	require.True(t, ok, "b is given up")
	ok, again := claim("b", late.Add(10*time.Millisecond))
	require.False(t, ok, "b queues again")
	require.Equal(t, late.Add(b.Interval), again)
	ok, _ = claim("b", again)
	require.True(t, ok)
}

// A call that started late after its claim (confirmed) spaces the next
// turn from its start.
func TestClaimCallSpacesFromTheConfirmedStart(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	const chat = int64(78)
	b := telegram.BudgetOf(chat)
	now := time.Now().UTC().Truncate(time.Millisecond)
	a, err := st.ClaimCall(ctx, chat, "a", b, now)
	require.NoError(t, err)
	require.True(t, a.OK)
	started := now.Add(700 * time.Millisecond) // a slow answer
	require.NoError(t, st.ConfirmCall(ctx, chat, "a", started))
	c, err := st.ClaimCall(ctx, chat, "b", b, now.Add(b.Interval))
	require.NoError(t, err)
	require.False(t, c.OK, "an interval after a started, not after it claimed")
	require.Equal(t, started.Add(b.Interval), c.RetryAt)
	c, err = st.ClaimCall(ctx, chat, "b", b, c.RetryAt)
	require.NoError(t, err)
	require.True(t, c.OK)
}

// Turns wait in the order of their tickets, not of their claims (a burst
// reaches the chat in the order of its events); a turn given up lets the
// next go at once.
func TestClaimCallQueuesInTicketOrder(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	const chat = int64(-78)
	b := telegram.BudgetOf(chat)
	now := time.Now().UTC().Truncate(time.Millisecond)
	claim := func(ticket string, at time.Time) (bool, time.Time) {
		c, err := st.ClaimCall(ctx, chat, ticket, b, at)
		require.NoError(t, err)
		return c.OK, c.RetryAt
	}
	ok, _ := claim("2026-12-01T10:00:00.000Z|e5", now)
	require.True(t, ok, "the first claim calls whatever its ticket")
	ok, atLate := claim("2026-12-01T10:00:00.000Z|e9", now.Add(10*time.Millisecond))
	require.False(t, ok)
	require.Equal(t, now.Add(b.Interval), atLate)
	ok, atEarly := claim("2026-12-01T10:00:00.000Z|e7", now.Add(20*time.Millisecond))
	require.False(t, ok)
	require.Equal(t, now.Add(b.Interval), atEarly, "goes ahead of the later event's turn")
	ok, _ = claim("2026-12-01T10:00:00.000Z|e9", atLate)
	require.False(t, ok, "the earlier event goes first")
	ok, atBot := claim("!bot|1", now.Add(30*time.Millisecond))
	require.False(t, ok)
	require.Equal(t, now.Add(b.Interval), atBot, "the bot's ticket sorts before every event's")
	ok, _ = claim("2026-12-01T10:00:00.000Z|e7", atLate)
	require.False(t, ok, "the bot's waiting turn goes first")
	require.NoError(t, st.DropTurn(ctx, chat, "!bot|1"))
	ok, _ = claim("2026-12-01T10:00:00.000Z|e7", atLate.Add(2*time.Millisecond))
	require.True(t, ok, "the turn given up does not hold it")
	ok, at := claim("2026-12-01T10:00:00.000Z|e9", atLate.Add(3*time.Millisecond))
	require.False(t, ok)
	ok, _ = claim("2026-12-01T10:00:00.000Z|e9", at)
	require.True(t, ok)
}

// Two worker processes (two stores on one database) claiming one group's
// turns by turns: each writes after the version it knows, finds the
// other's by the duplicate insert, and the turns granted keep the group's
// budget whichever process claims.
func TestClaimCallTwoProcessesShareAGroupsBudget(t *testing.T) {
	a, b, _ := twoProcesses(t)
	ctx := context.Background()
	const group = int64(-4343)
	budget := telegram.BudgetOf(group)
	now := time.Now().UTC().Truncate(time.Millisecond)
	procs := []*store.Store{a, b}
	var granted []time.Time
	at := now
	for i := 0; len(granted) < 25 && i < 500; i++ {
		p := procs[i%2] // the processes take turns at claiming
		ticket := fmt.Sprintf("t%02d", len(granted))
		c, err := p.ClaimCall(ctx, group, ticket, budget, at)
		require.NoError(t, err)
		if c.OK {
			granted = append(granted, at)
			at = at.Add(10 * time.Millisecond)
			continue
		}
		require.True(t, c.RetryAt.After(at))
		at = c.RetryAt
	}
	require.Len(t, granted, 25)
	for i := 1; i < len(granted); i++ {
		require.GreaterOrEqual(t, granted[i].Sub(granted[i-1]), budget.Interval, "turns %d and %d", i-1, i)
		if i >= budget.PerMinute {
			require.GreaterOrEqual(t, granted[i].Sub(granted[i-budget.PerMinute]), time.Minute, "20 turns within a minute")
		}
	}
}

// A chat with no recent calls is claimed with one insert and no read, and
// the next claim of the same process too: FerretDB scans the collection
// for every read (by _id too), inserts do not.
func TestClaimCallOfAQuietChatIsOneInsert(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	const chat = int64(991)
	b := telegram.BudgetOf(chat)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i, at := range []time.Time{now, now.Add(b.Interval)} {
		before := st.RoundTripsBy()
		c, err := st.ClaimCall(ctx, chat, fmt.Sprintf("t%d", i), b, at)
		require.NoError(t, err)
		require.True(t, c.OK)
		after := st.RoundTripsBy()
		require.Equal(t, int64(1), after["insert chat_calls"]-before["insert chat_calls"], "claim %d", i)
		require.Zero(t, after["find chat_calls"]-before["find chat_calls"], "claim %d reads", i)
	}
}

// Once a chat has been quiet for ChatCallsQuiet its versions are all
// deleted, and a claim of any process starts it again at version 1; a
// chat that called recently, or has a turn waiting, keeps them.
func TestQuietChatsArePrunedWhole(t *testing.T) {
	a, b, db := twoProcesses(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	const quiet, busy = int64(501), int64(-502)
	callThreeTimes(t, a, quiet, "q", now)
	later := now.Add(store.ChatCallsQuiet + time.Minute)
	c, err := a.ClaimCall(ctx, busy, "b0", telegram.BudgetOf(busy), later.Add(-time.Minute))
	require.NoError(t, err)
	require.True(t, c.OK)
	n, err := db.Collection("chat_calls").CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	require.Equal(t, int64(4), n)

	deleted, _, err := a.PruneBatch(ctx, later, 100)
	require.NoError(t, err)
	require.Equal(t, int64(3), deleted, "the quiet chat's three versions, not the busy one's")
	// The other process knows nothing of the chat: it starts it again.
	c, err = b.ClaimCall(ctx, quiet, "q9", telegram.BudgetOf(quiet), later)
	require.NoError(t, err)
	require.True(t, c.OK)
	// The first process remembered version 3, written minutes ago: it
	// reads, finds the new chain's version 1, and queues behind it.
	c, err = a.ClaimCall(ctx, quiet, "q10", telegram.BudgetOf(quiet), later.Add(100*time.Millisecond))
	require.NoError(t, err)
	require.False(t, c.OK, "spaced from the other process's call")
	require.Equal(t, later.Add(telegram.BudgetOf(quiet).Interval), c.RetryAt)
}

// A prune that reads a quiet chat, then deletes what it read while another
// process claims the chat in between, leaves the chat one chain: the
// claim is spaced from by every process after it. On the code before, the
// claim wrote version 4 after the 3 the prune had read; the prune deleted
// versions 1-3, and a third process that knew nothing of the chat
// inserted version 1 beside version 4 and called 100 ms after the claim
// (two chains, each spacing only its own calls: a 429 from Telegram).
func TestAPruneRacingAClaimLeavesTheChatOneChain(t *testing.T) {
	const chat = int64(506)
	a, b, c, db, now := threeProcessesAfterThreeCalls(t, chat)
	ctx := context.Background()
	budget := telegram.BudgetOf(chat)
	later := now.Add(store.ChatCallsQuiet + time.Minute)
	deleteRead, err := store.ReadChatPruneForTest(ctx, a, later) // the prune reads the quiet chat
	require.NoError(t, err)
	cl, err := b.ClaimCall(ctx, chat, "b0", budget, later) // a claim between its read and its delete
	require.NoError(t, err)
	require.True(t, cl.OK)
	_, err = deleteRead()
	require.NoError(t, err)

	cl, err = c.ClaimCall(ctx, chat, "c0", budget, later.Add(100*time.Millisecond))
	require.NoError(t, err)
	require.False(t, cl.OK, "a process that knew nothing of the chat called 100 ms after b")
	require.Equal(t, later.Add(budget.Interval), cl.RetryAt)
	var left []struct {
		ID string `bson:"_id"`
	}
	cur, err := db.Collection("chat_calls").Find(ctx, bson.D{{Key: "chat", Value: chat}}, options.Find().SetSort(bson.D{{Key: "v", Value: 1}}))
	require.NoError(t, err)
	require.NoError(t, cur.All(ctx, &left))
	require.Len(t, left, 2, "the chat's versions: %v", left)
	require.Equal(t, "506#1", left[0].ID, "the chain started again at version 1 (b's call), then c's turn")

	// The chain started again (b's call, c's turn waiting) is pruned
	// whole once quiet, as any.
	deleted, _, err := a.PruneBatch(ctx, later.Add(store.ChatCallsQuiet+2*time.Minute), 100)
	require.NoError(t, err)
	require.Equal(t, int64(2), deleted)
}

// A burst's first claim in a quiet chat waits gather for the others to
// queue: one with an earlier ticket that comes meanwhile goes first, at
// once; a burst's claim in a chat that is not quiet waits as any does.
func TestClaimCallGatheringLetsTheEarliestGoFirst(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	const group = int64(-4444)
	b := telegram.BudgetOf(group)
	now := time.Now().UTC().Truncate(time.Millisecond)
	const gather = 2 * time.Second
	c, err := st.ClaimCallGathering(ctx, group, "2026-12-01T10:00:00.000Z|e1", b, now, gather)
	require.NoError(t, err)
	require.False(t, c.OK, "the first of a burst waits")
	require.Equal(t, now.Add(gather), c.RetryAt)
	c, err = st.ClaimCallGathering(ctx, group, "2026-12-01T10:00:00.000Z|e0", b, now.Add(300*time.Millisecond), gather)
	require.NoError(t, err)
	require.True(t, c.OK, "an earlier ticket goes at once")
	c, err = st.ClaimCallGathering(ctx, group, "2026-12-01T10:00:00.000Z|e1", b, now.Add(time.Second), gather)
	require.NoError(t, err)
	require.False(t, c.OK)
	require.Equal(t, now.Add(gather), c.RetryAt, "its hold, past the interval after e0")
	c, err = st.ClaimCallGathering(ctx, group, "2026-12-01T10:00:00.000Z|e1", b, now.Add(gather), gather)
	require.NoError(t, err)
	require.True(t, c.OK)
	// Not quiet now: a burst's claim waits only for the interval.
	c, err = st.ClaimCallGathering(ctx, group, "2026-12-01T10:00:00.000Z|e2", b, now.Add(gather).Add(b.Interval), gather)
	require.NoError(t, err)
	require.True(t, c.OK)
}

// The bot's budget for the whole cluster: two processes taking slots at
// once get distinct ones, an interval apart (less their clocks' measured
// offsets' error), so no second holds more calls than the rate; none
// free within the horizon says so.
func TestSendBudgetSpacesTheWholeCluster(t *testing.T) {
	a, b, _ := twoProcesses(t)
	ctx := context.Background()
	budgets := []*store.SendBudget{a.NewSendBudget(25, time.Now), b.NewSendBudget(25, time.Now)}
	interval := budgets[0].Interval()
	var mu sync.Mutex
	var got []time.Time
	var wg sync.WaitGroup
	for i := range 50 { // a second's burst from each of two processes
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Fifty slots at 25 a second reach past the horizon when a
			// loaded machine lets slots pass before they are handed out:
			// such a send comes back when told, as a Send does.
			var slot store.Slot
			for {
				s, ok, retryAt, err := budgets[i%2].Take(ctx)
				require.NoError(t, err)
				if ok {
					slot = s
					break
				}
				require.True(t, retryAt.After(time.Now().Add(-time.Second)), "come back later, not in the past")
				time.Sleep(time.Until(retryAt))
			}
			mu.Lock()
			got = append(got, slot.At)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.SortFunc(got, time.Time.Compare)
	for i := 1; i < len(got); i++ {
		require.GreaterOrEqual(t, got[i].Sub(got[i-1]), interval-5*time.Millisecond, "slots %d and %d", i-1, i)
	}
	require.LessOrEqual(t, fakesBusiest(got), 25, "calls in any second")
	for {
		_, ok, retryAt, err := budgets[0].Take(ctx)
		require.NoError(t, err)
		if !ok {
			require.True(t, retryAt.After(time.Now()), "come back later")
			break
		}
	}
}

// fakesBusiest is the most times within any one second.
func fakesBusiest(at []time.Time) int {
	most := 0
	for i := range at {
		n := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < time.Second; j++ {
			n++
		}
		most = max(most, n)
	}
	return most
}

// twoProcesses are two stores on one database, as two worker processes
// have, and a plain handle on it.
func twoProcesses(t *testing.T) (*store.Store, *store.Store, *mongo.Database) {
	a, db := testenv.StoreAndDatabase(t)
	return a, anotherProcess(t, db), db
}

// anotherProcess is one more process's store on db.
func anotherProcess(t *testing.T, db *mongo.Database) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), testenv.MongoURI(t), db.Name())
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(5 * time.Second) })
	return st
}

// callInChats makes a call of st in each of n chats from first on, at at.
func callInChats(t *testing.T, st *store.Store, first int64, n int, at time.Time) {
	t.Helper()
	for i := range int64(n) {
		c, err := st.ClaimCall(context.Background(), first+i, "b0", telegram.BudgetOf(first+i), at)
		require.NoError(t, err)
		require.True(t, c.OK, "chat %d", first+i)
	}
}

// threeProcessesAfterThreeCalls are three processes' stores on one
// database, and when the first of them made three calls in the chat
// (callThreeTimes).
func threeProcessesAfterThreeCalls(t *testing.T, chat int64) (a, b, c *store.Store, db *mongo.Database, at time.Time) {
	t.Helper()
	a, b, db = twoProcesses(t)
	c = anotherProcess(t, db)
	at = time.Now().UTC().Truncate(time.Millisecond)
	callThreeTimes(t, a, chat, "q", at)
	return a, b, c, db, at
}

// callThreeTimes makes three calls of st in the chat, 2 s apart from at
// (tickets prefix0-2): versions 1-3 of the chat's turns.
func callThreeTimes(t *testing.T, st *store.Store, chat int64, prefix string, at time.Time) {
	t.Helper()
	for i := range 3 {
		c, err := st.ClaimCall(context.Background(), chat, fmt.Sprintf("%s%d", prefix, i), telegram.BudgetOf(chat), at.Add(time.Duration(i)*2*time.Second))
		require.NoError(t, err)
		require.True(t, c.OK, "call %d", i)
	}
}

// Issue 29 item 2: a process that knows nothing of a chat (after a
// restart, or once its memory of chats was wiped) claims it in a few round
// trips, however long the chat's history since it was last quiet. On the
// old code it read the versions one by one: 123 round trips here, for a chat
// with a call every 1.1 s for two minutes (a group with one every 2
// minutes for 4 hours had 123).
func TestFreshProcessClaimsABusyChatInAFewRoundTrips(t *testing.T) {
	a, b, _ := twoProcesses(t)
	ctx := context.Background()
	const chat = int64(503)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 120 {
		c, err := a.ClaimCall(ctx, chat, fmt.Sprintf("t%03d", i), telegram.BudgetOf(chat), now.Add(time.Duration(i)*1100*time.Millisecond))
		require.NoError(t, err)
		require.True(t, c.OK, "claim %d", i)
	}
	last := now.Add(119 * 1100 * time.Millisecond)
	before := b.RoundTrips()
	c, err := b.ClaimCall(ctx, chat, "t999", telegram.BudgetOf(chat), last.Add(300*time.Millisecond))
	require.NoError(t, err)
	require.False(t, c.OK, "spaced from the other process's last call")
	require.Equal(t, last.Add(telegram.BudgetOf(chat).Interval), c.RetryAt)
	require.LessOrEqual(t, b.RoundTrips()-before, int64(3), "round trips of the fresh process's claim")
	c, err = b.ClaimCall(ctx, chat, "t999", telegram.BudgetOf(chat), c.RetryAt)
	require.NoError(t, err)
	require.True(t, c.OK)
}

// Issue 29 item 2: the prune reads what it may delete, not the collection
// (once every process read all of chat_calls every 30 s): here 3 old
// versions of a quiet chat among 60 chats that called a moment ago. On
// the old code the prune read all 63.
func TestChatPruneReadsOnlyWhatMayGo(t *testing.T) {
	st, b, _ := twoProcesses(t) // the busy chats' claims by b: no prune of its own meanwhile
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	const quiet = int64(504)
	callThreeTimes(t, st, quiet, "q", now)
	later := now.Add(store.ChatCallsQuiet + time.Minute)
	callInChats(t, b, 10_000, 60, later.Add(-10*time.Second))
	read, err := store.ChatPruneReadsForTest(ctx, st, later)
	require.NoError(t, err)
	require.Equal(t, 3, read, "versions a prune reads")
	deleted, _, err := st.PruneBatch(ctx, later, 100)
	require.NoError(t, err)
	require.Equal(t, int64(3), deleted, "the quiet chat's versions, not the busy ones'")
}

// Claims that one process makes at once, for different chats (the sends
// of a batch, issue 29 item 1), are written together: one InsertMany
// takes every claim queued while the one before is in flight. Each gets
// its turn, and a claim of a chat another process wrote first still loses
// and reads it (the chat's turn taken once). On the code before, every
// claim was an insert of its own: 25 round trips for 25 sends.
func TestClaimsOfAProcessAtOnceAreWrittenTogether(t *testing.T) {
	st, other, _ := twoProcesses(t)
	ctx := context.Background()
	now := time.Now()
	// Chat 25 has a call another process made just now.
	c, err := other.ClaimCall(ctx, 25, "other", telegram.BudgetOf(25), now)
	require.NoError(t, err)
	require.True(t, c.OK)
	before := st.RoundTripsBy()["insert chat_calls"]
	claims := make([]store.Claim, 26)
	var wg sync.WaitGroup
	for i := range 26 {
		wg.Go(func() {
			c, err := st.ClaimCall(ctx, int64(i), fmt.Sprintf("t%d", i), telegram.BudgetOf(int64(i)), now)
			require.NoError(t, err)
			claims[i] = c
		})
	}
	wg.Wait()
	inserts := st.RoundTripsBy()["insert chat_calls"] - before
	t.Logf("26 claims at once: %d inserts into chat_calls", inserts)
	for i, c := range claims[:25] {
		require.True(t, c.OK, "chat %d: its turn", i)
	}
	require.False(t, claims[25].OK, "chat 25: the other process's call was first")
	require.LessOrEqual(t, inserts, int64(13), "claims at once are written together")
}

// chatVersions are the _ids of the chat's versions in chat_calls, by v.
func chatVersions(t *testing.T, db *mongo.Database, chat int64) []string {
	t.Helper()
	cur, err := db.Collection("chat_calls").Find(context.Background(), bson.D{{Key: "chat", Value: chat}}, options.Find().SetSort(bson.D{{Key: "v", Value: 1}}))
	require.NoError(t, err)
	var docs []struct {
		ID string `bson:"_id"`
	}
	require.NoError(t, cur.All(context.Background(), &docs))
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	return ids
}

// Issue 29 item 2 on FerretDB: the process that wrote a chat's newest
// version deletes the chain once the chat is quiet, reading nothing (an
// insert and deletes by _id, which FerretDB hands to its storage; a read
// of the versions by age, or of chats with $in, it decodes in full: 3 s
// at 20,000 versions under load). The chats that called a moment ago
// keep theirs. On the code before, the prune a write started read
// chat_calls twice.
func TestQuietChatsAreClosedByTheirWriterReadingNothing(t *testing.T) {
	a, b, db := twoProcesses(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	const quiet, trigger = int64(507), int64(508)
	callThreeTimes(t, a, quiet, "q", now)
	later := now.Add(store.ChatCallsQuiet + time.Minute)
	callInChats(t, b, 20_000, 20, later.Add(-10*time.Second))
	before := a.RoundTripsBy()
	c, err := a.ClaimCall(ctx, trigger, "t0", telegram.BudgetOf(trigger), later) // starts the close
	require.NoError(t, err)
	require.True(t, c.OK)
	require.Eventually(t, func() bool { return len(chatVersions(t, db, quiet)) == 0 }, 30*time.Second, 20*time.Millisecond,
		"the quiet chat's versions are deleted")
	time.Sleep(100 * time.Millisecond) // the close's last answer counted
	after := a.RoundTripsBy()
	require.Zero(t, after["find chat_calls"]-before["find chat_calls"], "reads of chat_calls")
	require.Equal(t, int64(2), after["insert chat_calls"]-before["insert chat_calls"], "the trigger's claim and the close's one insert")
	require.Equal(t, int64(1), after["delete chat_calls"]-before["delete chat_calls"], "the close's one delete")
	n, err := db.Collection("chat_calls").CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	require.Equal(t, int64(21), n, "the busy chats' versions and the trigger's stay")
}

// A close finds out, by its insert, that another process wrote after the
// version it wrote last: the chat lives on, nothing is deleted, and the
// other process closes it once quiet.
func TestACloseLeavesAChatThatLivesOnWhole(t *testing.T) {
	a, b, db := twoProcesses(t)
	ctx := context.Background()
	const chat = int64(509)
	budget := telegram.BudgetOf(chat)
	now := time.Now().UTC().Truncate(time.Millisecond)
	callThreeTimes(t, a, chat, "a", now)
	bAt := now.Add(90 * time.Second)
	c, err := b.ClaimCall(ctx, chat, "b0", budget, bAt) // reads version 3, writes 4
	require.NoError(t, err)
	require.True(t, c.OK)

	deleted, err := store.CloseQuietChatsForTest(ctx, a, now.Add(store.ChatCallsQuiet+30*time.Second))
	require.NoError(t, err)
	require.Zero(t, deleted, "a's version 3 is not the chat's newest")
	require.Equal(t, []string{"509#1", "509#2", "509#3", "509#4"}, chatVersions(t, db, chat))

	deleted, err = store.CloseQuietChatsForTest(ctx, b, bAt.Add(store.ChatCallsQuiet+30*time.Second))
	require.NoError(t, err)
	require.Equal(t, int64(5), deleted, "the chain and the close's own version")
	require.Empty(t, chatVersions(t, db, chat))
}

// A close cut after its insert leaves an empty version after the old
// chain's newest; where the chat was started again meanwhile (by a
// claim that found it quiet enough), that version hides the new chain
// from a read. A claim that reads it starts the chat again, deleting
// only what the old chain wrote: the new chain stays whole and spaces
// the claim from its call. On the code before, the claim deleted the
// versions older than a minute, the new chain's version 1 among them,
// and called 100 ms after the other process (two chains, a 429).
func TestAChainStartedAgainOutlivesTheOldChainsClose(t *testing.T) {
	const chat = int64(510)
	a, b, c, db, t0 := threeProcessesAfterThreeCalls(t, chat)
	ctx := context.Background()
	budget := telegram.BudgetOf(chat)
	// b finds the chain quiet enough and starts it again; a minute and a
	// bit later it calls again (its version 2 of the new chain).
	cl, err := b.ClaimCall(ctx, chat, "b0", budget, t0.Add(150*time.Second))
	require.NoError(t, err)
	require.True(t, cl.OK)
	bAt := t0.Add(228 * time.Second)
	cl, err = b.ClaimCall(ctx, chat, "b1", budget, bAt)
	require.NoError(t, err)
	require.True(t, cl.OK)
	require.Equal(t, []string{"510#1", "510#2"}, chatVersions(t, db, chat))

	// a closes its chain (version 3): its empty version 4 goes in.
	require.NoError(t, store.InsertClosingsForTest(ctx, a, bAt))
	require.Equal(t, []string{"510#1", "510#2", "510#4"}, chatVersions(t, db, chat))

	cl, err = c.ClaimCall(ctx, chat, "c0", budget, bAt.Add(100*time.Millisecond))
	require.NoError(t, err)
	require.False(t, cl.OK, "a process that knew nothing of the chat called 100 ms after b")
	require.Equal(t, bAt.Add(budget.Interval), cl.RetryAt)
	require.Equal(t, []string{"510#1", "510#2", "510#3"}, chatVersions(t, db, chat), "the new chain, c's turn waiting last")
}
