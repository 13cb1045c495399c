package activities_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// chain runs a send as a delivery does with one call per Send: each Send,
// then its Next at NotBefore. It returns the chain's last result and how
// many Bot API calls it made, checking that no Send made more than one.
func chain(t *testing.T, w *world, in activities.SendInput) (*activities.SendResult, int) {
	t.Helper()
	in.PerCall = true
	calls := 0
	for n := 1; ; n++ {
		before := w.tg.Calls("sendMessage") + w.tg.Calls("editMessageText") + w.tg.Calls("pinChatMessage") + w.tg.Calls("unpinChatMessage")
		v, err := w.env.ExecuteActivity(w.a.Send, in)
		require.NoError(t, err)
		var r activities.SendResult
		require.NoError(t, v.Get(&r))
		after := w.tg.Calls("sendMessage") + w.tg.Calls("editMessageText") + w.tg.Calls("pinChatMessage") + w.tg.Calls("unpinChatMessage")
		require.LessOrEqual(t, after-before, 1, "Bot API calls in Send %d", n)
		calls += after - before
		if r.Next == nil {
			return &r, calls
		}
		time.Sleep(time.Until(r.NotBefore))
		in = *r.Next
	}
}

// In cards mode a group's card is posted and pinned, edited and replied
// to, and on resolution edited, replied to and unpinned, one Bot API call
// per Send, a turn apart: under Telegram's limits (the fake's, pins
// counted), no 429.
func TestSendPerCallCardChains(t *testing.T) {
	w := newWorld(t)
	w.tg.RealLimits()
	ctx := context.Background()
	const group = int64(-5)
	key := store.SubscriberKey(group, 0)
	_, err := w.st.Subscribe(ctx, group, 0, time.Now())
	require.NoError(t, err)
	require.NoError(t, w.st.ReplaceSettings(ctx, key, store.Settings{Mode: store.ModeCards, PinCards: true}))
	at := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	ev := func(update, status, body string) event.Event {
		return event.Event{Key: "incident:inc1:" + update + ":v1", OrderKey: "incident:inc1", Kind: event.KindIncident, At: at,
			Notify: true, IncidentID: "inc1", IncidentName: "Elevated errors", Impact: "minor", UpdateID: update, UpdateStatus: status, Body: body}
	}
	for i, step := range []struct {
		e     event.Event
		calls int
	}{
		{ev("u1", "investigating", "We are looking into it."), 2}, // card, pin
		{ev("u2", "identified", "Found it."), 2},                  // edit, reply
		{ev("u3", "resolved", "Fixed."), 3},                       // edit, reply, unpin
	} {
		_, err := w.env.ExecuteActivity(w.a.PrepareMessage, step.e)
		require.NoError(t, err)
		in := activities.SendInput{EventKey: step.e.Key, Recipient: activities.Recipient{Key: key, ChatID: group},
			Ticket: activities.TicketOf(step.e.At, step.e.Key, key)}
		r, calls := chain(t, w, in)
		require.Equal(t, step.calls, calls, "update %d", i+1)
		require.Nil(t, r.Card, "recorded by the send")
		msgs := w.tg.MessagesTo(group, 0)
		require.Len(t, msgs, i+1)
		require.Equal(t, i < 2, w.tg.Pinned(msgs[0].ID), "pinned until resolved")
	}
	msgs := w.tg.MessagesTo(group, 0)
	require.Equal(t, 2, w.tg.EditCount(msgs[0].ID))
	require.Equal(t, msgs[0].ID, msgs[2].ReplyTo)
	cards, err := w.st.Cards(ctx, "inc1", []string{key})
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2", "u3"}, cards[key].Updates)
	require.False(t, cards[key].Pinned)
	require.Zero(t, w.tg.TooManyCount(), "429s")
}

