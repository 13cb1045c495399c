package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Snapshot is the latest page the poll workflow fetched; commands answer
// from it instead of fetching the page themselves.
type Snapshot struct {
	Page statuspage.Page `bson:"page"`
	// FetchedAt is when the oldest part the snapshot holds was read.
	FetchedAt time.Time `bson:"fetched_at"`
	// Stale names the parts kept from an earlier poll because this one
	// could not read them (see withStaleParts).
	Stale []string `bson:"stale,omitempty"`
}

// LoadCheckpoint reads the legacy page's checkpoint (PageDocs has every page's).
func (s *Store) LoadCheckpoint(ctx context.Context) (event.Checkpoint, error) {
	return s.PageDocs("").LoadCheckpoint(ctx)
}

// LoadCheckpoint reads the page's checkpoint: one round trip.
func (d PageDocs) LoadCheckpoint(ctx context.Context) (event.Checkpoint, error) {
	var cp event.Checkpoint
	err := d.s.db.Collection(colCheckpoints).FindOne(ctx, d.checkpoint()).Decode(&cp)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return event.Checkpoint{}, nil
	}
	if err != nil {
		return cp, fmt.Errorf("mongodb: load checkpoint: %w", err)
	}
	return cp, nil
}

// SaveBaseline records the legacy page's baseline (PageDocs has every page's).
func (s *Store) SaveBaseline(ctx context.Context, cp *event.Checkpoint) error {
	return s.PageDocs("").SaveBaseline(ctx, cp)
}

// SaveBaseline records the first successful poll, and each component's
// status at that time as the start of its history (for /uptime).
func (d PageDocs) SaveBaseline(ctx context.Context, cp *event.Checkpoint) error {
	var hist []any
	ids := make([]string, 0, len(cp.Components))
	for id := range cp.Components {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		m := cp.Components[id]
		hist = append(hist, newHistoryEntry(d.scope(id), m.Status, m.UpdatedAt))
	}
	if err := d.s.recordHistory(ctx, hist); err != nil {
		return err
	}
	// The checkpoint last: if this fails, the next poll makes the baseline again.
	_, err := d.s.db.Collection(colCheckpoints).ReplaceOne(ctx, d.checkpoint(), cp, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: save baseline: %w", err)
	}
	return nil
}

// SaveSnapshot stores the legacy page's snapshot (PageDocs has every page's).
func (s *Store) SaveSnapshot(ctx context.Context, p *statuspage.Page, at time.Time) error {
	return s.PageDocs("").SaveSnapshot(ctx, p, at)
}

// SaveSnapshot stores the page as the latest one, part by part (see
// withStaleParts): one round trip, two when the summary failed.
func (d PageDocs) SaveSnapshot(ctx context.Context, p *statuspage.Page, at time.Time) error {
	snap, err := d.snapshotOf(ctx, p, at)
	if err != nil {
		return err
	}
	_, err = d.s.db.Collection(colSnapshots).ReplaceOne(ctx, d.snapshot(),
		snap, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: save snapshot: %w", err)
	}
	return nil
}

// LatestSnapshot returns the legacy page's snapshot (PageDocs has every
// page's), nil, nil when no poll has stored one yet.
func (s *Store) LatestSnapshot(ctx context.Context) (*Snapshot, error) {
	return s.PageDocs("").LatestSnapshot(ctx)
}

// LatestSnapshot returns nil, nil when no poll has stored one yet.
func (d PageDocs) LatestSnapshot(ctx context.Context) (*Snapshot, error) {
	var snap Snapshot
	err := d.s.db.Collection(colSnapshots).FindOne(ctx, d.snapshot()).Decode(&snap)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: load snapshot: %w", err)
	}
	return &snap, nil
}

// CommitEvents commits the legacy page's events (PageDocs has every page's).
func (s *Store) CommitEvents(ctx context.Context, evs []event.Event, prune []string, now time.Time) error {
	return s.PageDocs("").CommitEvents(ctx, evs, prune, now)
}

