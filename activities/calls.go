package activities

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// One Bot API call per Send (SendInput.PerCall). Telegram's limits count
// calls, whoever makes them; so:
//
//   - the send queue's server-side rate limit (TaskQueueActivitiesPerSecond,
//     TELEGRAM_RATE_LIMIT) counts Sends, and with one call each it counts
//     the token's calls exactly, across every worker;
//   - each call first takes the chat's turn in MongoDB (store.ClaimCall,
//     right before the call: telegram.WithTurn): about one call a second
//     in a chat and 19 a minute in a group, whichever worker makes it; a
//     Send that may not call yet returns when to come back, and the
//     delivery sleeps on a timer: no wait happens inside an attempt's
//     time-out.
//
// A card update is a chain: edit, then reply, then unpin when the
// incident is resolved and its card pinned; a fresh card is a send, then
// a pin.

// SendStep is a call of a card chain after the first.
type SendStep struct {
	Call string             `json:"call"` // callReply, callPin, callUnpin, callEdit or callFold
	Card store.IncidentCard `json:"card"`
	// Held: the chain shows on the chat's cards a notice held for the
	// morning summary (quiet hours, heldcards.go): silent calls only (an
	// edit, an unpin, a pin), no reply; the notice stays held.
	Held bool `json:"held,omitempty"`
	// Repin: the incident was reopened; its card, unpinned at the
	// resolution, is pinned again (the chat pins its cards).
	Repin bool `json:"repin,omitempty"`
}

const (
	callFirst = "first" // the first call of a send
	callReply = "reply"
	callFresh = "fresh" // a fresh card for one deleted in the chat
	callPin   = "pin"
	callUnpin = "unpin"
	callEdit  = "edit" // a held notice's card edited to its latest state
	callFold  = "fold" // a held component change told on the cards that cover it
)

// sendCall makes the one call of in, or none when the chat's turn has not
// come: then the result's Next is in itself.
func (a *Activities) sendCall(ctx context.Context, in SendInput, r Recipient) (*SendResult, error) {
	if in.Step == nil {
		in.Covers = a.laterSteps(ctx, in, r)
	}
	text, rang, err := a.sendText(ctx, in, &r)
	if err != nil {
		return nil, err
	}
	budget := telegram.BudgetOf(r.ChatID)
	ticket := callTicket(in)
	// The chat's turn is taken right before the call (in the sender); a
	// Send from before versionCallPerSend (sendWhole) makes its calls paced
	// by the sender alone, as it did. The HTML-to-plain fallback takes a
	// slot of its own.
	switch {
	case in.PerCall && a.Budget != nil: // the budget's slots space the calls
		ctx = telegram.WithSpacedTurn(ctx, a.chatTurn(r.ChatID, ticket, budget, a.gatherFor(in)))
	case in.PerCall:
		ctx = telegram.WithTurn(ctx, a.chatTurn(r.ChatID, ticket, budget, a.gatherFor(in)))
	}
	ctx = telegram.WithSlot(ctx, a.fallbackSlot)
	var moved *Recipient
	if in.Moved {
		moved = &r
	}
	res, err := a.call(ctx, in, text, r)
	failed := in.Failed + attemptOf(ctx) - 1 // only a failure brings a retry
	var se *telegram.SendError
	if errors.As(err, &se) && se.Outcome == telegram.Told {
		return &SendResult{As: store.AsFolded}, nil // in an earlier change's message
	}
	if errors.As(err, &se) && se.Outcome == telegram.NotYet {
		next := in
		next.Failed = failed
		return &SendResult{Next: &next, NotBefore: a.comeBack(in, r, se.RetryAt)}, nil
	}
	if err != nil && errors.As(err, &se) && se.Outcome == telegram.Migrated {
		// At any call of the chain (a card's reply too): the chain starts
		// again in the supergroup, with a fresh card there.
		r, merged, err := a.migrate(ctx, r, se.MigrateTo)
		if err != nil || merged != nil {
			return merged, err
		}
		next := in
		next.Recipient, next.Moved, next.Step, next.Failed = r, true, nil, 0
		return &SendResult{MigratedTo: se.MigrateTo, NewKey: r.Key, Next: &next}, nil
	}
	if err != nil {
		return a.failedIn(ctx, err, r, moved, burstSpent(ctx, in.Attempts, failed+1))
	}
	if res.Next != nil {
		res.NotBefore = a.now().Add(budget.Interval) // the chat's next turn at the earliest
	} else {
		res.Covers, res.Rang = in.Covers, rang
	}
	return res, nil
}

