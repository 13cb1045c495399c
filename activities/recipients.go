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
	// Silent: sent with disable_notification (the chat's quiet hours or
	// severity choice, see internal/notice).
	Silent bool `json:"silent,omitempty"`
	// Cards mode of the subscriber (PinCards: pin the open card), and its
	// card of the event's incident, as the page read them (CardRead):
	// incident updates only.
	Cards    bool                `json:"cards,omitempty"`
	PinCards bool                `json:"pin_cards,omitempty"`
	Card     *store.IncidentCard `json:"card,omitempty"`
	CardRead bool                `json:"card_read,omitempty"`
	// Zone is the chat's time zone when its texts of the event show times
	// and it is not UTC (notice.TextZone); "" is UTC.
	Zone string `json:"zone,omitempty"`
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
// moved groups, ledger, earlier updates' retries), however large the page.
func (a *Activities) Recipients(ctx context.Context, in PageInput) (*RecipientPage, error) {
	subs, next, err := a.subscribersFor(ctx, in) // reminders.go
	if err != nil {
		return nil, err
	}
	wanted, err := a.pageRecipients(ctx, in, subs, next)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(wanted))
	for _, r := range wanted {
		keys = append(keys, r.Key)
	}
	done, err := a.Store.Delivered(ctx, in.Event.Key, keys)
	if err != nil {
		return nil, err
	}
	out := &RecipientPage{Next: next}
	var fresh []Recipient
	for _, r := range wanted {
		if done[r.Key] {
			out.AlreadyDelivered++
			continue
		}
		fresh = append(fresh, r)
	}
	blocked, err := a.holdBlocked(ctx, in.Event, fresh, in.Recheck)
	if err != nil {
		return nil, err
	}
	out.Blocked = len(blocked)
	for _, r := range fresh {
		if !blocked[r.Key] {
			out.Recipients = append(out.Recipients, r)
		}
	}
	return out, nil
}

// pageRecipients turns one page of subscriptions into the recipients that
// want the event, with group-to-supergroup moves placed where the delivery
// expects them: a group that moved after the delivery started is reached at
// its old key's place (the new key may sort behind the cursor), never twice.
func (a *Activities) pageRecipients(ctx context.Context, in PageInput, subs []store.Subscriber, next string) ([]Recipient, error) {
	keys := make([]string, 0, len(subs))
	for _, s := range subs {
		keys = append(keys, s.Key)
	}
	// A migration cut short leaves the old subscription beside the new one.
	twins, err := a.Store.MigratedTwins(ctx, keys)
	if err != nil {
		return nil, err
	}
	moves, err := a.Store.MigrationsBetween(ctx, in.Cursor, next, in.Since)
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	var out []Recipient
	for _, s := range subs {
		live[s.Key] = true
		if s.MigratedFrom != "" && s.MigratedAt.After(in.Since) {
			continue // reached at its old key's place
		}
		if twin, ok := twins[s.Key]; ok && !twin.MigratedAt.After(in.Since) {
			continue // the new subscription is paged on its own
		}
		if in.Event.Accepts(s.Kinds, s.Components) && notice.Wants(s.Settings, in.Event) {
			out = append(out, a.recipientOf(in.Event, s))
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
		if in.Event.Accepts(sub.Kinds, sub.Components) && notice.Wants(sub.Settings, in.Event) {
			out = append(out, a.recipientOf(in.Event, *sub))
		}
	}
	return out, a.withCards(ctx, in.Event, out)
}

// recipientOf is the recipient of an event; of an incident update, with
// its delivery mode.
func (a *Activities) recipientOf(e event.Event, s store.Subscriber) Recipient {
	r := Recipient{Key: s.Key, ChatID: s.ChatID, ThreadID: s.ThreadID, Silent: notice.Silent(s.Settings, e, a.now()),
		Zone: notice.TextZone(s.Settings, e)}
	if e.Kind == event.KindIncident {
		r.Cards, r.PinCards = s.Settings.Cards(), s.Settings.PinCards
	}
	return r
}