// A Send whose chat's turn another process just took makes no call: it
// names itself as the next Send, at the chat's next turn (chain then
// sleeps until it before the next Send).
func TestSendPerCallWaitsForTheChatsTurnWithoutCalling(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e := componentNotice(t, w, 1)
	calledJustNow(t, w, 1, "another worker's call", time.Now())
	require.NoError(t, w.st.ConfirmCall(ctx, 1, "another worker's call", time.Now()))
	in := activities.SendInput{EventKey: e.Key, Recipient: activities.Recipient{Key: "1", ChatID: 1}, PerCall: true, Ticket: "t"}
	v, err := w.env.ExecuteActivity(w.a.Send, in)
	require.NoError(t, err)
	var r activities.SendResult
	require.NoError(t, v.Get(&r))
	require.Equal(t, in, *r.Next)
	require.Empty(t, w.tg.MessagesTo(1, 0), "no call before the chat's turn")
	require.WithinDuration(t, time.Now().Add(telegram.BudgetOf(1).Interval), r.NotBefore, 300*time.Millisecond)
	res, calls := chain(t, w, *r.Next)
	require.Equal(t, 1, calls)
	require.Equal(t, activities.SendResult{As: store.AsMessage}, *res)
	require.Len(t, w.tg.MessagesTo(1, 0), 1)
}

// A group that became a supergroup: the first Send moves the subscription
// and names the send to the supergroup as the next; a failure there names
// the supergroup, as a single Send's does.
func TestSendPerCallAfterAMove(t *testing.T) {
	w := newWorld(t)
	e := componentNotice(t, w, -3)
	w.tg.FailChat(-3, func(int) *fakes.APIError { return fakes.Upgraded(-1003) })
	w.tg.FailChat(-1003, func(n int) *fakes.APIError {
		if n == 1 {
			return fakes.ErrInternal
		}
		return nil
	})
	in := activities.SendInput{EventKey: e.Key, Recipient: activities.Recipient{Key: "-3", ChatID: -3}, PerCall: true, Ticket: "t"}
	v, err := w.env.ExecuteActivity(w.a.Send, in)
	require.NoError(t, err)
	var r activities.SendResult
	require.NoError(t, v.Get(&r))
	require.Equal(t, int64(-1003), r.MigratedTo)
	require.Equal(t, "-1003", r.NewKey)
	require.True(t, r.Next.Moved)
	require.Equal(t, int64(-1003), r.Next.Recipient.ChatID)
	_, err = w.env.ExecuteActivity(w.a.Send, *r.Next)
	moved, ok := activities.MovedRecipient(err)
	require.True(t, ok, "the failure names the supergroup: %v", err)
	require.Equal(t, "-1003", moved.Key)
	time.Sleep(1100 * time.Millisecond)
	_, calls := chain(t, w, *r.Next)
	require.Equal(t, 1, calls)
	require.Len(t, w.tg.MessagesTo(-1003, 0), 1, "delivered to the supergroup")
}

// sendBurst runs a send as the delivery does with one call per Send: the
// retry policy's attempts, and each Next on a timer at its NotBefore. It
// returns the chain's last error; a chain of 20 Sends never ends (a burst of 3 attempts is 3 failures, each retry at most one turn apart).
func sendBurst(ctx workflow.Context, in activities.SendInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: in.Attempts}})
	for range 20 {
		var res activities.SendResult
		if err := workflow.ExecuteActivity(ctx, "Send", in).Get(ctx, &res); err != nil {
			return err
		}
		if res.Next == nil {
			return nil
		}
		// The test environment's timers fire at once; the chat's turn
		// comes in real time.
		if err := workflow.ExecuteActivity(ctx, waitUntil, res.NotBefore).Get(ctx, nil); err != nil {
			return err
		}
		in = *res.Next
	}
	return errors.New("the chain of Sends never ended")
}

func waitUntil(_ context.Context, t time.Time) error {
	time.Sleep(time.Until(t))
	return nil
}

