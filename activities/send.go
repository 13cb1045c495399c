package activities

import (
	"context"
	"errors"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// SendInput is one message to one subscriber.
type SendInput struct {
	EventKey  string    `json:"event_key"`
	Recipient Recipient `json:"recipient"`
	// PerCall: the Send makes at most one Bot API call, after taking the
	// chat's turn in the shared budget (calls.go); a card update is then
	// a chain of Sends. Unset in deliveries from before versionCallPerSend.
	PerCall bool `json:"per_call,omitempty"`
	// Ticket names the send in its chat's queue of turns (TicketOf).
	Ticket string `json:"ticket,omitempty"`
	// Step is the call after the first of a chain; nil for the first.
	Step *SendStep `json:"step,omitempty"`
	// Moved: the recipient is the supergroup an earlier call of the chain
	// moved the group to (failures name it, as for MovedRecipient).
	Moved bool `json:"moved,omitempty"`
	// Failed counts the attempts of this call that failed before a retry
	// found the chat's turn taken and came back as a new Send: the burst
	// goes on where it was, not from its first attempt again.
	Failed int32 `json:"failed,omitempty"`
	// Attempts is a burst's number of attempts (Tuning.SendAttempts); 0
	// in Sends from before it was set: the retry policy's then.
	Attempts int32 `json:"attempts,omitempty"`
	// Burst is the event's place in a burst of component changes
	// (event.Event.Burst, 0: none): its first call in a group in cards
	// mode waits a moment for the others to queue, and tells those right
	// behind it (burst.go).
	Burst int `json:"burst,omitempty"`
	// FoldLater: the first call tells the later steps of the story
	// blocked behind it for the chat (together.go); Covers are those it
	// found, carried through the chain. Unset in deliveries from before
	// versionFoldLater.
	FoldLater bool      `json:"fold_later,omitempty"`
	Covers    []Covered `json:"covers,omitempty"`
	// Newer is the newest step of the story handed over to this delivery
	// while it sends (handover.go): the first call tells it too, so the
	// chats this pass has not reached get the newest state in it. Unset in
	// deliveries from before versionHandOver.
	Newer *Covered `json:"newer,omitempty"`
}

// SendResult says what happened; failures that need a retry are errors.
type SendResult struct {
	// Removed: Telegram says the chat is gone; the subscription was deleted.
	Removed bool `json:"removed,omitempty"`
	// MigratedTo: the group became this supergroup; delivered there under
	// NewKey, unless Merged.
	MigratedTo int64  `json:"migrated_to,omitempty"`
	NewKey     string `json:"new_key,omitempty"`
	// Merged: the supergroup had a subscription of its own, which gets the
	// notification by itself; nothing was sent for the old one.
	Merged bool   `json:"merged,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Card was sent but could not be recorded (MongoDB failed after the
	// send): the delivery writes it with the ledger (RecordInput.Cards).
	Card *store.IncidentCard `json:"card,omitempty"`
	// Next is the chain's next Send (PerCall), to start at NotBefore or
	// later: the chat's turn, or its next free slot. Nothing is settled
	// until a Send of the chain returns no Next.
	// CardRecorded: this Send recorded the chain's card; a card an earlier
	// Send left to record is out of date.
	CardRecorded bool `json:"card_recorded,omitempty"`
	// As is how the chain's notice went out (store.AsCard...), for /why;
	// set by the Send that ends the chain.
	As string `json:"as,omitempty"`
	// Covers are the later steps the chain told too (together.go): the
	// delivery writes their ledger for the chat.
	Covers []Covered `json:"covers,omitempty"`
	// Rang: a send silent as no news rang, for what it told together.
	Rang      bool       `json:"rang,omitempty"`
	Next      *SendInput `json:"next,omitempty"`
	NotBefore time.Time  `json:"not_before,omitempty"`
}

// Send delivers the event's message to one subscriber.
//
// 429 fails with NextRetryDelay = retry_after; terminal errors remove the
// subscriber; a group upgraded to a supergroup is moved and delivered to;
// errors about the message itself fail without retry. A failure after a
// move carries the new recipient in its details, so that the retry goes to
// the supergroup. Nothing is written after a successful send: the delivery
// records it, so no failing write can make a retry send again.
//
// A Send makes one call of its chain (PerCall, calls.go); a Send of a
// delivery from before versionCallPerSend makes the whole chain in its
// attempt, the same calls one after the other (sendWhole): one way to
// render and send a card.
func (a *Activities) Send(ctx context.Context, in SendInput) (*SendResult, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)()
	if !in.PerCall {
		return a.sendWhole(ctx, in)
	}
	return a.sendStep(ctx, in)
}

// sendStep makes the one call of in, or holds its notice (hold.go).
func (a *Activities) sendStep(ctx context.Context, in SendInput) (*SendResult, error) {
	r := in.Recipient
	// Quiet hours by the clock of this attempt, not of the page read.
	now := a.now()
	if in.Step == nil && r.Quiet.Holds(now) { // a chain under way ends as it began
		if res, held, err := a.hold(ctx, in, r, now); err != nil || held {
			if err == nil {
				// Held, but its cards show it (heldcards.go).
				res.Next, err = a.heldCard(ctx, in, r)
			}
			return res, err
		}
	}
	severitySilent, quiet := r.Silent, r.Quiet.Covers(now)
	r.Silent = r.Silent || quiet
	res, err := a.sendCall(ctx, in, r)
	switch {
	case err != nil && (in.Step == nil || !in.Step.Held): // a held notice stays held
		a.noteFailed(ctx, in.EventKey, r, err)
	case err == nil && res.Next == nil && res.As != "":
		later, laterTold := laterLine(ctx, a, res.Covers)
		a.noteSentWith(ctx, in.EventKey, r, severitySilent && !res.Rang, quiet, res.As, later, laterTold)
		a.noteTogether(ctx, res.Covers, in.Newer, r)
	}
	return res, err
}

// sendWhole runs a chain of calls in one attempt, one after the other,
// paced by the sender alone as such Sends were, and returns what the chain
// did as one result (a move to a supergroup is its first Send's, a card
// left to record its latest one's).
func (a *Activities) sendWhole(ctx context.Context, in SendInput) (*SendResult, error) {
	var acc SendResult
	for range maxCalls {
		res, err := a.sendStep(ctx, in)
		if err != nil {
			return nil, err
		}
		next := res.Next
		acc = Accumulate(acc, *res)
		if next == nil {
			return &acc, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in = *next
	}
	return nil, sendFailure("a chain of calls that does not end", ErrTypeTransient, 0, false, nil)
}

// maxCalls bounds a chain's calls (the longest: a card's edit, its reply,
// its unpin, after a move to a supergroup: twice that).
const maxCalls = 8

// migrate moves the subscription of a group that became the supergroup
// chatID, and returns the recipient there; merged is the send's result
// when the supergroup had a subscription of its own (it gets the notice
// by itself: nothing is sent for the old one).
func (a *Activities) migrate(ctx context.Context, r Recipient, chatID int64) (moved Recipient, merged *SendResult, err error) {
	independent, err := a.Store.MigrateChatAt(ctx, r.ChatID, chatID, a.now())
	if err != nil {
		return r, nil, err
	}
	activity.GetLogger(ctx).Info("subscriber migrated to supergroup", "subscriber", r.Key)
	r = movedTo(r, chatID)
	if independent[r.Key] {
		return r, &SendResult{MigratedTo: chatID, NewKey: r.Key, Merged: true}, nil
	}
	return r, nil, nil
}

// failed is what a failed send means: terminal errors remove the
// subscriber, the others fail the attempt (after a move, naming the
// supergroup).
func (a *Activities) failed(ctx context.Context, err error, r Recipient, moved *Recipient) (*SendResult, error) {
	return a.failedIn(ctx, err, r, moved, false)
}

// failedIn is failed; last: this attempt ends its burst, whatever the
// retry policy's count says (a burst carried over a chain, SendInput.Failed).
func (a *Activities) failedIn(ctx context.Context, err error, r Recipient, moved *Recipient, last bool) (*SendResult, error) {
	var se *telegram.SendError
	if !errors.As(err, &se) {
		return nil, sendFailure(err.Error(), ErrTypeTransient, 0, last, moved)
	}
	switch se.Outcome {
	case telegram.Terminal:
		if err := a.Store.Unsubscribe(ctx, r.Key); err != nil && !errors.Is(err, store.ErrNotSubscribed) {
			return nil, err
		}
		return &SendResult{Removed: true, Detail: se.Description}, nil
	case telegram.RateLimited:
		return nil, sendFailure(se.Description, ErrTypeRateLimited, se.RetryAfter, last, moved)
	case telegram.Permanent, telegram.Migrated:
		return nil, sendFailure(se.Description, ErrTypePermanentMessage, 0, true, moved)
	default:
		return nil, sendFailure(se.Description, ErrTypeTransient, 0, last, moved)
	}
}

// movedTo is the recipient in the supergroup its group became: the same
// chat as far as the notice goes (silence, quiet hours, zone, mode), but
// the card stays in the old group and the supergroup gets a fresh one (its
// mode is read again from the moved subscription).
func movedTo(r Recipient, chatID int64) Recipient {
	r.Key, r.ChatID = store.SubscriberKey(chatID, r.ThreadID), chatID
	r.Card, r.CardRead = nil, false
	return r
}

// sendFailure is a failed send; after a move its details name the new recipient.
func sendFailure(msg, errType string, retryAfter time.Duration, nonRetryable bool, moved *Recipient) error {
	opts := temporal.ApplicationErrorOptions{NextRetryDelay: retryAfter, NonRetryable: nonRetryable}
	if moved != nil {
		opts.Details = []any{*moved}
	}
	return temporal.NewApplicationErrorWithOptions(msg, errType, opts)
}

// MovedRecipient is the supergroup a failed send had moved its group to.
func MovedRecipient(err error) (Recipient, bool) {
	var ae *temporal.ApplicationError
	var r Recipient
	if errors.As(err, &ae) && ae.HasDetails() && ae.Details(&r) == nil && r.Key != "" {
		return r, true
	}
	return r, false
}
