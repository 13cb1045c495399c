package activities_test

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// batchOf is a batch of sends of e to chats, as a delivery starts it.
func batchOf(e string, chats []int64, attempts int32) activities.SendBatchInput {
	in := activities.SendBatchInput{WaitWithin: 3 * time.Second}
	for _, c := range chats {
		k := strconv.FormatInt(c, 10)
		in.Sends = append(in.Sends, activities.SendInput{EventKey: e, Recipient: activities.Recipient{Key: k, ChatID: c},
			PerCall: true, Ticket: activities.TicketOf(time.Time{}, e, k), Attempts: attempts})
	}
	return in
}

func runBatch(t *testing.T, w *world, in activities.SendBatchInput) activities.SendBatchResult {
	t.Helper()
	r := runActivity[activities.SendBatchResult](t, w, w.a.SendBatch, in)
	require.Len(t, r.Outcomes, len(in.Sends), "an outcome per send, in order")
	return r
}

// tripsSince is the round trips by command since before.
func tripsSince(before, after map[string]int64) (map[string]int64, int64) {
	out, total := map[string]int64{}, int64(0)
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k], total = d, total+d
		}
	}
	return out, total
}

// A batch of 25 sends in one activity makes its 25 calls, each chat once,
// and pays a few MongoDB round trips for all of them: the chats' turns and
// the /why records of sends under way together are written together
// (issue 29 items 1 and 6). One Send per message paid an insert into
// chat_calls and one into fates each: 50 round trips for 25 messages,
// 2.39 a message in the fan-out with everything else.
func TestBatchOfSendsPaysAFewRoundTrips(t *testing.T) {
	w := newWorld(t)
	w.a.Budget = w.st.NewSendBudget(25, time.Now)
	var chats []int64
	for c := int64(1); c <= 25; c++ {
		chats = append(chats, c)
	}
	e := componentNotice(t, w, chats[0])
	for _, c := range chats[1:] {
		componentNotice(t, w, c)
	}
	before := w.st.RoundTripsBy()
	r := runBatch(t, w, batchOf(e.Key, chats, 6))
	by, total := tripsSince(before, w.st.RoundTripsBy())
	for i, o := range r.Outcomes {
		require.Nil(t, o.Failure, "send %d", i)
		require.NotNil(t, o.Result, "send %d", i)
		require.Nil(t, o.Result.Next, "send %d settled in the batch", i)
	}
	got := map[int64]int{}
	for _, m := range w.tg.Messages() {
		got[m.ChatID]++
	}
	require.Len(t, got, 25)
	for c, n := range got {
		require.Equal(t, 1, n, "chat %d", c)
	}
	keys := slices.Sorted(maps.Keys(by))
	t.Logf("round trips for 25 messages: %d (%.2f a message): %v (%v)", total, float64(total)/25, by, keys)
	require.Less(t, by["insert chat_calls"], int64(13), "the chats' turns: written together, not one insert each")
	require.Less(t, by["insert fates"], int64(13), "the /why records: written together, not one insert each")
	require.LessOrEqual(t, float64(total)/25, 0.75, "round trips a message, the first sends of a process (clock sync, the message's read) included")
}

// A send whose chat's next turn is further off than the batch waits is
// handed back to the delivery with its next call and when; within it, the
// batch waits and calls.
func TestBatchHandsBackAFarTurnAndWaitsANearOne(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e := componentNotice(t, w, 1)
	// Another worker's call in chat 1 just now: chat 1's turn comes in a second.
	calledJustNow(t, w, 1, "another worker's call", time.Now())
	in := batchOf(e.Key, []int64{1}, 6)
	in.WaitWithin = 100 * time.Millisecond
	o := runBatch(t, w, in).Outcomes[0]
	require.Nil(t, o.Failure)
	require.NotNil(t, o.Result.Next, "handed back: its turn is a second away")
	require.Equal(t, "1", o.Result.Next.Recipient.Key)
	require.WithinDuration(t, time.Now().Add(time.Second), o.Result.NotBefore, 1500*time.Millisecond)
	require.Zero(t, w.tg.Calls("sendMessage"))

	_, err := w.st.ClaimCall(ctx, 1, "another worker's second call", telegram.BudgetOf(1), time.Now().Add(time.Second))
	require.NoError(t, err)
	in.WaitWithin = 5 * time.Second
	o = runBatch(t, w, in).Outcomes[0]
	require.Nil(t, o.Failure)
	require.Nil(t, o.Result.Next, "waited for its turn in the batch")
	require.Equal(t, 1, w.tg.Calls("sendMessage"))
}