// A failing call's retry finds the chat's turn taken by the failed call
// itself and comes back as a new Send: the burst goes on there, so a chat
// whose calls all fail ends its burst after its attempts (the delivery
// then backs off), not a fresh burst every turn. Before, the failures
// never ended it, and the delivery's first pass, and every later update
// of the incident, waited for ever.
func TestSendPerCallBurstEndsAcrossTurns(t *testing.T) {
	w := newWorld(t)
	e := componentNotice(t, w, 7)
	var calls atomic.Int32
	w.tg.FailChat(7, func(int) *fakes.APIError { calls.Add(1); return fakes.ErrInternal })

	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(w.a)
	env.RegisterWorkflow(sendBurst)
	env.RegisterActivity(waitUntil)
	env.SetTestTimeout(time.Minute)
	const attempts = 3
	env.ExecuteWorkflow(sendBurst, activities.SendInput{EventKey: e.Key, Recipient: activities.Recipient{Key: "7", ChatID: 7},
		PerCall: true, Ticket: "t", Attempts: attempts})
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae, "the burst ends with the send's failure")
	require.Equal(t, activities.ErrTypeTransient, ae.Type())
	require.Equal(t, int32(attempts), calls.Load(), "calls in the burst")
}

// In cards mode a burst of component changes for one group is one message
// when their turns have queued: the Send whose turn comes tells the
// changes of the burst waiting right behind it too, in order, and their
// Sends make no call. Messages mode keeps a message each. The same on a
// page other than the legacy one, whose keys are scoped ("github/component:…").
func TestSendPerCallFoldsABurstOfComponentChanges(t *testing.T) {
	for _, c := range []struct{ page, mode string }{{"", store.ModeCards}, {"", store.ModeMessages}, {"github", store.ModeCards}} {
		page, mode := c.page, c.mode
		t.Run(page+"/"+mode, func(t *testing.T) {
			w := newWorld(t)
			w.tg.RealLimits()
			ctx := context.Background()
			const group = int64(-7)
			key := store.SubscriberKey(group, 0)
			_, err := w.st.Subscribe(ctx, group, 0, time.Now())
			require.NoError(t, err)
			at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			var ins []activities.SendInput
			for i, name := range []string{"Alpha", "Bravo", "Charlie", "Delta"} {
				e := event.Event{Key: pages.Scope(page, fmt.Sprintf("component:c%d:major_outage:t", i)), OrderKey: pages.Scope(page, fmt.Sprintf("component:c%d", i)),
					Page: page, Kind: event.KindComponent, At: at.Add(time.Duration(i) * time.Millisecond), ComponentID: pages.Scope(page, fmt.Sprintf("c%d", i)),
					ComponentName: name, OldStatus: "operational", NewStatus: "major_outage", Notify: true}
				_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
				require.NoError(t, err)
				ins = append(ins, activities.SendInput{EventKey: e.Key, PerCall: true, Ticket: activities.BurstTicketOf(e.At, e.Key, key, i+1), Burst: i + 1,
					Recipient: activities.Recipient{Key: key, ChatID: group, Cards: mode == store.ModeCards, CardRead: true}})
			}
			send := func(in activities.SendInput) *activities.SendResult {
				v, err := w.env.ExecuteActivity(w.a.Send, in)
				require.NoError(t, err)
				var r activities.SendResult
				require.NoError(t, v.Get(&r))
				return &r
			}
			// A burst's first call in a quiet chat waits for the others.
			first := send(ins[0])
			require.NotNil(t, first.Next, "the first of a burst gathers the others")
			time.Sleep(time.Until(first.NotBefore))
			first = send(ins[0])
			require.Nil(t, first.Next, "the first goes")
			var retryAt time.Time
			for _, in := range ins[1:] { // the others queue behind it
				r := send(in)
				require.NotNil(t, r.Next)
				retryAt = r.NotBefore
			}
			time.Sleep(time.Until(retryAt))
			r, calls := chain(t, w, ins[1])
			require.Equal(t, 1, calls)
			require.Equal(t, store.AsMessage, r.As)
			msgs := w.tg.MessagesTo(group, 0)
			require.Len(t, msgs, 2)
			if mode == store.ModeMessages {
				require.NotContains(t, msgs[1].Text, "Charlie")
				return
			}
			require.Contains(t, msgs[1].Text, "Bravo")
			i, j := strings.Index(msgs[1].Text, "Charlie"), strings.Index(msgs[1].Text, "Delta")
			require.True(t, i > 0 && j > i, "the changes behind it, in order:\n%s", msgs[1].Text)
			for _, in := range ins[2:] {
				r, calls := chain(t, w, in)
				require.Zero(t, calls, "told already")
				require.Equal(t, store.AsFolded, r.As)
			}
			require.Len(t, w.tg.MessagesTo(group, 0), 2)
			fates, err := w.st.LastFates(ctx, key, 4)
			require.NoError(t, err)
			require.Len(t, fates, 4)
			require.Equal(t, store.AsFolded, fates[0].As, "for /why")
			require.Zero(t, w.tg.TooManyCount())
		})
	}
}

