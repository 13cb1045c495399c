package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
)

// Each subscription carries its effective reminder lead, in minutes, as
// reminder_lead (indexed): what its notice types and settings make of it,
// 0 when it takes no reminders. A reminder then reads only the chats it
// is for, and planning one reads one document, however many chats there
// are. Every write of kinds or settings keeps it; start-up fills it in on
// subscriptions written before it existed.
const fieldReminderLead = "reminder_lead"

// ReminderLeadOf is how many minutes before a maintenance starts a chat
// is reminded: 0 when it turned reminders off or hears no maintenance
// notices (no kinds chosen is the default kinds, maintenance among them).
func ReminderLeadOf(kinds []event.Kind, s Settings) int {
	if len(kinds) == 0 {
		kinds = event.DefaultKinds
	}
	if !slices.Contains(kinds, event.KindMaintenance) {
		return 0
	}
	return int(s.ReminderLead() / time.Minute)
}

// reminderChats selects the subscriptions whose lead (minutes, as stored)
// lies in [lo, hi) and whose component filter lets a maintenance of these
// components through.
func reminderChats(eventPage string, lo, hi float64, components []string) bson.D {
	f := append(followersOf(eventPage), bson.E{Key: fieldReminderLead, Value: bson.D{{Key: "$gte", Value: max(lo, 1)}, {Key: "$lt", Value: hi}}})
	return append(f, componentsPass(components)...)
}

// componentsPass: no component filter, or one naming one of the
// components (a page's maintenance names its page's scoped IDs, which only
// that page's filter entries hold). A maintenance naming no component
// concerns everyone (as event.Accepts has it). A chat of several pages
// passes too: its filter may hold no entry of this page (pages.FilterOf),
// which a query cannot tell; notice.Decide judges it, so such a chat may
// have a reminder planned for it that it then does not get.
func componentsPass(components []string) bson.D {
	if len(components) == 0 {
		return nil
	}
	return bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "components.0", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "components", Value: bson.D{{Key: "$in", Value: components}}}},
		bson.D{{Key: fieldPages + ".1", Value: bson.D{{Key: "$exists", Value: true}}}},
	}}}
}

// reminderIndex serves every reminder query (hinted: MongoDB uses it
// whatever its planner would guess; FerretDB v1 ignores hints): a page's
// followers by lead.
const reminderIndex = "pages_1_reminder_lead_1__id_1"

// ListReminderSubscribers pages, in key order like ListSubscribers, the
// subscribers a reminder of the event page is for: its followers with lead in [r.Lead, r.Until) and a component
// filter the maintenance passes. A page first finds the leads present in
// that range (one indexed read each), then reads the chats with one of
// them in key order: on MongoDB one index scan per lead, merged, so a page
// costs its own chats, and a reminder the chats that want it, not every
// chat.
func (s *Store) ListReminderSubscribers(ctx context.Context, eventPage string, r event.Reminder, components []string, after string, limit int) ([]Subscriber, string, error) {
	leads, err := s.leadsIn(ctx, eventPage, r.Lead.Minutes(), r.Until.Minutes(), components)
	if err != nil || len(leads) == 0 {
		return nil, "", err
	}
	filter := append(followersOf(eventPage), bson.E{Key: fieldReminderLead, Value: bson.D{{Key: "$in", Value: leads}}})
	filter = append(filter, componentsPass(components)...)
	return s.pageSubscribers(ctx, "list reminder subscribers", filter, after, limit, options.Find().SetHint(reminderIndex))
}

// leadsIn lists, longest first, the leads in [lo, hi) of the chats whose
// filter the components pass: as points rather than a range they let the
// chats be read in key order without sorting them all. (Distinct would do
// in one read, but FerretDB v1 refuses it under a deadline.)
func (s *Store) leadsIn(ctx context.Context, eventPage string, lo, hi float64, components []string) ([]int, error) {
	var leads []int
	for {
		lead, err := s.longestLead(ctx, eventPage, lo, hi, components)
		if err != nil || lead == 0 {
			return leads, err
		}
		leads = append(leads, lead)
		hi = float64(lead)
	}
}

// NextReminderLead is the longest lead shorter than below among the chats
// following the event page that would get a reminder of a maintenance of
// these components (0: none): the next reminder of one starting below from
// now is due that lead before its start. One indexed read.
func (s *Store) NextReminderLead(ctx context.Context, eventPage string, below time.Duration, components []string) (time.Duration, error) {
	lead, err := s.longestLead(ctx, eventPage, 1, below.Minutes(), components)
	return time.Duration(lead) * time.Minute, err
}