// A failed call leaves the batch with its burst: the call to retry with
// the failure counted, or, on the burst's last attempt, final (the
// delivery settles it as it would a Send that spent its attempts).
func TestBatchFailureCarriesItsBurst(t *testing.T) {
	w := newWorld(t)
	e := componentNotice(t, w, 7)
	w.tg.FailChat(7, func(int) *fakes.APIError { return fakes.ErrInternal })
	o := runBatch(t, w, batchOf(e.Key, []int64{7}, 3)).Outcomes[0]
	require.NotNil(t, o.Failure)
	require.False(t, o.Failure.Final)
	require.Equal(t, activities.ErrTypeTransient, o.Failure.Type)
	require.NotNil(t, o.Failure.Retry)
	require.Equal(t, int32(1), o.Failure.Retry.Failed, "the batch's attempt counts in the burst")

	in := batchOf(e.Key, []int64{7}, 3)
	in.Sends[0].Failed = 2
	o = runBatch(t, w, in).Outcomes[0]
	require.NotNil(t, o.Failure)
	require.True(t, o.Failure.Final, "the burst's last attempt")
	require.Nil(t, o.Failure.Retry)

	w.tg.FailChat(8, func(int) *fakes.APIError { return fakes.ErrTooLong })
	componentNotice(t, w, 8)
	o = runBatch(t, w, batchOf(e.Key, []int64{8}, 3)).Outcomes[0]
	require.NotNil(t, o.Failure)
	require.True(t, o.Failure.Final, "the message refused: no retry")
	require.Equal(t, activities.ErrTypePermanentMessage, o.Failure.Type)
}

// A batch retried after its worker died goes on from its last heartbeat:
// the sends it had told are not sent again.
func TestBatchRetriedGoesOnFromItsHeartbeat(t *testing.T) {
	w := newWorld(t)
	e := componentNotice(t, w, 1)
	componentNotice(t, w, 2)
	in := batchOf(e.Key, []int64{1, 2}, 6)
	// What the batch's heartbeat said before its worker died: chat 1 told.
	w.env.SetHeartbeatDetails(struct {
		Done []bool                   `json:"done"`
		At   []activities.SendInput   `json:"at"`
		Acc  []activities.SendOutcome `json:"acc"`
	}{Done: []bool{true, false}, At: in.Sends, Acc: []activities.SendOutcome{{Result: &activities.SendResult{As: "message"}}, {}}})
	r := runBatch(t, w, in)
	require.Len(t, w.tg.Messages(), 1)
	require.Equal(t, int64(2), w.tg.Messages()[0].ChatID, "only the send not told before")
	require.Equal(t, "message", r.Outcomes[0].Result.As, "the told send's outcome, from the heartbeat")
	require.Nil(t, r.Outcomes[1].Result.Next)
}

// A send still waiting for its chat's turn after a chain's worth of short
// waits is handed back to the delivery, which goes on waiting with it.
// Before, the batch failed it as "a chain of calls that does not end": at
// 3 calls a second with a window of 50 sends, chats waiting for a slot
// lost their first pass and got the notice a minute's backoff later,
// after the next update's own pass.
func TestBatchHandsBackASendStillWaitingAfterManyShortWaits(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e := componentNotice(t, w, 1)
	b := telegram.BudgetOf(1)
	// A call in chat 1 just now, and another send's turn waiting ahead of
	// this one, whose owner does not come back: chat 1's turn stays a
	// second or so away for a minute (store.TurnGrace).
	calledJustNow(t, w, 1, "0 another worker's call", time.Now())
	c, err := w.st.ClaimCall(ctx, 1, "1 a send that waits ahead", b, time.Now())
	require.NoError(t, err)
	require.False(t, c.OK)
	in := batchOf(e.Key, []int64{1}, 6)
	in.Sends[0].Ticket = "2 this send"
	o := runBatch(t, w, in).Outcomes[0]
	require.Nil(t, o.Failure, "still waiting is no failure")
	require.NotNil(t, o.Result.Next, "handed back to wait on")
	require.Zero(t, w.tg.Calls("sendMessage"))
}
