package bot

import (
	"time"

	"github.com/go-telegram/bot/models"
)

// lane is who an update comes from: a sender in a chat. Each lane's
// updates are handled in order and budgeted on their own, so one member
// flooding a group slows only themselves, never the group's admins or
// the other members.
//
// A sender's button taps have a lane of their own: a tap must be answered
// within seconds, so it never waits behind the sender's commands.
type lane struct {
	chat   int64
	sender int64 // user, or the chat posting as itself (0: a chat event)
	taps   bool
}

// laneOf is the lane of an update.
func laneOf(u *models.Update) lane {
	l := lane{chat: chatOf(u)}
	switch {
	case u.Message != nil:
		l.sender = senderOf(u.Message)
	case u.ChannelPost != nil:
		l.sender = senderOf(u.ChannelPost)
	case u.CallbackQuery != nil:
		l.sender, l.taps = u.CallbackQuery.From.ID, true
	case u.EditedMessage != nil:
		l.sender = senderOf(u.EditedMessage)
	case u.MyChatMember != nil:
		l.sender = u.MyChatMember.From.ID
	}
	return l
}

func senderOf(m *models.Message) int64 {
	switch {
	case m.SenderChat != nil:
		return m.SenderChat.ID
	case m.From != nil:
		return m.From.ID
	}
	return 0
}

// floodRule is how much one lane may ask: a burst of commands, then one
// every refill. What is dropped costs nothing, so a sender who floods at
// any rate is still heard at the refill rate and never shut out for
// longer; maxLoad bounds what one lane has queued or running (Telegram
// returns at most 100 updates after the oldest unfinished one).
type floodRule struct {
	burst   int
	refill  time.Duration
	maxLoad int
	// noteEvery: a flooding lane is told at most this often that its
	// commands were dropped.
	noteEvery time.Duration
}

// laneBudget is a lane's state under the rule.
type laneBudget struct {
	tokens float64
	at     time.Time // when tokens was computed
	noted  time.Time // last flood note
}

// admit applies the rule to one droppable update of a lane with load
// updates queued or running. It returns the lane's next state and
// whether the update is queued, dropped, or dropped with a note due.
// The zero budget is a lane not seen before: a full burst.
func (r floodRule) admit(b laneBudget, load int, now time.Time) (laneBudget, admission) {
	if b.at.IsZero() {
		b.tokens = float64(r.burst)
	} else if r.refill > 0 && now.After(b.at) {
		b.tokens += float64(now.Sub(b.at)) / float64(r.refill)
	}
	b.tokens = min(b.tokens, float64(r.burst))
	b.at = now
	if r.burst <= 0 || (b.tokens >= 1 && (r.maxLoad <= 0 || load < r.maxLoad)) {
		b.tokens = max(b.tokens-1, 0)
		return b, queued
	}
	if b.noted.IsZero() || now.Sub(b.noted) >= r.noteEvery {
		b.noted = now
		return b, floodStarted
	}
	return b, dropped
}

// idle reports whether a lane's budget is back to a full burst and its
// note long past: the state can be forgotten.
func (r floodRule) idle(b laneBudget, now time.Time) bool {
	full := r.refill <= 0 || b.tokens+float64(now.Sub(b.at))/float64(r.refill) >= float64(r.burst)
	return full && now.Sub(b.noted) >= r.noteEvery
}