// sendText is the text of in's call: its step's notice, or, when it
// tells later steps too, the newest with the others named (together.go);
// rang: r, silent as no news, rings for what it tells together.
func (a *Activities) sendText(ctx context.Context, in SendInput, r *Recipient) (string, bool, error) {
	e, err := a.together(ctx, in)
	if err != nil {
		return "", false, err
	}
	if e == nil {
		text, err := a.noticeIn(ctx, in.EventKey, r.Zone, r.Lang, r.Page)
		return text, false, err
	}
	rang := ringsTogether(*r, r.Quiet.Covers(a.now()), e)
	if rang {
		r.Silent = false
	}
	return togetherText(*e, r.Zone, r.Lang, r.Page), rang, nil
}

// chatTurn takes, right before a call, a slot of the bot's budget for the
// whole cluster and the chat's turn for ticket at the slot's time
// (store.ClaimCall): a call of every kind, a notice or a morning summary,
// counts against both. The chat's turn is checked before the slot is
// spent: a send whose turn has not come gives its slot back.
func (a *Activities) chatTurn(chatID int64, ticket string, budget store.ChatBudget, gather time.Duration) telegram.Turn {
	return func(ctx context.Context) (func(time.Time), time.Time, error) {
		// A slot after the chat's claim will have answered (twice the
		// claims' recent time), so the call is not late for it.
		slot, retryAt, err := a.takeSlot(ctx, 2*time.Duration(a.claimTook.Load()))
		if err != nil || !retryAt.IsZero() {
			return nil, retryAt, err
		}
		// The sender says when the call started by the wall clock; the
		// chat's turns are in this process's clock (a.now, a test's too).
		lead := max(time.Until(slot.At), 0)
		claimed, claimedWall := a.now().Add(lead), time.Now().Add(lead)
		asked := time.Now()
		c, err := a.Store.ClaimCallGathering(ctx, chatID, ticket, budget, claimed, gather)
		a.noteClaim(time.Since(asked))
		if err != nil || c.Folded || !c.OK {
			a.giveSlot(slot)
		}
		if err == nil && c.Folded {
			return nil, time.Time{}, telegram.ErrTold
		}
		if err != nil || !c.OK {
			return nil, c.RetryAt, err
		}
		if err := a.waitSlot(ctx, slot); err != nil {
			return nil, time.Time{}, err
		}
		return func(started time.Time) {
			late := started.Sub(claimedWall)
			if late <= store.ConfirmAfter {
				return
			}
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.Store.ConfirmCall(cctx, chatID, ticket, claimed.Add(late)); err != nil {
				activity.GetLogger(ctx).Info("could not confirm a call's start", "error", err)
			}
		}, time.Time{}, nil
	}
}

