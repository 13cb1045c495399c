package activities

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// The card is the incident: in cards mode, a change of a component that
// an incident the chat hears of lists is told on that incident's card (an
// edit: the component's status on the card, a note in its timeline), not
// in a message of its own. A change no incident covers is its own notice.

// foldSuffix names the stored fold of a component event beside its message.
const foldSuffix = "#fold"

// foldGrace: a component back to operational this soon after the incident
// that lists it was resolved is still told on its card.
const foldGrace = 2 * time.Hour

// foldTexts is where a component event folds, prepared once per event.
type foldTexts struct {
	Note    store.CardNote `json:"note"`
	Targets []FoldTarget   `json:"targets,omitempty"`
	// Story is the component's trip (the event's order key) and Ends says
	// the change ends it (toldApart); unset in folds prepared before.
	Story string `json:"story,omitempty"`
	Ends  bool   `json:"ends,omitempty"`
}

// FoldTarget is an incident that lists the component, as the page showed it
// with the change.
type FoldTarget struct {
	Incident string `json:"incident"`
	// Now is the incident as its newest update shows it: a chat that has
	// no card yet is judged by it (the update's delivery may be on its way).
	Now        event.Event              `json:"now"`
	Open       bool                     `json:"open,omitempty"`
	Components []message.ComponentState `json:"components,omitempty"`
}

// FoldTargets are the incidents of the page that cover a component
// change: those that list the component and are open, or, for its return
// to operational, were resolved at most foldGrace before it. Maintenances
// are left out (their components' changes are the maintenance's own news).
func FoldTargets(p *statuspage.Page, e event.Event) []FoldTarget {
	if p == nil || e.Kind != event.KindComponent || e.ComponentID == "" {
		return nil
	}
	var out []FoldTarget
	for _, inc := range p.Incidents {
		if inc.IsMaintenance() || !lists(inc, e.ComponentID) {
			continue
		}
		open := !message.Final(inc.Status)
		if !open {
			resolved := inc.UpdatedAt
			if inc.ResolvedAt != nil {
				resolved = *inc.ResolvedAt
			}
			if !e.EndsEpisode() || e.At.Sub(resolved) > foldGrace {
				continue
			}
		}
		out = append(out, FoldTarget{Incident: inc.ID, Now: event.IncidentNow(p, inc), Open: open, Components: ComponentStates(p, inc)})
	}
	return out
}

func lists(inc statuspage.Incident, componentID string) bool {
	for _, c := range inc.Components {
		if c.ID == componentID {
			return true
		}
	}
	return false
}

// ComponentStates are the incident's components with their statuses on
// the page.
func ComponentStates(p *statuspage.Page, inc statuspage.Incident) []message.ComponentState {
	status := map[string]statuspage.Component{}
	for _, c := range p.Components {
		if !c.Group {
			status[c.ID] = c
		}
	}
	labels := event.ComponentNames(p)
	var out []message.ComponentState
	for _, c := range inc.Components {
		pc := status[c.ID]
		name := labels[c.ID]
		if name == "" {
			name = c.Name
		}
		if name == "" {
			continue
		}
		out = append(out, message.ComponentState{Name: name, Status: pc.Status})
	}
	return out
}

// prepareFold stores where a component event folds (nothing when no
// incident covers it).
func (a *Activities) prepareFold(ctx context.Context, e event.Event) error {
	if e.Kind != event.KindComponent {
		return nil
	}
	snap, err := a.snapshotFor(ctx, e)
	if err != nil || snap == nil {
		return err
	}
	targets := FoldTargets(&snap.Page, e)
	if len(targets) == 0 {
		return nil
	}
	label := e.ComponentLabel
	if label == "" {
		label = e.ComponentName
	}
	raw, err := json.Marshal(foldTexts{Note: store.CardNote{At: e.At, Component: label, Status: e.NewStatus, Event: e.Key}, Targets: targets,
		Story: e.OrderKey, Ends: e.EndsEpisode()})
	if err != nil {
		return err
	}
	if err := a.Store.SaveMessage(ctx, e.Key+foldSuffix, string(raw), a.now()); err != nil {
		return err
	}
	a.cacheMessage(e.Key+foldSuffix, string(raw))
	return nil
}

