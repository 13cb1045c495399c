package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/workflows"
)

// A card update is a chain of Sends of one Bot API call each (so the send
// queue's rate limit counts calls): the edit's Send names the reply as
// the next, not before the chat's next turn; the delivery starts it on a
// timer, and settles the subscriber once, with the card the chain left to
// record.
func TestDeliveryCardUpdateIsAChainOfOneCallSends(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	d.chain = func(in activities.SendInput) *activities.SendResult {
		if in.Step != nil {
			return &activities.SendResult{} // the reply: the end of the chain
		}
		next := in
		next.Step = &activities.SendStep{Call: "reply", Card: store.IncidentCard{Sub: "a", MessageID: 7}}
		return &activities.SendResult{Next: &next, NotBefore: d.Now().Add(1050 * time.Millisecond),
			Card: &store.IncidentCard{Sub: "a", MessageID: 7}}
	}
	e := componentEvent("c1", "major_outage", t0)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
	require.NoError(t, d.GetWorkflowError())
	require.Len(t, d.inputs, 2, "the edit's Send and the reply's")
	first, second := d.inputs[0], d.inputs[1]
	require.True(t, first.PerCall, "sends of a new delivery make one call each")
	require.Equal(t, activities.TicketOf(e.At, e.Key, "a"), first.Ticket)
	require.Nil(t, first.Step)
	require.Equal(t, "reply", second.Step.Call)
	require.GreaterOrEqual(t, d.at[1].Sub(d.at[0]), 1050*time.Millisecond, "the reply waits for the chat's turn on a timer")
	require.Equal(t, []string{"a"}, d.recorded)
	require.Equal(t, []string{"a"}, d.cards, "the card the edit's Send could not record goes with the ledger")
	p := d.progress(t)
	require.Equal(t, 1, p.Delivered)
}

// A Send whose chat has no turn free makes no call and names itself as
// the next, at the chat's turn: the delivery waits on a timer, however
// long, before the attempt (a send queue at TELEGRAM_RATE_LIMIT=1 or a
// group's minute spent never runs an attempt into its time-out).
func TestDeliveryWaitsForTheChatsTurnBeforeTheAttempt(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b")})
	waited := map[string]bool{}
	d.chain = func(in activities.SendInput) *activities.SendResult {
		k := in.Recipient.Key
		if !waited[k] {
			waited[k] = true
			return &activities.SendResult{Next: &in, NotBefore: d.Now().Add(40 * time.Second)}
		}
		return &activities.SendResult{}
	}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
		Tuning: workflows.Tuning{SendTimeout: 5 * time.Second}})
	require.NoError(t, d.GetWorkflowError())
	require.Len(t, d.inputs, 4)
	require.GreaterOrEqual(t, d.at[3].Sub(d.at[0]), 40*time.Second)
	require.ElementsMatch(t, []string{"a", "b"}, d.recorded)
	require.Equal(t, 2, d.progress(t).Delivered)
}

// A chain whose first call moved the group to a supergroup is delivered
// there and recorded under both keys, as a single Send's move is.
func TestDeliveryChainAfterAMoveRecordsBothKeys(t *testing.T) {
	d := newDeliveryEnv(t)
	d.pages(activities.RecipientPage{Recipients: recipients("-5")})
	d.chain = func(in activities.SendInput) *activities.SendResult {
		if in.Moved {
			return &activities.SendResult{}
		}
		next := in
		next.Recipient, next.Moved = activities.Recipient{Key: "-1005", ChatID: -1005}, true
		return &activities.SendResult{MigratedTo: -1005, NewKey: "-1005", Next: &next}
	}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0)})
	require.NoError(t, d.GetWorkflowError())
	require.Len(t, d.inputs, 2)
	require.ElementsMatch(t, []string{"-5", "-1005"}, d.recorded)
	p := d.progress(t)
	require.Equal(t, 1, p.Migrated)
	require.Equal(t, 1, p.Delivered)
}
