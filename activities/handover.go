package activities

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// A delivery that is sending its first pass when a newer step of its
// story comes takes that step over for the chats it has not reached yet:
// each of its sends from then on tells the newer step too (SendInput.Newer,
// told together, as a retried send tells the steps blocked behind it:
// together.go), and its ledger write records the chat told the newer step.
// The newer delivery waits, as before, for this one's first pass, and
// then finds those chats told (the ledger): it sends only to the chats
// passed before the hand-over, naming only the steps they were not told
// (Recipient.Told). So the last chat shows the newest state one pass after
// the last update, not two (docs/benchmarks.md).
//
// Nothing depends on the hand-over being accepted: a newer step whose
// hand-over is refused (the delivery is waiting, done with its first pass,
// finished, of a build that does not take it) delivers as before.

// UpdateHandOver is the delivery Update that hands a newer step to the
// delivery sending.
const UpdateHandOver = "hand-over"

// HandOverInput names the sending delivery and the newer step.
type HandOverInput struct {
	WorkflowID string  `json:"workflow_id"`
	OrderKey   string  `json:"order_key"`
	Step       Covered `json:"step"`
}

// HandOver is the newer step's hand-over as the sending delivery takes it.
type HandOver struct {
	OrderKey string  `json:"order_key"`
	Step     Covered `json:"step"`
}

// HandOverSending offers the newer step to the delivery named; true when
// it took it (its sends from now on tell it), false when it refused or
// is gone.
func (a *Activities) HandOverSending(ctx context.Context, in HandOverInput) (bool, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	h, err := a.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: in.WorkflowID, UpdateName: UpdateHandOver, Args: []any{HandOver{OrderKey: in.OrderKey, Step: in.Step}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		if err = h.Get(ctx, nil); err == nil {
			return true, nil
		}
	}
	var nf *serviceerror.NotFound
	var ae *temporal.ApplicationError
	var done *serviceerror.WorkflowNotReady
	if errors.As(err, &nf) || errors.As(err, &ae) || errors.As(err, &done) {
		return false, nil // refused, finished or gone: the newer step delivers alone
	}
	return false, err
}