// foldOf returns where a component event folds; nil for none.
func (a *Activities) foldOf(ctx context.Context, eventKey string) (*foldTexts, error) {
	if !keyIs(eventKey, event.KindComponent) {
		return nil, nil
	}
	return readPrepared[foldTexts](ctx, a, eventKey+foldSuffix, "fold")
}

// fold tells a component change on the chat's cards of the incidents that
// cover it, and reports whether it did (then no message goes). A chat
// with no card yet of an open incident it hears of gets the note kept for
// the card to come (that card shows the component's status anyway). A
// recovery whose outage the chat heard in a message of its own gets a
// message of its own too (toldApart). It edits one card at most, one Bot
// API call per Send (calls.go): the others show the note when next
// edited. Reads, decisions, notes and edits are the steps below.
func (a *Activities) fold(ctx context.Context, eventKey string, r Recipient) (bool, error) {
	f, err := a.foldOf(ctx, eventKey)
	if err != nil || f == nil || (r.CardRead && !r.Cards) {
		return false, err
	}
	sub := a.subscriberOnce(ctx, r.Key)
	if !r.CardRead {
		if s, err := sub(); err != nil || !s.Settings.Cards() {
			return false, notSubscribedIsNil(err)
		}
	}
	if apart, err := a.recoveryApart(ctx, f, r); err != nil || apart {
		return false, err
	}
	cards, err := a.foldCards(ctx, f, r)
	if err != nil {
		return false, err
	}
	folded := false
	for _, c := range cards {
		note := f.Note
		note.Incident, note.Sub = c.Incident, r.Key
		var did bool
		if c.card == nil {
			did, err = a.keepForCard(ctx, c.FoldTarget, note, r, sub)
		} else {
			did, err = a.foldOnCard(ctx, *c.card, c.FoldTarget, note, r, folded)
		}
		if err != nil {
			return false, notSubscribedIsNil(err)
		}
		folded = folded || did
	}
	if folded {
		activity.GetLogger(ctx).Debug("component change told on the incident card", "subscriber", r.Key)
	}
	return folded, nil
}

// foldCard is an incident that covers a change, with the chat's card of
// it (nil: none yet).
type foldCard struct {
	FoldTarget
	card *store.IncidentCard
}

// foldCards reads the chat's cards of the incidents that cover a change.
func (a *Activities) foldCards(ctx context.Context, f *foldTexts, r Recipient) ([]foldCard, error) {
	out := make([]foldCard, 0, len(f.Targets))
	for _, t := range f.Targets {
		cards, err := a.Store.Cards(ctx, t.Incident, []string{r.Key})
		if err != nil {
			return nil, err
		}
		fc := foldCard{FoldTarget: t}
		if c, ok := cards[r.Key]; ok {
			fc.card = &c
		}
		out = append(out, fc)
	}
	return out, nil
}

// recoveryApart reads how the chat heard the step before a component's
// recovery, and decides with toldApart.
func (a *Activities) recoveryApart(ctx context.Context, f *foldTexts, r Recipient) (bool, error) {
	if !f.Ends || f.Story == "" {
		return false, nil // not a recovery, or prepared before stories were kept with folds
	}
	told, err := a.Store.ToldOf(ctx, f.Story, []string{r.Key})
	if err != nil {
		return false, err
	}
	last, heard := told[r.Key]
	if !heard || !last.Open || last.LastEvent == "" {
		return false, nil
	}
	onCard := false
	for _, t := range f.Targets {
		notes, err := a.Store.CardNotes(ctx, t.Incident, []string{r.Key})
		if err != nil {
			return false, err
		}
		onCard = onCard || slices.ContainsFunc(notes[r.Key], func(n store.CardNote) bool { return n.Event == last.LastEvent })
	}
	return toldApart(f.Ends, last.LastEvent, onCard), nil
}

// toldApart: a component's return to operational (ends) goes out as a
// message of its own when the last step of its trip the chat heard
// (lastHeard, "" for none) was not told on a card of it (onCard): the
// chat that got "API is down" in a message hears "API is back" the same
// way, never only as a silent card edit.
func toldApart(ends bool, lastHeard string, onCard bool) bool {
	return ends && lastHeard != "" && !onCard
}