// call makes the call of in: the step named, or the first of a delivery
// (the message, the card's edit, or a fresh card).
func (a *Activities) call(ctx context.Context, in SendInput, text string, r Recipient) (*SendResult, error) {
	// fresh: the card was found deleted by the chain's edit (its Step
	// names the updates it showed): this call posts the new one.
	fresh := in.Step != nil && in.Step.Call == callFresh
	if in.Step != nil && !fresh {
		return a.cardStep(ctx, in, r)
	}
	// A component change an incident's card covers is an edit of the card
	// (fold.go): one call, the card of the first incident that covers it.
	if !fresh {
		if folded, err := a.fold(ctx, in.EventKey, r); err != nil || folded {
			if err != nil {
				return nil, err
			}
			return &SendResult{As: store.AsCardEdit}, nil
		}
	}
	texts, err := a.cardTextsOf(ctx, tellKey(in), r.Zone, r.Lang)
	if err != nil {
		return nil, err
	}
	asMessage := func() (*SendResult, error) {
		text, silent, folds := a.foldBehind(ctx, in, r, text)
		if err := a.Telegram.SendWith(ctx, r.ChatID, r.ThreadID, text, telegram.SendOptions{Silent: silent}); err != nil {
			return nil, err
		}
		if len(folds) > 0 {
			// Their owners then make no call. Should this fail, each
			// sends its own: told twice, never lost.
			if err := a.Store.FoldTurns(context.WithoutCancel(ctx), r.ChatID, folds, a.now()); err != nil {
				activity.GetLogger(ctx).Warn("could not mark component changes told in one message", "subscriber", r.Key, "error", err)
			}
		}
		return &SendResult{As: store.AsMessage}, nil
	}
	if texts == nil || (r.CardRead && !r.Cards) {
		return asMessage()
	}
	if err := a.readCard(ctx, texts.Incident, &r); err != nil {
		return nil, err
	}
	if !r.Cards {
		return asMessage()
	}
	notes, err := a.cardNotesFor(ctx, texts, r)
	if err != nil {
		return nil, err
	}
	cardText := a.cardText(ctx, tellKey(in), texts, r.Zone, r.Page, notes, nil)
	var shown []string
	if fresh {
		r.Card, shown = nil, in.Step.Card.Updates
	}
	if r.Card != nil {
		err := a.Telegram.Edit(ctx, r.ChatID, r.Card.MessageID, cardText)
		var se *telegram.SendError
		if !errors.As(err, &se) || se.Outcome != telegram.Gone {
			if err != nil {
				return nil, err
			}
			card := *r.Card
			repin := a.reopens(ctx, card, texts, r)
			card.Event = tellKey(in)
			// Recorded at the edit, not at the reply a turn later: a
			// component change whose turn falls between them re-renders
			// the card from this update, never rolls it back (fold.go).
			unsaved, _ := a.saveCard(ctx, &card, nil)
			res := chained(in, r, callReply, card)
			res.Next.Step.Repin = repin
			res.Card, res.CardRecorded = unsaved, unsaved == nil
			return res, nil
		}
		// The edit was this Send's call: the fresh card is the next (two
		// calls in one Send livelocked on the chat's turn).
		activity.GetLogger(ctx).Info("incident card gone (deleted in the chat): posting a fresh one", "subscriber", r.Key)
		return chained(in, r, callFresh, store.IncidentCard{Updates: r.Card.Updates}), nil
	}
	id, err := a.Telegram.SendMessage(ctx, r.ChatID, r.ThreadID, cardText, telegram.SendOptions{Silent: r.Silent})
	if err != nil {
		return nil, err
	}
	card := store.IncidentCard{Incident: texts.Incident, Sub: r.Key, MessageID: id, Updates: shown, Event: tellKey(in)}
	if !card.Shows(texts.UpdateID) {
		card.Updates = append(card.Updates, texts.UpdateID)
	}
	// Recorded at once, so that no retry posts the card again.
	unsaved, _ := a.saveCard(ctx, &card, nil)
	res := &SendResult{As: store.AsCard}
	if r.PinCards && !texts.Final {
		res = chained(in, r, callPin, card)
	}
	res.Card, res.CardRecorded = unsaved, unsaved == nil
	return res, nil
}

