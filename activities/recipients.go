package activities

import (
	"context"
	"errors"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Recipient is a subscriber reference as the delivery workflow keeps it.
type Recipient struct {
	Key      string `json:"key"`
	ChatID   int64  `json:"chat_id"`
	ThreadID int    `json:"thread_id,omitempty"`
	// Silent: sent with disable_notification by the chat's severity
	// choice (notice.Decide). Quiet hours are judged when the send goes out
	// (Quiet): a retry hours later rings or not by the clock of then.
	Silent bool          `json:"silent,omitempty"`
	Quiet  *notice.Quiet `json:"quiet,omitempty"`
	// NoNews: Silent because the step is no news (notice.News), for /why.
	NoNews bool `json:"no_news,omitempty"`
	// Cards mode of the subscriber (PinCards: pin the open card), and its
	// card of the event's incident, as the page read them (CardRead):
	// incident updates and component changes (which may fold into a card).
	Cards    bool                `json:"cards,omitempty"`
	PinCards bool                `json:"pin_cards,omitempty"`
	Card     *store.IncidentCard `json:"card,omitempty"`
	CardRead bool                `json:"card_read,omitempty"`
	// Zone is the chat's time zone when its texts of the event show times
	// and it is not UTC (notice.TextZone); "" is UTC.
	Zone string `json:"zone,omitempty"`
	// Page is the event's page's name, shown on its notices and cards,
	// when the chat follows several pages (pages.Offer.Label); "": none.
	Page string `json:"page,omitempty"`
	// Told is the step of the event's folded ones the chat was told last
	// (an earlier delivery told it, handed over while it sent:
	// handover.go): the send names only the steps after it. "": none.
	Told string `json:"told,omitempty"`
	// Lang is the chat's language (package i18n) when it is not English:
	// its card's frame and replies are said in it.
	Lang string `json:"lang,omitempty"`
}

// PageInput asks for the next page of recipients of an event.
type PageInput struct {
	Event  event.Event `json:"event"`
	Cursor string      `json:"cursor,omitempty"`
	Limit  int         `json:"limit"`
	// Since is when the delivery started: a group that moved to a
	// supergroup after it is found at its old key's place in the pages.
	Since time.Time `json:"since,omitempty"`
	// Recheck is how soon a subscriber blocked behind an earlier update is
	// looked at again.
	Recheck time.Duration `json:"recheck,omitempty"`
}

// RecipientPage is one page of subscribers that want the event and have
// not got it yet.
type RecipientPage struct {
	Recipients []Recipient `json:"recipients,omitempty"`
	// AlreadyDelivered counts subscribers the ledger says got the event.
	AlreadyDelivered int    `json:"already_delivered,omitempty"`
	Next             string `json:"next,omitempty"`
	// Blocked counts subscribers an earlier, unfinished update of the same
	// incident or component has not reached yet: saved as retries that wait.
	Blocked int `json:"blocked,omitempty"`
}

// Recipients pages subscribers: a few round trips per page (subscribers,
// moved groups, ledger, earlier updates' retries, what the chats were told
// of the story, cards), however large the page.
func (a *Activities) Recipients(ctx context.Context, in PageInput) (*RecipientPage, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	subs, next, err := a.subscribersFor(ctx, in)    // reminders.go
	if err != nil {
		return nil, err
	}
	candidates, err := a.pageCandidates(ctx, in, subs, next)
	if err != nil {
		return nil, err
	}
	done, err := a.Store.Delivered(ctx, in.Event.Key, subKeys(candidates))
	if err != nil {
		return nil, err
	}
	out := &RecipientPage{Next: next}
	var fresh []store.Subscriber
	for _, s := range candidates {
		if done[s.Key] {
			out.AlreadyDelivered++
			continue
		}
		fresh = append(fresh, s)
	}
	// Held before the chat's choices are read: whether it hears this step
	// may depend on whether the earlier one reaches it.
	blocked, err := a.holdBlocked(ctx, in.Event, fresh, in.Recheck)
	if err != nil {
		return nil, err
	}
	out.Blocked = len(blocked)
	var ready []store.Subscriber
	for _, s := range fresh {
		if !blocked[s.Key] {
			ready = append(ready, s)
		}
	}
	verdicts, told, err := a.verdicts(ctx, in.Event, ready)
	if err != nil {
		return nil, err
	}
	if err := a.Store.RecordFates(ctx, pageFates(in.Event, append(fresh, kindless(in.Event, subs)...), verdicts, blocked, a.now())); err != nil {
		return nil, err
	}
	for _, s := range ready {
		if v := verdicts[s.Key]; v.Send {
			r := a.recipientOf(in.Event, s, v)
			r.Told = toldFolded(in.Event, told[s.Key])
			out.Recipients = append(out.Recipients, r)
		}
	}
	return out, a.withCards(ctx, in.Event, out.Recipients)
}

// pageCandidates turns one page of subscriptions into those that take the
// event's kind, with group-to-supergroup moves placed where the delivery
// expects them: a group that moved after the delivery started is reached at
// its old key's place (the new key may sort behind the cursor), never twice.
func (a *Activities) pageCandidates(ctx context.Context, in PageInput, subs []store.Subscriber, next string) ([]store.Subscriber, error) {
	// A migration cut short leaves the old subscription beside the new one.
	twins, err := a.Store.MigratedTwins(ctx, subKeys(subs))
	if err != nil {
		return nil, err
	}
	moves, err := a.Store.MigrationsBetween(ctx, in.Cursor, next, in.Since)
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	var out []store.Subscriber
	for _, s := range subs {
		live[s.Key] = true
		if s.MigratedFrom != "" && s.MigratedAt.After(in.Since) {
			continue // reached at its old key's place
		}
		if twin, ok := twins[s.Key]; ok && !twin.MigratedAt.After(in.Since) {
			continue // the new subscription is paged on its own
		}
		if in.Event.AcceptsKind(s.Kinds) {
			out = append(out, s)
		}
	}
	for _, m := range moves {
		if live[m.OldKey] {
			continue // the old subscription is still there and read above
		}
		sub, err := a.Store.Subscription(ctx, m.NewKey)
		if errors.Is(err, store.ErrNotSubscribed) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if in.Event.AcceptsKind(sub.Kinds) {
			out = append(out, *sub)
		}
	}
	return out, nil
}

// verdicts applies each chat's choices and what it was told of the story
// to the event (notice.Decide): one round trip for the records, and one
// into the ledger for stories that began before records were kept.
// told is what they were told of the story.
func (a *Activities) verdicts(ctx context.Context, e event.Event, subs []store.Subscriber) (map[string]notice.Verdict, map[string]store.Told, error) {
	out := map[string]notice.Verdict{}
	told := map[string]store.Told{}
	if len(subs) == 0 {
		return out, told, nil
	}
	var err error
	if e.Reminder == nil {
		if told, err = a.Store.ToldOf(ctx, e.OrderKey, subKeys(subs)); err != nil {
			return nil, nil, err
		}
	}
	heard, err := a.heardBeforeRecords(ctx, e, subs, told)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range subs {
		rec, ok := told[s.Key]
		out[s.Key] = notice.Decide(s, e, (ok && rec.Open) || heard[s.Key])
	}
	return out, told, nil
}

// toldFolded is the chat's last step told when e folds it (Recipient.Told).
func toldFolded(e event.Event, t store.Told) string {
	if e.Folds(t.LastEvent) {
		return t.LastEvent
	}
	return ""
}

// heardBeforeRecords covers stories whose previous step was handed over
// before the records were kept (its Seq is 0, so this event's is 1 at
// most): a chat the ledger says got that step is in the story.
func (a *Activities) heardBeforeRecords(ctx context.Context, e event.Event, subs []store.Subscriber, told map[string]store.Told) (map[string]bool, error) {
	if e.Reminder != nil || e.Predecessor == "" || e.Seq > 1 || e.OpensEpisode() {
		return nil, nil
	}
	var unknown []string
	for _, s := range subs {
		if _, ok := told[s.Key]; !ok {
			unknown = append(unknown, s.Key)
		}
	}
	return a.Store.Delivered(ctx, e.Predecessor, unknown)
}

// recipientOf is the recipient of an event; of an incident update, with
// its delivery mode.
func (a *Activities) recipientOf(e event.Event, s store.Subscriber, v notice.Verdict) Recipient {
	r := Recipient{Key: s.Key, ChatID: s.ChatID, ThreadID: s.ThreadID, Silent: v.Silent, NoNews: v.NoNews, Quiet: notice.QuietFor(s.Settings, e),
		Zone: notice.TextZone(s.Settings, e), Page: a.Pages.Label(s.Pages, e.Page), Lang: s.Settings.Lang}
	switch e.Kind {
	case event.KindIncident:
		r.Cards, r.PinCards = s.Settings.Cards(), s.Settings.PinCards
	case event.KindComponent:
		// A component change may be told on an incident's card (fold.go).
		r.Cards, r.CardRead = s.Settings.Cards(), true
	}
	return r
}

// kindless are the page's subscribers that do not take the event's kind
// (left out of the candidates): withheld by their notice types.
func kindless(e event.Event, subs []store.Subscriber) []store.Subscriber {
	var out []store.Subscriber
	for _, s := range subs {
		if !e.AcceptsKind(s.Kinds) {
			out = append(out, s)
		}
	}
	return out
}

func subKeys(subs []store.Subscriber) []string {
	keys := make([]string, len(subs))
	for i, s := range subs {
		keys[i] = s.Key
	}
	return keys
}
