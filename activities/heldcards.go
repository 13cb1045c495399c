package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// A notice held for the morning summary (hold.go) is not told at night,
// but what the chat's cards show is no noise: a card is edited to the
// incident's latest state (silently, as edits are) and unpinned at the
// resolution, pinned again at a reopening; a component change is told on
// the cards that cover it. Only the ringing messages (a reply under the
// card, a fresh card, a message) wait for the summary. These calls are a
// chain after the hold (SendStep.Held), each with its chat's turn; a
// failure of one ends the chain (the summary tells the notice anyway, the
// next update edits the card again), and a move to a supergroup starts
// the send again there, where the notice is held once more.

// heldCard is the chain's first call for a held notice: the edit of the
// chat's card of its incident, or the fold of a component change; nil
// when the chat has no card to show it on.
func (a *Activities) heldCard(ctx context.Context, in SendInput, r Recipient) (*SendInput, error) {
	if r.CardRead && !r.Cards {
		return nil, nil
	}
	if f, err := a.foldOf(ctx, in.EventKey); err != nil || f != nil {
		if err != nil {
			return nil, err
		}
		return heldStep(in, r, callFold, store.IncidentCard{}), nil
	}
	texts, err := a.cardTextsOf(ctx, in.EventKey, r.Zone, r.Lang)
	if err != nil || texts == nil {
		return nil, err
	}
	if err := a.readCard(ctx, texts.Incident, &r); err != nil || !r.Cards || r.Card == nil {
		return nil, err
	}
	return heldStep(in, r, callEdit, *r.Card), nil
}

// heldStep is the next Send of a held notice's chain.
func heldStep(in SendInput, r Recipient, call string, card store.IncidentCard) *SendInput {
	next := in
	next.Recipient, next.Step, next.Failed = r, &SendStep{Call: call, Card: card, Held: true}, 0
	return &next
}

// heldEdit edits the card of a held notice to the incident's latest
// state, and goes on with its unpin (resolved) or pin (reopened).
func (a *Activities) heldEdit(ctx context.Context, in SendInput, r Recipient) (*SendResult, error) {
	card := in.Step.Card
	texts, err := a.cardTextsOf(ctx, in.EventKey, r.Zone, r.Lang)
	if err != nil || texts == nil {
		return &SendResult{}, err
	}
	notes, err := a.cardNotesFor(ctx, texts, r)
	if err != nil {
		return nil, err
	}
	err = a.Telegram.Edit(ctx, r.ChatID, card.MessageID, a.cardText(ctx, in.EventKey, texts, r.Zone, r.Page, notes, nil))
	if comeBack(err) {
		return nil, err
	}
	if err != nil {
		activity.GetLogger(ctx).Warn("could not edit the card of a held notice: the morning summary tells it", "subscriber", r.Key, "error", err)
		return &SendResult{}, nil
	}
	repin := a.reopens(ctx, card, texts, r)
	card.Event = in.EventKey
	unsaved, _ := a.saveCard(ctx, &card, nil)
	res := &SendResult{}
	if next := pinStep(card, texts.Final, repin); next != "" {
		res = &SendResult{Next: heldStep(in, r, next, card)}
		res.Next.Step.Repin = next == callPin
	}
	res.Card, res.CardRecorded = unsaved, unsaved == nil
	return res, nil
}

// heldFold tells a held component change on the chat's cards that cover
// it (fold.go), one edit.
func (a *Activities) heldFold(ctx context.Context, in SendInput, r Recipient) (*SendResult, error) {
	if _, err := a.fold(ctx, in.EventKey, r); comeBack(err) {
		return nil, err
	} else if err != nil {
		activity.GetLogger(ctx).Warn("could not tell a held component change on its card: the morning summary tells it", "subscriber", r.Key, "error", err)
	}
	return &SendResult{}, nil
}