// cardStep makes a later call of a card chain: the reply under the edited
// card, the pin of a fresh one, the unpin of a resolved one.
func (a *Activities) cardStep(ctx context.Context, in SendInput, r Recipient) (*SendResult, error) {
	card := in.Step.Card
	switch in.Step.Call {
	case callEdit:
		return a.heldEdit(ctx, in, r)
	case callFold:
		return a.heldFold(ctx, in, r)
	case callPin:
		if err := a.Telegram.Pin(ctx, r.ChatID, card.MessageID); comeBack(err) {
			return nil, err
		} else if err != nil {
			// Missing rights never fail a delivery.
			activity.GetLogger(ctx).Info("could not pin an incident card", "subscriber", r.Key, "error", err)
			return &SendResult{As: stepAs(in.Step)}, nil // the card is recorded unpinned
		}
		card.Pinned = true
	case callUnpin:
		if err := a.Telegram.Unpin(ctx, r.ChatID, card.MessageID); comeBack(err) {
			return nil, err
		} else if err != nil {
			activity.GetLogger(ctx).Info("could not unpin a resolved incident card", "subscriber", r.Key, "error", err)
		}
		card.Pinned = false
	default: // callReply
		texts, err := a.cardTextsOf(ctx, tellKey(in), r.Zone, r.Lang)
		if err != nil {
			return nil, err
		}
		if texts == nil {
			// The card's texts are gone (pruned with the notice): its edit
			// was made; no reply can be written. The chain ends there.
			activity.GetLogger(ctx).Warn("incident card's texts missing: its reply is not sent", "subscriber", r.Key, "event", in.EventKey)
			return &SendResult{As: store.AsCardEdit}, nil
		}
		if e, err := a.together(ctx, in); err != nil {
			return nil, err
		} else if e != nil {
			texts.Reply = message.CardReplyIn(i18n.Of(r.Lang), *e, false) // the newest, the earlier named
		}
		if err := a.replyUnder(ctx, r, texts, &card); err != nil {
			return nil, err
		}
		if next := pinStep(card, texts.Final, in.Step.Repin && r.PinCards); next != "" {
			unsaved, _ := a.saveCard(ctx, &card, nil)
			res := chained(in, r, next, card)
			res.Next.Step.Repin = next == callPin
			res.Card, res.CardRecorded = unsaved, unsaved == nil
			return res, nil
		}
	}
	unsaved, _ := a.saveCard(ctx, &card, nil)
	return &SendResult{Card: unsaved, CardRecorded: unsaved == nil, As: stepAs(in.Step)}, nil
}

// pinStep is the call that follows a card's update: the unpin of a
// resolved incident's pinned card, the pin of a reopened one's (repin:
// the incident was reopened and the chat pins its cards); "" for none.
func pinStep(card store.IncidentCard, final, repin bool) string {
	switch {
	case final && card.Pinned:
		return callUnpin
	case repin && !final && !card.Pinned:
		return callPin
	}
	return ""
}

// reopens: the card showed the incident resolved, and this update opens
// it again: a chat that pins its cards gets it pinned again.
func (a *Activities) reopens(ctx context.Context, card store.IncidentCard, texts *cardTexts, r Recipient) bool {
	if !r.PinCards || texts.Final || card.Pinned || card.Event == "" {
		return false
	}
	was, err := a.cardTextsOf(ctx, card.Event, "", "")
	return err == nil && was != nil && was.Final
}

// stepAs is how a chain that ends with step went out, for /why: a pin
// ends a fresh card, a reply, an unpin or a reopened card's pin an update
// under the card; a held notice's chain says nothing (it stays held).
func stepAs(step *SendStep) string {
	switch {
	case step.Held:
		return ""
	case step.Call == callPin && !step.Repin:
		return store.AsCard
	}
	return store.AsReply
}

// takeSlot takes the call's slot of the bot's budget for the whole
// cluster (store.SendBudget); retryAt is when to come back when none is
// free within a moment.
func (a *Activities) takeSlot(ctx context.Context, lead time.Duration) (store.Slot, time.Time, error) {
	if a.Budget == nil {
		return store.Slot{At: time.Now()}, time.Time{}, nil
	}
	slot, ok, retryAt, err := a.Budget.TakeAhead(ctx, lead)
	if err != nil {
		return store.Slot{}, time.Now().Add(time.Second), err
	}
	if !ok {
		return store.Slot{}, a.now().Add(time.Until(retryAt)), nil
	}
	return slot, time.Time{}, nil
}

// noteClaim keeps a moving average of how long a chat's claim takes
// (claimTook, nanoseconds).
func (a *Activities) noteClaim(took time.Duration) {
	old := a.claimTook.Load()
	a.claimTook.Store(old + (int64(took)-old)/8)
}

