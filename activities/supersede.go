package activities

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/event"
)

// A delivery of a step that has not started yet (it waits for the step
// before it to try every chat once) is superseded by the next step's
// delivery: the newer one takes over the older step (it tells it, named
// in its message) and its place in the queue, and the older one ends
// without sending. So a story has at most one delivery waiting, and a
// chat at most one message of the story in flight and one to come,
// however fast the page posts and however long a pass takes.

// UpdateSupersede is the delivery Update that hands a waiting step over.
const UpdateSupersede = "supersede"

// Superseded is what a delivery handed over: its step and the steps it
// told too, and the step it waited for.
type Superseded struct {
	Step        event.FoldedStep   `json:"step"`
	Folded      []event.FoldedStep `json:"folded,omitempty"`
	FoldedMore  int                `json:"folded_more,omitempty"`
	Predecessor string             `json:"predecessor,omitempty"`
	PrevStatus  string             `json:"prev_status,omitempty"`
	PrevImpact  string             `json:"prev_impact,omitempty"`
}

// SupersedeInput names the delivery to take over and the one taking it.
type SupersedeInput struct {
	WorkflowID string `json:"workflow_id"`
	By         string `json:"by"` // the event key of the newer step
}

// SupersedeWaiting asks the delivery of an earlier step to hand its step
// over; nil when it may not (it started sending, it finished, it is of a
// build that does not hand over): then the newer step waits for it.
func (a *Activities) SupersedeWaiting(ctx context.Context, in SupersedeInput) (*Superseded, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	h, err := a.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: in.WorkflowID, UpdateName: UpdateSupersede, Args: []any{in.By},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		var out Superseded
		if err = h.Get(ctx, &out); err == nil {
			return &out, nil
		}
	}
	var nf *serviceerror.NotFound
	var ae *temporal.ApplicationError
	var done *serviceerror.WorkflowNotReady
	switch {
	case errors.As(err, &nf), errors.As(err, &ae), errors.As(err, &done):
		// Refused, finished or gone: wait for it as before; unless it was
		// this step that took it over (an attempt whose answer was lost):
		// its result keeps what it handed over.
		return a.handedOver(ctx, in)
	}
	return nil, err
}

// handedOverResult is the part of a delivery's result a take-over reads.
type handedOverResult struct {
	SupersededBy string      `json:"superseded_by,omitempty"`
	HandedOver   *Superseded `json:"handed_over,omitempty"`
}

// handedOver is what the closed delivery handed over to in.By; nil when
// it is running, gone, or handed nothing to it.
func (a *Activities) handedOver(ctx context.Context, in SupersedeInput) (*Superseded, error) {
	desc, err := a.Temporal.DescribeWorkflow(ctx, in.WorkflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if desc.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() == nil {
		return nil, nil
	}
	var res handedOverResult
	if err := a.Temporal.GetWorkflow(ctx, in.WorkflowID, "").Get(ctx, &res); err != nil {
		return nil, nil // failed or terminated: it handed nothing over
	}
	if res.SupersededBy != in.By {
		return nil, nil
	}
	return res.HandedOver, nil
}

// SupersededEvent is e taking over s: it tells s's step and the steps s
// told, after its own, and waits for what s waited for.
func SupersededEvent(e event.Event, s Superseded) event.Event {
	folded := append(append(append([]event.FoldedStep{}, e.Folded...), s.Step), s.Folded...)
	more := e.FoldedMore + s.FoldedMore
	if len(folded) > event.MaxFolded {
		more += len(folded) - event.MaxFolded
		folded = folded[:event.MaxFolded]
	}
	e.Folded, e.FoldedMore = folded, more
	e.Predecessor, e.PrevStatus, e.PrevImpact = s.Predecessor, s.PrevStatus, s.PrevImpact
	return e
}

// SupersededOf is what the delivery of e hands over.
func SupersededOf(e event.Event) Superseded {
	return Superseded{Step: e.AsFolded(),
		Folded: e.Folded, FoldedMore: e.FoldedMore, Predecessor: e.Predecessor, PrevStatus: e.PrevStatus, PrevImpact: e.PrevImpact}
}
