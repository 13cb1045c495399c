package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// cardSuffix names the stored card texts of an event beside its message.
const cardSuffix = "#card"

// cardTexts is what a card delivery of one incident update needs, rendered
// once per event by PrepareMessage.
type cardTexts struct {
	Incident string `json:"incident"`
	UpdateID string `json:"update_id"`
	Final    bool   `json:"final,omitempty"`
	Card     string `json:"card"`
	Reply    string `json:"reply"`
	Edited   string `json:"edited"`
	// Event and Steps render the card again in a chat's time zone (its
	// timeline shows times); absent in texts prepared before zones applied.
	Event *event.Event   `json:"event,omitempty"`
	Steps []message.Step `json:"steps,omitempty"`
	// Components are the incident's components with their statuses as the
	// page showed them with this update.
	Components []message.ComponentState `json:"components,omitempty"`
	// Update is the update the reply tells, to say it again in a chat's
	// language; absent in texts prepared before languages (the reply
	// then stays English).
	Update *event.Event `json:"update,omitempty"`
	// lang is the language the texts were read for (cardTextsOf): a
	// chat's card with notes is drawn in it too (cardTextInZone).
	lang string
}

// prepareCard renders the card of an incident update from the page as
// last read, as the incident stands at this step of its story, and stores
// it beside the plain message.
func (a *Activities) prepareCard(ctx context.Context, e event.Event) error {
	if e.Kind != event.KindIncident {
		return nil
	}
	snap, err := a.snapshotFor(ctx, e)
	if err != nil {
		return err
	}
	var inc *statuspage.Incident
	var comps []message.ComponentState
	if snap != nil {
		for i := range snap.Page.Incidents {
			if snap.Page.Incidents[i].ID == e.IncidentID {
				inc = &snap.Page.Incidents[i]
			}
		}
		if inc != nil {
			comps = ComponentStates(&snap.Page, *inc)
		}
	}
	// The card shows the incident as of this step; the reply, this update.
	steps, state := message.Timeline(inc, e), message.CardState(inc, e)
	texts := cardTexts{Incident: e.IncidentID, UpdateID: e.UpdateID, Final: message.Final(state.UpdateStatus),
		Card: message.CardOf(state, steps, comps, time.UTC), Reply: message.CardReply(e, false), Edited: message.CardReply(e, true),
		Event: &state, Steps: steps, Components: comps, Update: &e}
	raw, err := json.Marshal(texts)
	if err != nil {
		return err
	}
	if err := a.Store.SaveMessage(ctx, e.Key+cardSuffix, string(raw), a.now()); err != nil {
		return err
	}
	a.cacheMessage(e.Key+cardSuffix, string(raw))
	return nil
}

// cardTextsOf returns the card texts of an event, the card's timeline in
// zone ("" is UTC), its frame and replies in lang ("" is English; package
// i18n); nil when it has none (not an incident update, or prepared before
// cards existed): sent as a message. Event and Steps stay for a chat's
// card with component notes (cardText). A rendering is cached per zone
// and language, never per chat.
func (a *Activities) cardTextsOf(ctx context.Context, eventKey, zone, lang string) (*cardTexts, error) {
	if !keyIs(eventKey, event.KindIncident) {
		return nil, nil
	}
	t, err := readPrepared[cardTexts](ctx, a, eventKey+cardSuffix, "card")
	if err != nil || t == nil {
		return nil, err
	}
	c := i18n.Of(lang)
	t.lang = c.Tag()
	key := eventKey + cardSuffix
	if c.Tag() != i18n.Default {
		key += "~" + c.Tag()
	}
	if (zone != "" || c.Tag() != i18n.Default) && t.Event != nil {
		t.Card, _ = a.inZone(ctx, key, zone, func(loc *time.Location) (string, error) {
			return message.CardOfIn(c, *t.Event, t.Steps, t.Components, loc), nil
		})
	}
	if c.Tag() != i18n.Default && t.Update != nil {
		t.Reply, t.Edited = message.CardReplyIn(c, *t.Update, false), message.CardReplyIn(c, *t.Update, true)
	}
	return t, nil
}