// componentNotice prepares a component change's notice and subscribes chat.
func componentNotice(t *testing.T, w *world, chat int64) event.Event {
	t.Helper()
	e := event.Event{Key: "component:x:major_outage:t", Kind: event.KindComponent, ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage"}
	_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	_, err = w.st.Subscribe(context.Background(), chat, 0, time.Now())
	require.NoError(t, err)
	return e
}

// A card's record names its new update from the edit on, not from the
// reply a turn later: a component change whose turn falls between them
// renders the card from the card's record (fold.go), and before, that was
// still the update before: the resolved card rolled back to "Status:
// Investigating" for good, under a reply saying Resolved.
func TestCardRecordLearnsTheUpdateAtTheEdit(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	const group = int64(-6)
	key := store.SubscriberKey(group, 0)
	_, err := w.st.Subscribe(ctx, group, 0, time.Now())
	require.NoError(t, err)
	require.NoError(t, w.st.ReplaceSettings(ctx, key, store.Settings{Mode: store.ModeCards}))
	at := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	ev := func(update, status string) event.Event {
		return event.Event{Key: "incident:inc2:" + update + ":v1", OrderKey: "incident:inc2", Kind: event.KindIncident, At: at,
			Notify: true, IncidentID: "inc2", IncidentName: "Elevated errors", Impact: "minor", UpdateID: update, UpdateStatus: status, Body: status}
	}
	first, resolved := ev("u1", "investigating"), ev("u2", "resolved")
	for _, e := range []event.Event{first, resolved} {
		_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
		require.NoError(t, err)
	}
	_, calls := chain(t, w, activities.SendInput{EventKey: first.Key, Recipient: activities.Recipient{Key: key, ChatID: group},
		Ticket: activities.TicketOf(first.At, first.Key, key)})
	require.Equal(t, 1, calls, "the card")

	// The resolution's first call: the card's edit, its reply still to come.
	in := activities.SendInput{EventKey: resolved.Key, PerCall: true,
		Recipient: activities.Recipient{Key: key, ChatID: group}, Ticket: activities.TicketOf(resolved.At, resolved.Key, key)}
	for i := 0; ; i++ {
		require.Less(t, i, 20)
		v, err := w.env.ExecuteActivity(w.a.Send, in)
		require.NoError(t, err)
		var r activities.SendResult
		require.NoError(t, v.Get(&r))
		require.NotNil(t, r.Next, "the reply comes after the edit")
		if r.Next.Step != nil {
			require.Equal(t, "reply", r.Next.Step.Call)
			break
		}
		time.Sleep(time.Until(r.NotBefore)) // the chat's turn
		in = *r.Next
	}
	require.Equal(t, 1, w.tg.EditCount(w.tg.MessagesTo(group, 0)[0].ID), "edited")
	cards, err := w.st.Cards(ctx, "inc2", []string{key})
	require.NoError(t, err)
	require.Equal(t, resolved.Key, cards[key].Event, "the card's record names the update it shows from the edit on")
}

// calledJustNow makes another process's call in chat at now: the chat's
// next turn is a second or so away.
func calledJustNow(t *testing.T, w *world, chat int64, ticket string, at time.Time) {
	t.Helper()
	c, err := w.st.ClaimCall(context.Background(), chat, ticket, telegram.BudgetOf(chat), at)
	require.NoError(t, err)
	require.True(t, c.OK)
}
