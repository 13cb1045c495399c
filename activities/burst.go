package activities

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/event"
	"go.temporal.io/sdk/activity"
)

// A burst of component changes (a large outage: 25 components at once) is
// one message in cards mode, not one a turn: the Send whose turn comes
// tells the changes waiting behind it in the chat's queue too, in their
// order, and their Sends then make no call (store.FoldTurns). A group
// hears 25 changes in a few messages within its 20 a minute, not over 75
// seconds. Messages mode keeps one message per change.

// burstGather is how long the first call of a burst in a quiet chat waits
// for the burst's other sends to queue: the earliest of them then goes
// first (and in cards mode tells the others; the burst's deliveries start
// within a second or two of each other).
const burstGather = 2 * time.Second

// gatherFor is how long the first call of in waits in a quiet chat
// (store.ClaimCallGathering): a burst's, so that the earliest of the
// burst goes first whichever delivery claimed first (the queue orders
// those that wait, not the first call).
func (a *Activities) gatherFor(in SendInput) time.Duration {
	if in.Burst == 0 || in.Step != nil || in.Ticket == "" {
		return 0
	}
	return burstGather
}

// folds: in may tell the changes of its burst queued behind it (cards
// mode).
func folds(in SendInput, r Recipient) bool {
	return in.Burst > 0 && r.Cards && in.Step == nil && in.Ticket != ""
}

// burstRecheck: a burst's send waiting in a chat in cards mode comes back
// at least this often. Its turn was reckoned behind every send queued
// ahead of it, but the call whose turn comes may tell those in its
// message: the queue then moves on at once (a group's 20th call would
// wait a minute).
const burstRecheck = 3 * time.Second

// comeBack is when a send told to come back at retryAt claims again.
func (a *Activities) comeBack(in SendInput, r Recipient, retryAt time.Time) time.Time {
	if !folds(in, r) {
		return retryAt
	}
	if soon := a.now().Add(burstRecheck); soon.Before(retryAt) {
		return soon
	}
	return retryAt
}

// burstLimit bounds a message of several changes, below Telegram's 4,096
// characters (its HTML markup counts here, not there).
const burstLimit = 3500

// burstSeparator goes between the changes of one message.
const burstSeparator = "\n\n"

// foldBehind returns the text of the message of in, with the component
// changes waiting behind it for the same chat (or topic) told in it too,
// whether it goes silently, and the tickets of those folded. Folding is
// a saving, never a failure: when anything is unclear, the message goes
// alone.
func (a *Activities) foldBehind(ctx context.Context, in SendInput, r Recipient, text string) (string, bool, []string) {
	if !folds(in, r) || !keyIs(in.EventKey, event.KindComponent) {
		return text, r.Silent, nil
	}
	behind, err := a.Store.WaitingBehind(ctx, r.ChatID, callTicket(in), a.now())
	if err != nil {
		activity.GetLogger(ctx).Info("could not read the chat's queue; the change goes alone", "subscriber", r.Key, "error", err)
		return text, r.Silent, nil
	}
	var folds []string
	for _, t := range behind {
		// Only the changes of this chat's burst right after it, with no
		// gap (one not queued yet goes later, after those before it): the
		// order of the burst holds.
		ev, sub, call, ok := parseTicket(t)
		if !ok || sub != r.Key || call != callFirst || !keyIs(ev, event.KindComponent) || burstOf(t) != in.Burst+len(folds)+1 {
			break
		}
		if f, err := a.foldOf(ctx, ev); err != nil || f != nil {
			break // told on an incident's card (fold.go): its own Send does that
		}
		more, err := a.noticeIn(ctx, ev, r.Zone, r.Lang, "") // of the first one's page, named once
		if err != nil || more == "" || utf8.RuneCountInString(text)+len(burstSeparator)+utf8.RuneCountInString(more) > burstLimit {
			break
		}
		text += burstSeparator + more
		folds = append(folds, t)
	}
	// The others' severity is theirs to know: several at once ring,
	// unless the chat's quiet hours silence them all.
	silent := r.Silent
	if len(folds) > 0 {
		silent = r.Quiet.Covers(a.now())
	}
	return text, silent, folds
}

// parseTicket splits a call's ticket (TicketOf, then the call).
func parseTicket(t string) (eventKey, subKey, call string, ok bool) {
	p := strings.Split(t, "|")
	switch {
	case len(p) == 4:
		return p[1], p[2], p[3], true
	case len(p) == 5 && strings.HasPrefix(p[3], "b"): // of a burst
		return p[1], p[2], p[4], true
	}
	return "", "", "", false
}

// burstOf is the place in its burst of the event of a ticket (0: none).
func burstOf(t string) int {
	p := strings.Split(t, "|")
	if len(p) != 5 || !strings.HasPrefix(p[3], "b") {
		return 0
	}
	n, _ := strconv.Atoi(p[3][1:])
	return n
}
