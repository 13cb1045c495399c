package telegram

import (
	"context"
	"errors"
	"time"
)

// NotYet: the call was not made, its chat's turn has not come (RetryAt).
// Nothing was sent; the caller comes back at RetryAt.
const NotYet Outcome = "not_yet"

// Told: the call was not made, an earlier call in the chat told what it
// would have (a Turn that answers ErrTold).
const Told Outcome = "told"

// ErrTold is a Turn's answer when an earlier call told what this one
// would have.
var ErrTold = errors.New("told by an earlier call in the chat")

// Turn takes the chat's turn for one call in a budget shared by every
// process (store.ClaimCall): confirm, when the call may start now (called
// with when it started), or when to come back.
type Turn func(ctx context.Context) (confirm func(started time.Time), retryAt time.Time, err error)

type turnKey struct{}

// Slot takes, for a further call within a turn (the plain text after
// HTML refused for its entities), its slot of the bot's budget and waits
// until it starts: every Bot API call takes one.
type Slot func(ctx context.Context) error

type slotKey struct{}

// WithSlot makes a further call within a ctx's turn take its slot first.
func WithSlot(ctx context.Context, slot Slot) context.Context {
	return context.WithValue(ctx, slotKey{}, slot)
}

// WithTurn makes the calls made with ctx take their chat's turn first,
// instead of waiting for this process's pacing (which would wait inside
// the caller's time-out): a call whose turn has not come fails NotYet.
// Only the overall spacing of this process stays (its waits are short:
// the send queue's rate limit already spaces the callers).
func WithTurn(ctx context.Context, turn Turn) context.Context {
	return context.WithValue(ctx, turnKey{}, turn)
}

type spacedKey struct{}

// WithSpacedTurn is WithTurn for a turn that spaces the calls itself
// (one of the cluster's send budget's slots, store.SendBudget): this
// process's overall spacing is not waited for on top. Waiting for it
// made the sends of a batch take their slots and claim their chats' turns
// one at a time, a round trip each, where they can claim together.
func WithSpacedTurn(ctx context.Context, turn Turn) context.Context {
	return context.WithValue(WithTurn(ctx, turn), spacedKey{}, true)
}

// inTurn makes call once this process's overall spacing and the chat's
// turn let it, and says when it started.
func (s *Sender) inTurn(ctx context.Context, turn Turn, call func() error) (*SendError, error) {
	if spaced, _ := ctx.Value(spacedKey{}).(bool); s.pace.global != nil && !spaced {
		if err := s.pace.global.wait(ctx); err != nil {
			return &SendError{Outcome: Transient, Description: "waiting for a Telegram send slot: " + err.Error()}, nil
		}
	}
	confirm, at, err := turn(ctx)
	if errors.Is(err, ErrTold) {
		return &SendError{Outcome: Told, Description: err.Error()}, nil
	}
	if err != nil {
		return &SendError{Outcome: Transient, Description: "taking the chat's turn: " + err.Error()}, nil
	}
	if confirm == nil {
		return &SendError{Outcome: NotYet, Description: "the chat's turn has not come", RetryAt: at}, nil
	}
	started := time.Now()
	err = call()
	confirm(started)
	return nil, err
}