// CommitEvents records handed-over events in the checkpoint (one update),
// appends component changes to the history (one idempotent insert) and
// prunes marks of incidents that left the feed. The events are in the
// page's own identifiers, as the checkpoint keeps them; the history names
// the component scoped by the page.
func (d PageDocs) CommitEvents(ctx context.Context, evs []event.Event, prune []string, now time.Time) error {
	set := bson.D{}
	unset := bson.D{}
	var hist []any
	for _, e := range evs {
		if e.Kind == event.KindComponent {
			set = append(set,
				bson.E{Key: "components." + e.ComponentID + ".status", Value: e.NewStatus},
				bson.E{Key: "components." + e.ComponentID + ".updated_at", Value: e.StatusSince})
			if e.ComponentName != "" {
				set = append(set, bson.E{Key: "components." + e.ComponentID + ".name", Value: e.ComponentName},
					bson.E{Key: "components." + e.ComponentID + ".group", Value: e.ComponentGroup})
			}
			if e.Notify {
				set = append(set, bson.E{Key: "components." + e.ComponentID + ".last_event", Value: e.Key},
					bson.E{Key: "components." + e.ComponentID + ".seq", Value: e.Seq})
			}
			hist = append(hist, newHistoryEntry(d.scope(e.ComponentID), e.NewStatus, e.StatusSince))
			continue
		}
		set = append(set,
			bson.E{Key: "incidents." + e.IncidentID + ".updates." + e.UpdateID, Value: e.Version},
			bson.E{Key: "incidents." + e.IncidentID + ".last_event", Value: e.Key},
			bson.E{Key: "incidents." + e.IncidentID + ".seq", Value: e.Seq})
	}
	for _, id := range prune {
		unset = append(unset, bson.E{Key: "incidents." + id, Value: ""})
	}
	// Whatever the last poll intended is settled by this commit.
	unset = append(unset, bson.E{Key: "intent", Value: ""})
	upd := bson.D{}
	if len(set) > 0 {
		upd = append(upd, bson.E{Key: "$set", Value: dedupe(set)})
	}
	if len(unset) > 0 {
		upd = append(upd, bson.E{Key: "$unset", Value: unset})
	}
	if len(upd) > 0 {
		if _, err := d.s.db.Collection(colCheckpoints).UpdateOne(ctx, d.checkpoint(), upd, options.UpdateOne().SetUpsert(true)); err != nil {
			return fmt.Errorf("mongodb: commit checkpoint: %w", err)
		}
	}
	// Pruning is MaintenanceWorkflow's, in bounded batches: a commit stays
	// one update and one insert however much expired meanwhile.
	return d.s.recordHistory(ctx, hist)
}

// recordHistory inserts component changes; each has an ID derived from its
// content, so a retried commit or baseline inserts nothing twice.
func (s *Store) recordHistory(ctx context.Context, hist []any) error {
	if len(hist) == 0 {
		return nil
	}
	_, err := s.db.Collection(colHistory).InsertMany(ctx, hist, options.InsertMany().SetOrdered(false))
	if err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: record component history: %w", err)
	}
	return nil
}

// dedupe keeps the last value per path: a component that changed twice in
// one poll must end in its latest state, and $set refuses repeated paths.
func dedupe(d bson.D) bson.D {
	last := map[string]int{}
	for i, e := range d {
		last[e.Key] = i
	}
	out := bson.D{}
	for i, e := range d {
		if last[e.Key] == i {
			out = append(out, e)
		}
	}
	return out
}

// SaveIntent records the events a poll of the legacy page is about to hand over.
func (s *Store) SaveIntent(ctx context.Context, evs []event.Event) error {
	return s.PageDocs("").SaveIntent(ctx, evs)
}

// SaveIntent records the events a poll is about to hand over, so that a
// poll cut short between starting deliveries and committing them is settled
// by the next one.
func (d PageDocs) SaveIntent(ctx context.Context, evs []event.Event) error {
	_, err := d.s.db.Collection(colCheckpoints).UpdateOne(ctx, d.checkpoint(),
		bson.D{{Key: "$set", Value: bson.D{{Key: "intent", Value: evs}}}})
	if err != nil {
		return fmt.Errorf("mongodb: save intent: %w", err)
	}
	return nil
}

// HistoryEntry is one component status change.
type HistoryEntry struct {
	// ID is component|status|time: the same change is recorded once.
	ID          string    `bson:"_id,omitempty"`
	ComponentID string    `bson:"component_id"`
	Status      string    `bson:"status"`
	At          time.Time `bson:"at"`
}

func newHistoryEntry(componentID, status string, at time.Time) HistoryEntry {
	return HistoryEntry{ID: componentID + "|" + status + "|" + at.UTC().Format(time.RFC3339Nano), ComponentID: componentID, Status: status, At: at}
}

// ComponentHistory returns the recorded statuses (the baseline's, then every
// change) at or after the given time, oldest first.
func (s *Store) ComponentHistory(ctx context.Context, since time.Time) ([]HistoryEntry, error) {
	out, err := findAll[HistoryEntry](ctx, s.db.Collection(colHistory), "read component history", bson.D{{Key: "at", Value: bson.D{{Key: "$gte", Value: since}}}},
		options.Find().SetSort(bson.D{{Key: "at", Value: 1}}))
	if err != nil {
		return nil, err
	}
	return out, nil
}

type messageDoc struct {
	ID   string `bson:"_id"`
	Text string `bson:"text"`
	// Event is what the text was rendered from, so that it can be rendered
	// again in a chat's time zone; nil for texts stored before zones applied
	// to notices, and for texts that are not one event's notice.
	Event *event.Event `bson:"event,omitempty"`
	At    time.Time    `bson:"at"`
}

// SaveMessage stores an event's formatted notification.
func (s *Store) SaveMessage(ctx context.Context, eventKey, text string, at time.Time) error {
	return s.saveMessage(ctx, messageDoc{ID: eventKey, Text: text, At: at})
}

