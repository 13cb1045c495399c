package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
)

// colFates holds what became of each notice for each chat: sent (when, how,
// silent or not), withheld (by which setting), waiting (for what), failed.
// Versions per (event, chat), written by the delivery as it goes, read
// by /why: the newest few of a chat, by the (sub, at) index. Only
// inserts: nothing FerretDB gets wrong or scans for.
const colFates = "notice_fates"

// FateRetention is how long /why can look back.
const FateRetention = 7 * 24 * time.Hour

// Outcomes of a notice for a chat.
const (
	FateSent     = "sent"
	FateWithheld = "withheld"
	FateWaiting  = "waiting"
	FateFailed   = "failed"
	// FateHeld: held for the chat's morning summary (until RetryAt).
	FateHeld = "held"
)

// How a sent notice reached the chat.
const (
	AsMessage  = "message"
	AsCard     = "card"
	AsReply    = "reply"     // a later update, under the incident's card
	AsCardEdit = "card-edit" // a component change told on an incident's card
	AsHeld     = "held"      // held for the morning summary: not sent
	AsSummary  = "summary"   // told in the morning summary
	// AsFolded: told in the message of an earlier change in the chat (a
	// burst of component changes is one message in cards mode).
	AsFolded = "folded"
	// AsTogether: told in one message with an earlier step of its story,
	// whose send to the chat was being retried when this one came.
	AsTogether = "together"
	// AsHandedOver: told in one message with an earlier step of its
	// story whose delivery was still reaching the chats when it came
	// (activities/handover.go).
	AsHandedOver = "handed-over"
)

// Fate is what became of one notice for one chat.
type Fate struct {
	ID    string `bson:"_id"` // event|sub, and |<at> but for a withheld one
	Sub   string `bson:"sub"`
	Event string `bson:"event"`
	// Summary says what the notice is about, on one line.
	Summary string `bson:"summary"`
	Outcome string `bson:"outcome"`
	// Why: for a withheld notice the setting that kept it back (notice.Why);
	// for one waiting or failed, what Telegram said.
	Why string `bson:"why,omitempty"`
	// Reason is Why as a catalog message, for /why in the chat's
	// language (Why keeps its English for older readers); nil in records
	// from before it, whose /why quotes Why.
	Reason *Reason `bson:"reason,omitempty"`
	As     string  `bson:"as,omitempty"`
	// Silent: sent without sound, by the severity threshold (a later step
	// under it) or by quiet hours (Quiet).
	Silent bool `bson:"silent,omitempty"`
	Quiet  bool `bson:"quiet,omitempty"`
	// NoNews: silent because the step changed no status or impact.
	NoNews bool `bson:"no_news,omitempty"`
	// Together names the earlier steps the notice told too.
	Together string `bson:"together,omitempty"`
	// Earlier and Later are Together in parts (the earlier steps the
	// notice's message tells, the later ones its send told too), for /why
	// in the chat's language; nil in records from before them.
	Earlier *FateSteps `bson:"earlier,omitempty"`
	Later   *FateSteps `bson:"later,omitempty"`
	RetryAt time.Time  `bson:"retry_at,omitempty"`
	At      time.Time  `bson:"at"`
}

// Reason is why a notice waits or failed as a message of the catalogs
// ("fate."+Code) and its placeholders: Telegram's own words in Args stay
// as Telegram wrote them.
type Reason struct {
	Code string `bson:"code"`
	// N is the count of a plural message (0: none).
	N    int               `bson:"n,omitempty"`
	Args map[string]string `bson:"args,omitempty"`
}

// FateSteps is a few steps of a story a notice told too: how many, the first
// few of them, and whether more were left unnamed.
type FateSteps struct {
	Count int        `bson:"count"`
	Steps []FateStep `bson:"steps,omitempty"`
	More  bool       `bson:"more,omitempty"`
}

// FateStep is one step told: its status (statuspage's) and time.
type FateStep struct {
	Status string    `bson:"status"`
	At     time.Time `bson:"at"`
}

func fateID(event, sub string) string { return event + "|" + sub }

// RecordFates writes what became of notices: a sent, waiting or failed
// notice is a new version of what is known of it (the newest counts); a
// withheld one counts only where nothing else is known (a page read again
// never hides a send). Inserts only, in one round trip: FerretDB scans
// the collection for every update, even by _id, and this is written for
// every notice sent.
func (s *Store) RecordFates(ctx context.Context, fates []Fate) error {
	if len(fates) == 0 {
		return nil
	}
	docs := make([]any, 0, len(fates))
	for _, f := range fates {
		docs = append(docs, fateDoc(f))
	}
	if _, err := s.db.Collection(colFates).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: record what became of notices: %w", err)
	}
	return nil
}

// RecordFate is RecordFates for one send's fate, written together with
// the fates other sends of this process write meanwhile (groupinsert.go):
// a batch of sends pays a round trip or two for its fates, not one each.
func (s *Store) RecordFate(ctx context.Context, f Fate) error {
	if err := s.fateInserts.insert(ctx, s.db.Collection(colFates), fateDoc(f)); err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("mongodb: record what became of a notice: %w", err)
	}
	return nil
}

// fateDoc is f as stored: a withheld notice once, any other a new version.
func fateDoc(f Fate) Fate {
	f.ID = fateID(f.Event, f.Sub)
	if f.Outcome != FateWithheld {
		f.ID += "|" + strconv.FormatInt(f.At.UnixNano(), 10)
	}
	return f
}

// LastFates returns what became of a chat's newest n notices, newest first.
func (s *Store) LastFates(ctx context.Context, sub string, n int) ([]Fate, error) {
	// A notice has a few versions: read enough of them for n notices.
	rows, err := findAll[Fate](ctx, s.db.Collection(colFates), "read what became of a chat's notices",
		bson.D{{Key: "sub", Value: sub}}, options.Find().SetSort(bson.D{{Key: "at", Value: -1}}).SetLimit(int64(min(8*n, 400))))
	if err != nil {
		return nil, err
	}
	return newestFates(rows, n), nil
}

// newestFates is what became of the first n notices of rows (newest
// first, several versions of a notice among them): the newest version of
// each that is not a withheld one, or its withheld one.
func newestFates(rows []Fate, n int) []Fate {
	var out []Fate
	at := map[string]int{} // event: its index in out
	for _, f := range rows {
		i, seen := at[f.Event]
		switch {
		case !seen:
			at[f.Event] = len(out)
			out = append(out, f)
		case out[i].Outcome == FateWithheld && f.Outcome != FateWithheld:
			out[i] = f
		}
	}
	slices.SortStableFunc(out, func(a, b Fate) int { return b.At.Compare(a.At) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Summaries returns what the stored notices of some events are about, on
// one line (event.Event.Summary): one round trip for /why's few notices.
func (s *Store) Summaries(ctx context.Context, events []string) (map[string]string, error) {
	stored, err := s.NoticeEvents(ctx, events)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(stored))
	for id, e := range stored {
		out[id] = e.Summary()
	}
	return out, nil
}

// NoticeEvents returns the stored events of some notices, for /why to say
// what each is about in the chat's language: one round trip.
func (s *Store) NoticeEvents(ctx context.Context, events []string) (map[string]event.Event, error) {
	out := map[string]event.Event{}
	if len(events) == 0 {
		return out, nil
	}
	rows, err := findAll[messageDoc](ctx, s.db.Collection(colMessages), "read notices",
		bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: events}}}})
	if err != nil {
		return nil, err
	}
	for _, m := range rows {
		if m.Event != nil {
			out[m.ID] = *m.Event
		}
	}
	return out, nil
}
