package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colCards holds the incident card of each (incident, subscriber): the
// message that is edited as the incident moves on.
const colCards = "incident_cards"

// IncidentCard is where a subscriber's card for an incident is.
type IncidentCard struct {
	ID        string `bson:"_id" json:"-"`
	Incident  string `bson:"incident" json:"incident"`
	Sub       string `bson:"sub" json:"sub"`
	MessageID int    `bson:"message_id" json:"message_id"`
	// Updates are the update IDs the card has shown: an event for one of
	// them is an edit of its text.
	Updates []string  `bson:"updates,omitempty" json:"updates,omitempty"`
	Pinned  bool      `bson:"pinned,omitempty" json:"pinned,omitempty"`
	At      time.Time `bson:"at" json:"at"`
	// Event is the incident event whose texts the card shows: a change of
	// one of the incident's components renders the card again from it.
	Event   string  `bson:"event,omitempty" json:"event,omitempty"`
	Buckets Buckets `bson:",inline" json:"-"`
}

// Shows reports whether the card has shown the update already.
func (c IncidentCard) Shows(updateID string) bool { return slices.Contains(c.Updates, updateID) }

func cardID(incident, sub string) string { return incident + "|" + sub }

// Cards returns the cards of an incident for some subscribers: one round
// trip for a page.
func (s *Store) Cards(ctx context.Context, incident string, subKeys []string) (map[string]IncidentCard, error) {
	out := map[string]IncidentCard{}
	if len(subKeys) == 0 {
		return out, nil
	}
	// By bucket (buckets.go), not by an $in on _id: FerretDB would decode
	// every card.
	rows, err := findByKeys[IncidentCard](ctx, s.db.Collection(colCards), "read incident cards", bson.D{{Key: "incident", Value: incident}}, "sub", subKeys)
	if err != nil {
		return nil, err
	}
	for _, c := range rows {
		out[c.Sub] = c
	}
	return out, nil
}

// SaveCard stores where a subscriber's card is (replacing a deleted one).
func (s *Store) SaveCard(ctx context.Context, c IncidentCard) error {
	c.ID, c.Buckets = cardID(c.Incident, c.Sub), BucketsOf(c.Sub)
	_, err := s.db.Collection(colCards).ReplaceOne(ctx, bson.D{{Key: "_id", Value: c.ID}}, c, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: save incident card: %w", err)
	}
	return nil
}
