package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/workflows"
)

// incidentStep is the seq-th update of incident i (its order key
// incident:i).
func incidentStep(seq int, at time.Time) event.Event {
	return event.Event{Key: "incident:i:u" + string(rune('0'+seq)) + ":v", OrderKey: "incident:i", Seq: seq, Kind: event.KindIncident,
		At: at, Notify: true, IncidentID: "i", IncidentName: "Outage", UpdateID: "u" + string(rune('0'+seq)), UpdateStatus: "investigating"}
}

// updateCall sends an Update and keeps whether it was rejected.
type updateCall struct {
	rejected error
	done     bool
}

func (u *updateCall) callback() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) { u.rejected = err },
		OnComplete: func(any, error) { u.done = true }}
}

// A delivery sending its first pass takes a newer step of its story
// handed over to it: every send it starts from then on tells that step
// too (the chats it has not reached get the newest in this pass); the
// sends started before do not. It takes a still newer step the same way,
// the same step again (a retried hand-over), never an older one, and
// none once its first pass is done. On the build before versionHandOver
// the Update did not exist and every send told its own step alone.
func TestDeliverySendingTakesANewerStepForTheChatsAhead(t *testing.T) {
	d := newSlowDeliveryEnv(t, 10*time.Second)
	e := incidentStep(1, t0)
	d.pages(activities.RecipientPage{Recipients: recipients("a", "b", "c", "d", "e")})
	u2 := activities.Covered{Event: incidentStep(2, t0).Key, Seq: 2}
	u3 := activities.Covered{Event: incidentStep(3, t0).Key, Seq: 3}
	handOver := func(step activities.Covered) activities.HandOver {
		return activities.HandOver{OrderKey: "incident:i", Step: step}
	}
	var first, again, older, newer, late, other updateCall
	// a is sent from 0 to 10 s, b from 10 s, c from 20 s (one at a time).
	d.RegisterDelayedCallback(func() { d.UpdateWorkflow(activities.UpdateHandOver, "h2", first.callback(), handOver(u2)) }, 15*time.Second)
	d.RegisterDelayedCallback(func() {
		d.UpdateWorkflow(activities.UpdateHandOver, "h2b", again.callback(), handOver(u2))
		d.UpdateWorkflow(activities.UpdateHandOver, "h1", older.callback(), handOver(activities.Covered{Event: e.Key, Seq: 1}))
		d.UpdateWorkflow(activities.UpdateHandOver, "hx", other.callback(),
			activities.HandOver{OrderKey: "incident:other", Step: activities.Covered{Event: "incident:other:u9:v", Seq: 9}})
	}, 16*time.Second)
	d.RegisterDelayedCallback(func() { d.UpdateWorkflow(activities.UpdateHandOver, "h3", newer.callback(), handOver(u3)) }, 25*time.Second)
	d.RegisterDelayedCallback(func() {
		d.UpdateWorkflow(activities.UpdateHandOver, "h4", late.callback(), handOver(activities.Covered{Event: "incident:i:u4:v", Seq: 4}))
	}, 160*time.Second) // e's first burst failed (40-131 s): its retry backs off a minute
	boom := temporal.NewApplicationError("error response from telegram for method sendMessage, 502 Bad Gateway", activities.ErrTypeTransient)
	for range workflows.DefaultTuning().SendAttempts {
		d.fail["e"] = append(d.fail["e"], boom)
	}
	d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).Return(&activities.PredecessorState{FirstPassDone: true}, nil).Maybe()
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e, Tuning: workflows.Tuning{WindowSize: 1}})
	require.NoError(t, d.GetWorkflowError())

	newerOf := map[string]*activities.Covered{}
	for _, in := range d.inputs {
		newerOf[in.Recipient.Key] = in.Newer // e's: its retry's
	}
	require.Nil(t, newerOf["a"], "sent before the hand-over")
	require.Nil(t, newerOf["b"], "in flight at the hand-over")
	require.Equal(t, &u2, newerOf["c"])
	require.Equal(t, &u3, newerOf["d"], "the newest handed over")
	require.Equal(t, &u3, newerOf["e"], "a retry tells the newest handed over too")
	require.Equal(t, []string{"a", "b", "c", "d", "e"}, d.sent, "each chat once")
	require.NoError(t, first.rejected)
	require.NoError(t, again.rejected, "the same step again: a retried hand-over")
	require.Error(t, older.rejected, "not newer than the step it tells")
	require.Error(t, other.rejected, "another story")
	require.NoError(t, newer.rejected)
	require.Error(t, late.rejected, "the first pass is done: the newer step's delivery reaches the chats itself")
	require.Empty(t, d.handOvers, "a first step offers nothing: it has no predecessor")
	require.Equal(t, u3.Event, d.progress(t).Newer, "the result names the step it told with its own")
}

// A newer step's delivery offers its step, once its message is stored,
// to the delivery it waits for, then waits as before; component changes
// (their bursts) and first steps offer nothing.
func TestDeliveryOffersItsStepToTheOneSending(t *testing.T) {
	d := newDeliveryEnv(t)
	e := incidentStep(2, t0)
	e.Predecessor = incidentStep(1, t0).Key
	d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).Return(
		func(context.Context, string, bool) (*activities.PredecessorState, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.steps = append(d.steps, "wait")
			return &activities.PredecessorState{FirstPassDone: true}, nil
		})
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
	require.NoError(t, d.GetWorkflowError())
	require.Equal(t, []activities.HandOverInput{{WorkflowID: workflows.DeliveryWorkflowID(e.Predecessor), OrderKey: "incident:i",
		Step: activities.Covered{Event: e.Key, Seq: 2}}}, d.handOvers)
	require.Equal(t, []string{"prepare", "handover", "wait"}, d.steps, "offered after its message is stored, before the wait")
	require.Equal(t, []string{"a"}, d.sent)

	c := newDeliveryEnv(t)
	ce := componentEvent("c1", "operational", t0)
	ce.Predecessor, ce.Seq = "component:c1:major_outage:earlier", 2
	c.OnActivity(c.a.PredecessorProgress, mock.Anything, mock.Anything, true).Return(&activities.PredecessorState{FirstPassDone: true}, nil)
	c.pages(activities.RecipientPage{Recipients: recipients("a")})
	c.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: ce})
	require.NoError(t, c.GetWorkflowError())
	require.Empty(t, c.handOvers, "a component change is not handed over")
}

// A delivery waiting for its predecessor takes no hand-over (it sends
// nothing yet: a newer step takes it over instead).
func TestDeliveryWaitingTakesNoHandOver(t *testing.T) {
	d := newDeliveryEnv(t)
	e := incidentStep(2, t0)
	e.Predecessor = incidentStep(1, t0).Key
	d.OnActivity(d.a.PredecessorProgress, mock.Anything, mock.Anything, true).After(time.Hour).
		Return(&activities.PredecessorState{FirstPassDone: true}, nil)
	d.pages(activities.RecipientPage{Recipients: recipients("a")})
	var u updateCall
	d.RegisterDelayedCallback(func() {
		d.UpdateWorkflow(activities.UpdateHandOver, "h3", u.callback(),
			activities.HandOver{OrderKey: "incident:i", Step: activities.Covered{Event: incidentStep(3, t0).Key, Seq: 3}})
	}, 10*time.Minute)
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: e})
	require.NoError(t, d.GetWorkflowError())
	require.Error(t, u.rejected)
	require.Nil(t, d.inputs[0].Newer)
}
