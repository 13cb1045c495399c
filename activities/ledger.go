package activities

import (
	"context"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// StillSubscribed returns the keys that still have a subscription wanting
// the event: retries must not reach a chat that sent /stop or changed its
// filter meanwhile. One round trip per retry round.
func (a *Activities) StillSubscribed(ctx context.Context, e event.Event, keys []string) ([]string, error) {
	subs, err := a.Store.Subscriptions(ctx, keys)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range subs {
		if notice.Decide(s, e, true).Send {
			out = append(out, s.Key)
		}
	}
	return out, nil
}

// RecordInput lists subscribers an event was delivered to, and the
// outcomes of the others since the last write: retries to save, settled
// retries to remove.
type RecordInput struct {
	EventKey string   `json:"event_key"`
	Keys     []string `json:"keys"`
	// OrderKey and EventAt are stored with each retry: later updates of the
	// same incident or component wait for it.
	OrderKey string    `json:"order_key,omitempty"`
	EventAt  time.Time `json:"event_at,omitempty"`
	Retries  []Retry   `json:"retries,omitempty"`
	Settled  []string  `json:"settled,omitempty"`
	// Step is the story step the delivered chats were told (StepOf); nil
	// for a reminder, and in inputs from before the records were kept.
	Step *store.Step `json:"step,omitempty"`
	// Cards were sent but their record could not be written by the send:
	// written here, with the ledger, so no card is left behind unknown.
	Cards []store.IncidentCard `json:"cards,omitempty"`
	// Covered are later steps of the story sends told too (together.go):
	// written before this event's retries are settled, so that a
	// delivery of theirs that sees the chat's retry here gone finds it told.
	Covered []CoveredBy `json:"covered,omitempty"`
	// GaveUp are the chats the delivery stopped trying (its bursts spent):
	// their /why says so.
	GaveUp []GaveUp `json:"gave_up,omitempty"`
}

// StepOf is the story step an event tells (nil for a reminder, which is
// no step of its maintenance's story).
func StepOf(e event.Event) *store.Step {
	if e.Reminder != nil || e.OrderKey == "" {
		return nil
	}
	return &store.Step{OrderKey: e.OrderKey, Event: e.Key, Seq: e.Seq, Ends: e.Kind == event.KindComponent && e.EndsEpisode()}
}

// Retry is a subscriber that failed a burst and when to try again.
type Retry struct {
	Recipient Recipient `json:"recipient"`
	Bursts    int       `json:"bursts,omitempty"`
	NextAt    time.Time `json:"next_at,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// RecordDelivered writes the ledger for a window of sends, what the chats
// were told of the story, and the retries of the window's failures: one
// round trip each. Every write is idempotent: a retried batch is fine.
func (a *Activities) RecordDelivered(ctx context.Context, in RecordInput) error {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	if err := a.Store.RecordDelivered(ctx, in.EventKey, in.Keys, a.now()); err != nil {
		return err
	}
	if in.Step != nil {
		if err := a.Store.RecordTold(ctx, *in.Step, in.Keys, a.now()); err != nil {
			return err
		}
	}
	for _, c := range in.Cards {
		if err := a.Store.SaveCard(ctx, c); err != nil {
			return err
		}
	}
	// After the own step's record (the newest told wins), before its
	// retries are settled.
	if err := a.recordCovered(ctx, in); err != nil {
		return err
	}
	if len(in.Retries) > 0 {
		docs := make([]store.Retry, 0, len(in.Retries))
		for _, r := range in.Retries {
			docs = append(docs, store.Retry{Event: in.EventKey, OrderKey: in.OrderKey, EventAt: in.EventAt, Seq: in.seq(), Sub: r.Recipient.Key,
				ChatID: r.Recipient.ChatID, ThreadID: r.Recipient.ThreadID, Bursts: r.Bursts, NextAt: r.NextAt, Error: r.Error, At: a.now()})
		}
		if err := a.Store.SaveRetries(ctx, docs); err != nil {
			return err
		}
	}
	if _, err := a.Store.DeleteRetries(ctx, in.EventKey, in.Settled); err != nil {
		return err
	}
	a.noteGivenUp(ctx, in.EventKey, in.GaveUp)
	return nil
}

func (in RecordInput) seq() int {
	if in.Step == nil {
		return 0
	}
	return in.Step.Seq
}

// recordCovered writes, for each later step a send told too, the chat in
// its ledger and removes the chat's retry of it; the story's record says
// the chat was told up to the newest. Idempotent, as the rest. A round
// trip per step told and write, not per chat: after a hand-over
// (handover.go) most sends of a window tell the newer step too.
func (a *Activities) recordCovered(ctx context.Context, in RecordInput) error {
	var order []Covered           // the steps, in the order first met
	subs := map[string][]string{} // step -> chats told it
	var newestOrder []Covered
	newestSubs := map[Covered][]string{}
	for _, c := range in.Covered {
		newest := Covered{}
		for _, ev := range c.Events {
			if _, ok := subs[ev.Event]; !ok {
				order = append(order, ev)
			}
			subs[ev.Event] = append(subs[ev.Event], c.Sub)
			if ev.Seq >= newest.Seq {
				newest = ev
			}
		}
		if newest.Event == "" {
			continue
		}
		if _, ok := newestSubs[newest]; !ok {
			newestOrder = append(newestOrder, newest)
		}
		newestSubs[newest] = append(newestSubs[newest], c.Sub)
	}
	for _, ev := range order {
		if err := a.Store.RecordDelivered(ctx, ev.Event, subs[ev.Event], a.now()); err != nil {
			return err
		}
		if _, err := a.Store.DeleteRetries(ctx, ev.Event, subs[ev.Event]); err != nil {
			return err
		}
	}
	if in.Step == nil {
		return nil
	}
	for _, newest := range newestOrder {
		step := *in.Step
		step.Event, step.Seq = newest.Event, newest.Seq
		if err := a.Store.RecordTold(ctx, step, newestSubs[newest], a.now()); err != nil {
			return err
		}
	}
	return nil
}