// longestLead is the longest lead in [lo, hi) of the chats whose filter
// the components pass; 0: none.
func (s *Store) longestLead(ctx context.Context, eventPage string, lo, hi float64, components []string) (int, error) {
	var doc struct {
		Lead int `bson:"reminder_lead"`
	}
	err := s.subs().FindOne(ctx, reminderChats(eventPage, lo, hi, components),
		options.FindOne().SetSort(bson.D{{Key: fieldReminderLead, Value: -1}}).SetHint(reminderIndex).
			SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: fieldReminderLead, Value: 1}})).Decode(&doc)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("mongodb: reminder lead: %w", err)
	}
	return doc.Lead, nil
}

// leadChange is a settings change that may move the reminder lead.
func leadChange(kv ...any) SettingChange {
	c := change(kv...)
	c.lead = true
	return c
}

// updateOf is the update a settings change makes. One that may move the
// reminder lead also removes the stored lead, so a crash before
// keepReminderLead writes the new one leaves it missing (no reminders
// meanwhile), and start-up fills it in, never a lead the chat left.
func (c SettingChange) updateOf() bson.D {
	return withLeadCleared(bson.D{{Key: "$set", Value: c.fields}}, c.lead)
}

func withLeadCleared(upd bson.D, clear bool) bson.D {
	if !clear {
		return upd
	}
	return append(upd, bson.E{Key: "$unset", Value: bson.D{{Key: fieldReminderLead, Value: ""}}})
}

// changeLeadInputs applies an update of what the lead derives from (the
// notice types) and stores the lead it makes.
func (s *Store) changeLeadInputs(ctx context.Context, key string, upd bson.D) error {
	var sub Subscriber
	err := s.subs().FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: key}}, withLeadCleared(upd, true),
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&sub)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return ErrNotSubscribed
	}
	if err != nil {
		return fmt.Errorf("mongodb: update subscription: %w", err)
	}
	return s.keepReminderLead(ctx, &sub)
}

// keepReminderLead stores the lead the subscription's kinds and settings,
// as just written, make. One chat's changes come one at a time (the bot
// handles a chat's updates in order), so the last write is the last
// change's.
func (s *Store) keepReminderLead(ctx context.Context, sub *Subscriber) error {
	lead := ReminderLeadOf(sub.Kinds, sub.Settings)
	_, err := s.subs().UpdateOne(ctx, bson.D{{Key: "_id", Value: sub.Key}},
		bson.D{{Key: "$set", Value: bson.D{{Key: fieldReminderLead, Value: lead}}}})
	if err != nil {
		return fmt.Errorf("mongodb: store the reminder lead: %w", err)
	}
	sub.LeadMinutes = lead
	return nil
}

// fillReminderLeads stores the lead of every subscription that has none
// (written before leads were stored, or by a change cut short): run at
// start-up, idempotent, in batches, plain updates only (FerretDB v1). A
// lead stored meanwhile by a settings change is left as it is. (FerretDB
// writes a few hundred documents a second: its first start-up after this
// change takes about 7 s per 1,000 subscriptions; MongoDB, far less.)
func (s *Store) fillReminderLeads(ctx context.Context) error {
	const batch = 1000
	missing := bson.D{{Key: fieldReminderLead, Value: bson.D{{Key: "$exists", Value: false}}}}
	for {
		subs, err := findAll[Subscriber](ctx, s.subs(), "find subscriptions without a reminder lead", missing,
			options.Find().SetLimit(batch).SetProjection(bson.D{{Key: "kinds", Value: 1}, {Key: "settings", Value: 1}}))
		if err != nil {
			return err
		}
		if len(subs) == 0 {
			return nil
		}
		// One update per lead, not per chat: a bulk of single updates crawls
		// on FerretDB v1.
		byLead := map[int][]string{}
		for _, sub := range subs {
			lead := ReminderLeadOf(sub.Kinds, sub.Settings)
			byLead[lead] = append(byLead[lead], sub.Key)
		}
		for lead, keys := range byLead {
			filter := append(bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}}, missing...)
			if _, err := s.subs().UpdateMany(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: fieldReminderLead, Value: lead}}}}); err != nil {
				return fmt.Errorf("mongodb: fill in reminder leads: %w", err)
			}
		}
		if len(subs) < batch {
			return nil
		}
	}
}
