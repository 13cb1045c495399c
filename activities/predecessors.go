package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
)

// DeliveryWorkflowID is derived from the event alone: a second poll of the
// same event finds the delivery already started. No chat IDs in it.
func DeliveryWorkflowID(eventKey string) string { return "delivery/" + eventKey }

// holdBlocked finds, among the recipients, those an earlier unfinished
// update of the same incident or component still has to reach, and saves
// them as retries that wait (re-checked after recheck).
func (a *Activities) holdBlocked(ctx context.Context, e event.Event, subs []store.Subscriber, recheck time.Duration) (map[string]bool, error) {
	blocked, err := a.blockers(ctx, e, subKeys(subs))
	if err != nil || len(blocked) == 0 {
		return blocked, err
	}
	now := a.now()
	var docs []store.Retry
	for _, s := range subs {
		if blocked[s.Key] {
			docs = append(docs, store.Retry{Event: e.Key, OrderKey: e.OrderKey, EventAt: e.At, Seq: e.Seq, Sub: s.Key, ChatID: s.ChatID,
				ThreadID: s.ThreadID, Blocked: true, NextAt: now.Add(recheck), At: now})
		}
	}
	return blocked, a.Store.SaveRetries(ctx, docs)
}

// blockers returns the subscribers among keys that an earlier update of
// the same order key, whose delivery still runs, has not reached yet. A
// delivery given up drops its retries; one terminated leaves them, so the
// delivery's state is asked too.
func (a *Activities) blockers(ctx context.Context, e event.Event, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	if e.OrderKey == "" || len(keys) == 0 {
		return out, nil
	}
	earlier, err := a.Store.EarlierRetries(ctx, e.OrderKey, e.Key, e.Seq, e.At, keys)
	if err != nil {
		return nil, err
	}
	running := map[string]bool{}
	for _, r := range earlier {
		ok, seen := running[r.Event]
		if !seen {
			if ok, err = a.deliveryRunning(ctx, r.Event); err != nil {
				return nil, err
			}
			running[r.Event] = ok
		}
		if ok {
			out[r.Sub] = true
		}
	}
	return out, nil
}

func (a *Activities) deliveryRunning(ctx context.Context, eventKey string) (bool, error) {
	desc, err := a.Temporal.DescribeWorkflow(ctx, DeliveryWorkflowID(eventKey), "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return desc.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() == nil, nil
}

// PredecessorState is what a delivery must wait for.
type PredecessorState struct {
	// Closed: the predecessor has finished (or is gone): nothing to wait for.
	Closed bool `json:"closed"`
	// FirstPassDone: it has tried every subscriber once.
	FirstPassDone bool `json:"first_pass_done"`
	// Pending lists subscribers it has not delivered to yet (deliveries
	// from before the pending retries moved to MongoDB).
	Pending []string `json:"pending,omitempty"`

	missing  bool   // no such workflow
	previous string // its event's predecessor, when it said
}

// ProgressQuery is the query name every delivery answers.
const ProgressQuery = "progress"

// maxChain bounds how far back PredecessorProgress follows the updates of
// one incident or component.
const maxChain = 100

// PredecessorProgress reports where the previous delivery of the same
// incident or component stands. With Wait it heartbeats until every earlier
// delivery of that incident or component still running (not only the
// previous one: it may have been given up while an earlier one still
// works) has tried everyone once, so per-subscriber order holds.
func (a *Activities) PredecessorProgress(ctx context.Context, workflowID string, wait bool) (*PredecessorState, error) {
	for {
		st, err := a.predecessor(ctx, workflowID)
		if err != nil || !wait {
			return st, err
		}
		behind, err := a.firstPassUnder(ctx, workflowID)
		if err != nil {
			return nil, err
		}
		if behind == "" {
			return st, nil
		}
		activity.RecordHeartbeat(ctx, behind)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// firstPassUnder walks back from workflowID through the earlier deliveries
// of the same order key and returns the first still running whose first
// pass is not done ("" when none).
func (a *Activities) firstPassUnder(ctx context.Context, workflowID string) (string, error) {
	for id, depth := workflowID, 0; id != "" && depth < maxChain; depth++ {
		st, err := a.predecessor(ctx, id)
		if err != nil {
			return "", err
		}
		if !st.Closed && !st.FirstPassDone {
			return id, nil
		}
		if st.missing {
			return "", nil // older than the server's retention: nothing runs before it
		}
		prev := st.previous
		if prev == "" {
			if prev, err = a.previousOf(ctx, id); err != nil {
				return "", err
			}
		}
		id = ""
		if prev != "" {
			id = DeliveryWorkflowID(prev)
		}
	}
	return "", nil
}

// previousOf reads the event's predecessor from the delivery's start event.
func (a *Activities) previousOf(ctx context.Context, workflowID string) (string, error) {
	it := a.Temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return "", nil
	}
	first, err := it.Next()
	if err != nil {
		return "", err
	}
	payloads := first.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	if len(payloads) == 0 {
		return "", nil
	}
	var in struct {
		Event struct {
			Predecessor string `json:"predecessor"`
		} `json:"event"`
	}
	if err := json.Unmarshal(payloads[0].GetData(), &in); err != nil {
		return "", fmt.Errorf("decode the input of %s: %w", workflowID, err)
	}
	return in.Event.Predecessor, nil
}

func (a *Activities) predecessor(ctx context.Context, workflowID string) (*PredecessorState, error) {
	desc, err := a.Temporal.DescribeWorkflow(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &PredecessorState{Closed: true, missing: true}, nil
	}
	if err != nil {
		return nil, err
	}
	if desc.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil {
		return &PredecessorState{Closed: true}, nil
	}
	v, err := a.Temporal.QueryWorkflow(ctx, workflowID, "", ProgressQuery)
	if err != nil {
		return nil, err
	}
	var p struct {
		FirstPassDone bool     `json:"first_pass_done"`
		PendingKeys   []string `json:"pending_keys"`
		Predecessor   string   `json:"predecessor"`
	}
	if err := v.Get(&p); err != nil {
		return nil, err
	}
	return &PredecessorState{FirstPassDone: p.FirstPassDone, Pending: p.PendingKeys, previous: p.Predecessor}, nil
}