func (a *Activities) giveSlot(slot store.Slot) {
	if a.Budget != nil {
		a.Budget.Give(slot)
	}
}

// waitSlot waits until the call's slot starts; a wait that ends too late
// for it (a GC pause, a slow store) takes the next slot instead, so calls
// never bunch (store.MaxLate), as does a slot a command reply took.
func (a *Activities) waitSlot(ctx context.Context, slot store.Slot) error {
	if a.Budget == nil {
		return nil
	}
	giveUp := time.Now().Add(lateRetakeFor)
	for {
		if err := sleepUntil(ctx, slot.At); err != nil {
			return err
		}
		if a.Budget.Ready(ctx, slot) {
			return nil
		}
		// Late, or the slot went to a command reply (they go first). The
		// chat's turn is this call's already: wait for a free slot (the
		// chat's spacing is confirmed from the actual start).
		for {
			next, ok, retryAt, err := a.Budget.Take(ctx)
			if err != nil {
				return err
			}
			if ok {
				slot = next
				break
			}
			if retryAt.After(giveUp) {
				return errors.New("no slot of the bot's budget free soon after a late start")
			}
			if err := sleepUntil(ctx, retryAt); err != nil {
				return err
			}
		}
	}
}

// lateRetakeFor bounds how long a call that woke too late for its slot
// waits inside its attempt for another.
const lateRetakeFor = 5 * time.Second

func sleepUntil(ctx context.Context, at time.Time) error { return telegram.Sleep(ctx, time.Until(at)) }

// fallbackSlot is the slot of a further call within a turn (the plain
// text after HTML refused for its entities): every Bot API call takes one.
func (a *Activities) fallbackSlot(ctx context.Context) error {
	slot, retryAt, err := a.takeSlot(ctx, 0)
	if err != nil {
		return err
	}
	if !retryAt.IsZero() {
		return errors.New("no slot of the bot's budget free soon for the plain-text retry")
	}
	return a.waitSlot(ctx, slot)
}

// burstSpent: failures attempts of a call, counted over its chain, are all
// a burst has (attempts, or else its retry policy's).
func burstSpent(ctx context.Context, attempts, failures int32) bool {
	if p := activity.GetInfo(ctx).RetryPolicy; attempts == 0 && p != nil {
		attempts = p.MaximumAttempts
	}
	return attempts > 0 && failures >= attempts
}

// comeBack: the call was not made (the chat's turn has not come), or the
// group became a supergroup: the chain is to go on (sendCall) rather
// than end on a pin's failure, which never fails a delivery.
func comeBack(err error) bool {
	var se *telegram.SendError
	return errors.As(err, &se) && (se.Outcome == telegram.NotYet || se.Outcome == telegram.Migrated)
}

// chained is a result whose chain goes on with call on card.
func chained(in SendInput, r Recipient, call string, card store.IncidentCard) *SendResult {
	next := in
	next.Recipient, next.Step, next.Failed = r, &SendStep{Call: call, Card: card}, 0
	return &SendResult{Next: &next}
}

// TicketOf names a delivery's send to one subscriber in its chat's queue
// of turns (a forum's topics share their chat's budget).
func TicketOf(eventAt time.Time, eventKey, subKey string) string {
	return eventAt.UTC().Format("2006-01-02T15:04:05.000Z") + "|" + eventKey + "|" + subKey
}

// BurstTicketOf is TicketOf for the event at place burst of a burst of
// component changes (event.Event.Burst): the place goes after the
// subscriber, so the order of the queue is TicketOf's.
func BurstTicketOf(eventAt time.Time, eventKey, subKey string, burst int) string {
	t := TicketOf(eventAt, eventKey, subKey)
	if burst > 0 {
		t += "|b" + strconv.Itoa(burst)
	}
	return t
}

// callTicket is the ticket of one call of a send: a claim that comes back
// finds its place in the queue again.
func callTicket(in SendInput) string {
	call := callFirst
	if in.Step != nil {
		call = in.Step.Call
	}
	return in.Ticket + "|" + call
}
