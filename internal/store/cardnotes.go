package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colCardNotes holds the component changes told on a chat's incident card
// instead of in messages of their own: one document per (incident, chat,
// component event), only ever inserted, so that two changes folding into
// one card at once both stay (FerretDB loses concurrent $push to one
// document).
const colCardNotes = "card_notes"

// CardNote is a change of one of the incident's components, told on the
// card.
type CardNote struct {
	ID        string    `bson:"_id" json:"-"`
	Incident  string    `bson:"incident" json:"incident"`
	Sub       string    `bson:"sub" json:"sub"`
	Event     string    `bson:"event" json:"event"`
	Component string    `bson:"component" json:"component"`
	Status    string    `bson:"status" json:"status"`
	At        time.Time `bson:"at" json:"at"`
}

// MaxCardNotes bounds the notes a card shows: the newest.
const MaxCardNotes = 20

// AddCardNote records a note once (a repeated send adds nothing).
func (s *Store) AddCardNote(ctx context.Context, n CardNote) error {
	n.ID = n.Incident + "|" + n.Sub + "|" + n.Event
	_, err := s.db.Collection(colCardNotes).ReplaceOne(ctx, bson.D{{Key: "_id", Value: n.ID}}, n, options.Replace().SetUpsert(true))
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("mongodb: record a card note: %w", err)
	}
	return nil
}

// CardNotes returns the notes of an incident's cards for some chats, the
// newest MaxCardNotes of each, oldest first: one round trip for a page.
func (s *Store) CardNotes(ctx context.Context, incident string, subs []string) (map[string][]CardNote, error) {
	out := map[string][]CardNote{}
	if incident == "" || len(subs) == 0 {
		return out, nil
	}
	rows, err := findAll[CardNote](ctx, s.db.Collection(colCardNotes), "read card notes",
		bson.D{{Key: "incident", Value: incident}, {Key: "sub", Value: bson.D{{Key: "$in", Value: subs}}}},
		options.Find().SetSort(bson.D{{Key: "at", Value: -1}}).SetLimit(int64(MaxCardNotes*len(subs)*4)))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rows, func(a, b CardNote) int { return a.At.Compare(b.At) })
	for _, r := range rows {
		out[r.Sub] = append(out[r.Sub], r)
	}
	for k, v := range out {
		if len(v) > MaxCardNotes {
			out[k] = v[len(v)-MaxCardNotes:]
		}
	}
	return out, nil
}
