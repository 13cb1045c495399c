package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// A Send whose chat's turn has not come spends nothing of the bot's
// budget for the cluster: the chat's turn is checked at the slot's time
// before the slot is used, and a refused slot goes back to this process's
// free slots for the next send (issue 29 item 4). On the old code every
// such Send took a slot first (an insert into call_slots each): 30
// returns to a busy chat spent 30 slots, over a second of the budget at 25.
func TestSendThatMayNotCallYetSpendsNoSlot(t *testing.T) {
	w := newWorld(t)
	w.a.Budget = w.st.NewSendBudget(25, time.Now)
	ctx := context.Background()
	e := componentNotice(t, w, 1)
	// Another worker's call in chat 1 just now: chat 1's turn comes in a second.
	c, err := w.st.ClaimCall(ctx, 1, "another worker's call", telegram.BudgetOf(1), time.Now())
	require.NoError(t, err)
	require.True(t, c.OK)
	in := activities.SendInput{EventKey: e.Key, Recipient: activities.Recipient{Key: "1", ChatID: 1}, PerCall: true, Ticket: "t"}
	before := w.st.RoundTripsBy()["insert call_slots"]
	start := time.Now()
	sends := 0
	for sends < 30 && time.Since(start) < 500*time.Millisecond { // within the chat's second
		v, err := w.env.ExecuteActivity(w.a.Send, in)
		require.NoError(t, err)
		var r activities.SendResult
		require.NoError(t, v.Get(&r))
		require.NotNil(t, r.Next, "send %d: the chat's turn has not come", sends+1)
		sends++
	}
	require.Zero(t, w.tg.Calls("sendMessage"))
	leases := w.st.RoundTripsBy()["insert call_slots"] - before
	// One lease (half a second of slots) serves them all; a second only
	// when the first ran out of time on a slow machine.
	require.LessOrEqual(t, leases, int64(2), "inserts into call_slots for %d sends that may not call yet", sends)
	// The slot they were handed is still free: the next send in another
	// chat gets a slot at once, not a second of spent slots later.
	e2 := componentNotice(t, w, 2)
	began := time.Now()
	v, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e2.Key, Recipient: activities.Recipient{Key: "2", ChatID: 2}, PerCall: true, Ticket: "u"})
	require.NoError(t, err)
	var r activities.SendResult
	require.NoError(t, v.Get(&r))
	require.Nil(t, r.Next, "chat 2's send called")
	require.Equal(t, 1, w.tg.Calls("sendMessage"))
	require.Less(t, time.Since(began), 400*time.Millisecond, "chat 2's call waited for spent slots")
}