// cardNotesFor are the changes of the card's components told on the
// chat's card (fold.go); none for a card that lists no components.
func (a *Activities) cardNotesFor(ctx context.Context, texts *cardTexts, r Recipient) ([]store.CardNote, error) {
	if len(texts.Components) == 0 {
		return nil, nil
	}
	all, err := a.Store.CardNotes(ctx, texts.Incident, []string{r.Key})
	if err != nil {
		return nil, err
	}
	return all[r.Key], nil
}

// withCards marks the recipients of an incident update with their mode and
// card: one round trip for the page.
func (a *Activities) withCards(ctx context.Context, e event.Event, rs []Recipient) error {
	if e.Kind != event.KindIncident {
		return nil
	}
	var keys []string
	for i := range rs {
		rs[i].CardRead = true
		if rs[i].Cards {
			keys = append(keys, rs[i].Key)
		}
	}
	cards, err := a.Store.Cards(ctx, e.IncidentID, keys)
	if err != nil {
		return err
	}
	for i := range rs {
		if c, ok := cards[rs[i].Key]; ok {
			rs[i].Card = &c
		}
	}
	return nil
}

// readCard reads what the page of recipients did not (a retry saved in
// MongoDB, a group moved to a supergroup), and the card again on a retried
// attempt: the first may have replaced it.
func (a *Activities) readCard(ctx context.Context, incident string, r *Recipient) error {
	if !r.CardRead {
		sub, err := a.Store.Subscription(ctx, r.Key)
		if err != nil && !errors.Is(err, store.ErrNotSubscribed) {
			return err
		}
		r.Cards = sub != nil && sub.Settings.Cards()
		r.PinCards = sub != nil && sub.Settings.PinCards
	}
	if !r.Cards || (r.CardRead && activity.GetInfo(ctx).Attempt <= 1) {
		return nil
	}
	cards, err := a.Store.Cards(ctx, incident, []string{r.Key})
	if err != nil {
		return err
	}
	r.Card = nil
	if c, ok := cards[r.Key]; ok {
		r.Card = &c
	}
	return nil
}

// Card writes after a send: a few quick attempts, each bounded, so a
// MongoDB that is down does not hold the send for its server-selection
// time-out.
const (
	cardWriteAttempts = 3
	cardWriteTimeout  = 2 * time.Second
)

// saveCard records a card that was sent. The send is not repeated for a
// failed write (that would post the card again): the card is returned,
// and the delivery records it with the ledger, so the next update edits
// this card instead of posting a second one and leaving this one pinned.
func (a *Activities) saveCard(ctx context.Context, card *store.IncidentCard, err error) (*store.IncidentCard, error) {
	if err != nil || card == nil {
		return nil, err
	}
	card.At = a.now()
	for attempt := 1; ; attempt++ {
		wctx, cancel := context.WithTimeout(ctx, cardWriteTimeout)
		werr := a.Store.SaveCard(wctx, *card)
		cancel()
		if werr == nil {
			return nil, nil
		}
		if attempt == cardWriteAttempts || ctx.Err() != nil {
			activity.GetLogger(ctx).Warn("could not record an incident card: the delivery records it with the ledger", "subscriber", card.Sub, "error", werr)
			return card, nil
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
}

// readPrepared reads what PrepareMessage stored under key beside an
// event's message (its card, its fold); nil when there is none.
func readPrepared[T any](ctx context.Context, a *Activities, key, what string) (*T, error) {
	raw, err := a.message(ctx, key)
	if errors.Is(err, mongo.ErrNoDocuments) {
		a.cacheMessage(key, "")
		return nil, nil
	}
	if err != nil || raw == "" {
		return nil, err
	}
	var v T
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, fmt.Errorf("decode the %s of %s: %w", what, strings.SplitN(key, "#", 2)[0], err)
	}
	return &v, nil
}

// replyUnder posts the update's reply under the card (the correction's
// wording when the card already showed the update) and marks the card as
// showing it.
func (a *Activities) replyUnder(ctx context.Context, r Recipient, texts *cardTexts, card *store.IncidentCard) error {
	reply := texts.Reply
	if card.Shows(texts.UpdateID) {
		reply = texts.Edited
	}
	if _, err := a.Telegram.SendMessage(ctx, r.ChatID, r.ThreadID, reply, telegram.SendOptions{ReplyTo: card.MessageID, Silent: r.Silent}); err != nil {
		return err
	}
	if !card.Shows(texts.UpdateID) {
		card.Updates = append(card.Updates, texts.UpdateID)
	}
	return nil
}