// keepForCard keeps the note for the card to come of an open incident the
// chat hears of (its delivery may be on its way); false when there is
// none to come.
func (a *Activities) keepForCard(ctx context.Context, t FoldTarget, note store.CardNote, r Recipient, sub func() (*store.Subscriber, error)) (bool, error) {
	if !t.Open {
		return false, nil
	}
	s, err := sub()
	if err != nil {
		return false, err
	}
	told, err := a.Store.ToldOf(ctx, t.Now.OrderKey, []string{r.Key})
	if err != nil {
		return false, err
	}
	if !notice.Decide(*s, t.Now, told[r.Key].Open).Send {
		return false, nil
	}
	return true, a.Store.AddCardNote(ctx, note)
}

// foldOnCard notes the change on the chat's card and edits the card to
// show it, unless later (the Send's one call is made: the card shows the
// note at its next edit); false when the change is to be a message of its
// own: a card from before cards kept their event, or one deleted in the
// chat. The card's record is left alone: the incident's own delivery may
// be writing it (its updates shown).
func (a *Activities) foldOnCard(ctx context.Context, c store.IncidentCard, t FoldTarget, note store.CardNote, r Recipient, later bool) (bool, error) {
	texts, err := a.cardTextsOf(ctx, c.Event, r.Zone, r.Lang)
	if err != nil || texts == nil || texts.Event == nil {
		return false, err
	}
	if err := a.Store.AddCardNote(ctx, note); err != nil {
		return false, err
	}
	if later {
		return false, nil
	}
	return a.editWithNotes(ctx, r, c, texts, t.Components)
}

// subscriberOnce reads the chat's subscription at the first call, once.
func (a *Activities) subscriberOnce(ctx context.Context, key string) func() (*store.Subscriber, error) {
	var sub *store.Subscriber
	return func() (*store.Subscriber, error) {
		if sub == nil {
			s, err := a.Store.Subscription(ctx, key)
			if err != nil {
				return nil, err
			}
			sub = s
		}
		return sub, nil
	}
}

// notSubscribedIsNil: a chat that left gets nothing, and no error.
func notSubscribedIsNil(err error) error {
	if errors.Is(err, store.ErrNotSubscribed) {
		return nil
	}
	return err
}

// editWithNotes edits the card to show its notes; a note that another
// change added while the edit went out gets the card edited once more, so
// that the last edit shows every note. False: the card is gone.
func (a *Activities) editWithNotes(ctx context.Context, r Recipient, c store.IncidentCard, texts *cardTexts, comps []message.ComponentState) (bool, error) {
	shown := -1
	for range 3 {
		notes, err := a.Store.CardNotes(ctx, c.Incident, []string{r.Key})
		if err != nil {
			return false, err
		}
		if len(notes[r.Key]) == shown {
			return true, nil
		}
		shown = len(notes[r.Key])
		err = a.Telegram.Edit(ctx, r.ChatID, c.MessageID, a.cardText(ctx, c.Event, texts, r.Zone, r.Page, notes[r.Key], comps))
		var se *telegram.SendError
		if errors.As(err, &se) && se.Outcome == telegram.Gone {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// cardText is the card of texts in zone with the chat's component notes
// and, when given, fresher component statuses; without either it is the
// rendering all chats of the zone share. page names the card's page for a
// chat of several pages (Recipient.Page).
func (a *Activities) cardText(ctx context.Context, eventKey string, t *cardTexts, zone, page string, notes []store.CardNote, comps []message.ComponentState) string {
	return message.OfPage(cardTextInZone(t, zone, notes, comps), page)
}

func cardTextInZone(t *cardTexts, zone string, notes []store.CardNote, comps []message.ComponentState) string {
	if t.Event == nil || (len(notes) == 0 && comps == nil) {
		return t.Card
	}
	if comps == nil {
		comps = t.Components
	}
	loc, err := store.LoadZone(zone)
	if err != nil || zone == "" {
		loc = time.UTC
	}
	return message.CardOfIn(i18n.Of(t.lang), *t.Event, message.WithNotes(t.Steps, noteSteps(notes)), comps, loc)
}

func noteSteps(notes []store.CardNote) []message.Step {
	out := make([]message.Step, 0, len(notes))
	for _, n := range notes {
		out = append(out, message.Step{At: n.At, Status: n.Status, Component: n.Component})
	}
	return out
}