// SaveNotice stores an event's notification as rendered in UTC and the
// event itself, to render it again in other zones.
func (s *Store) SaveNotice(ctx context.Context, e event.Event, text string, at time.Time) error {
	return s.saveMessage(ctx, messageDoc{ID: e.Key, Text: text, Event: &e, At: at})
}

func (s *Store) saveMessage(ctx context.Context, m messageDoc) error {
	_, err := s.db.Collection(colMessages).ReplaceOne(ctx, bson.D{{Key: "_id", Value: m.ID}}, m, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: save message: %w", err)
	}
	return nil
}

// Message returns an event's formatted notification.
func (s *Store) Message(ctx context.Context, eventKey string) (string, error) {
	m, err := s.Notice(ctx, eventKey)
	return m.Text, err
}

// StoredNotice is an event's notification as stored: the text in UTC, and
// the event when it was saved with SaveNotice.
type StoredNotice struct {
	Text  string
	Event *event.Event
}

// Notice returns an event's notification and, when stored, its event.
func (s *Store) Notice(ctx context.Context, eventKey string) (StoredNotice, error) {
	var m messageDoc
	if err := s.db.Collection(colMessages).FindOne(ctx, bson.D{{Key: "_id", Value: eventKey}}).Decode(&m); err != nil {
		return StoredNotice{}, fmt.Errorf("mongodb: read message: %w", err)
	}
	return StoredNotice{Text: m.Text, Event: m.Event}, nil
}

// ReplaceCheckpoint stores the legacy page's checkpoint as it is.
func (s *Store) ReplaceCheckpoint(ctx context.Context, cp event.Checkpoint) error {
	return s.PageDocs("").ReplaceCheckpoint(ctx, cp)
}

// ReplaceCheckpoint stores the checkpoint as it is (component IDs that
// changed on the page).
func (d PageDocs) ReplaceCheckpoint(ctx context.Context, cp event.Checkpoint) error {
	_, err := d.s.db.Collection(colCheckpoints).ReplaceOne(ctx, d.checkpoint(), cp, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: replace checkpoint: %w", err)
	}
	return nil
}

// BlindSpot is a part of the status page that cannot be read.
type BlindSpot struct {
	Part  string    `json:"part"`
	Since time.Time `json:"since"`
	Err   string    `json:"error"`
}

// maxErrLen bounds an error kept in MongoDB or shown to operators.
const maxErrLen = 300

// CapError bounds an error text.
func CapError(s string) string {
	if r := []rune(s); len(r) > maxErrLen {
		return string(r[:maxErrLen-1]) + "…"
	}
	return s
}

// SaveFailingParts records which parts of the legacy page fail.
func (s *Store) SaveFailingParts(ctx context.Context, failing map[string]BlindSpot) error {
	return s.PageDocs("").SaveFailingParts(ctx, failing)
}

// SaveFailingParts records which parts of the page fail, and since when.
func (d PageDocs) SaveFailingParts(ctx context.Context, failing map[string]BlindSpot) error {
	since := bson.D{}
	errs := bson.D{}
	for part, b := range failing {
		since = append(since, bson.E{Key: part, Value: b.Since})
		errs = append(errs, bson.E{Key: part, Value: b.Err})
	}
	upd := bson.D{{Key: "$set", Value: bson.D{{Key: "failing", Value: since}, {Key: "failing_errors", Value: errs}}}}
	if len(failing) == 0 {
		upd = bson.D{{Key: "$unset", Value: bson.D{{Key: "failing", Value: ""}, {Key: "failing_errors", Value: ""}}}}
	}
	if _, err := d.s.db.Collection(colCheckpoints).UpdateOne(ctx, d.checkpoint(), upd, options.UpdateOne().SetUpsert(true)); err != nil {
		return fmt.Errorf("mongodb: save failing parts: %w", err)
	}
	return nil
}

// FailingParts returns the parts of the legacy page that fail, oldest first.
func (s *Store) FailingParts(ctx context.Context) ([]BlindSpot, error) {
	return s.PageDocs("").FailingParts(ctx)
}

// FailingParts returns the parts of the page that fail, oldest first.
func (d PageDocs) FailingParts(ctx context.Context) ([]BlindSpot, error) {
	var doc struct {
		Failing map[string]time.Time `bson:"failing"`
		Errors  map[string]string    `bson:"failing_errors"`
	}
	err := d.s.db.Collection(colCheckpoints).FindOne(ctx, d.checkpoint(),
		options.FindOne().SetProjection(bson.D{{Key: "failing", Value: 1}, {Key: "failing_errors", Value: 1}})).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: read failing parts: %w", err)
	}
	var out []BlindSpot
	for part, since := range doc.Failing {
		out = append(out, BlindSpot{Part: part, Since: since, Err: doc.Errors[part]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out, nil
}
