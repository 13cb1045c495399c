package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// colPages holds one document per page the worker has polled (_id: its
// name) and the record of which page is legacy (_id: legacyRecordID).
const colPages = "pages"

// legacyRecordID cannot be a page's name ('#' is not allowed in one).
const legacyRecordID = "#legacy"

// PageDocs are one page's checkpoint and snapshot. The legacy page (""),
// the one page a deployment watched before STATUS_PAGES, keeps today's
// documents (checkpoint "page", snapshot "latest"); every other page has
// its own ("page/<name>", "latest/<name>") in the same collections.
type PageDocs struct {
	s *Store
	// page is the page's event.Event.Page: "" for the legacy page.
	page string
}

// PageDocs returns the documents of the page an event.Event.Page names
// ("" for the legacy page; pages.Offer.EventPage turns a name into it).
func (s *Store) PageDocs(eventPage string) PageDocs { return PageDocs{s: s, page: eventPage} }

func (d PageDocs) id(legacy string) string {
	if d.page == "" {
		return legacy
	}
	return legacy + "/" + d.page
}

func (d PageDocs) checkpoint() bson.D { return bson.D{{Key: "_id", Value: d.id(checkpointID)}} }
func (d PageDocs) snapshot() bson.D   { return bson.D{{Key: "_id", Value: d.id(snapshotID)}} }

// scope names one of the page's identifiers outside its checkpoint (the
// component history), as events name it (pages.Scope).
func (d PageDocs) scope(id string) string { return pages.Scope(d.page, id) }

// DropCheckpoint forgets what the page's polls handed over, so that a page
// listed again later baselines afresh instead of announcing what changed
// while it was not watched.
func (d PageDocs) DropCheckpoint(ctx context.Context) error {
	if _, err := d.s.db.Collection(colCheckpoints).DeleteOne(ctx, d.checkpoint()); err != nil {
		return fmt.Errorf("mongodb: drop checkpoint: %w", err)
	}
	return nil
}

type legacyRecord struct {
	ID   string    `bson:"_id"`
	Page string    `bson:"page"`
	At   time.Time `bson:"at"`
}

type pageDoc struct {
	ID       string    `bson:"_id"`
	URL      string    `bson:"url"`
	Provider string    `bson:"provider"`
	AddedAt  time.Time `bson:"added_at"`
}

// Offer is the pages on offer (list, from cfg.Pages, the default first)
// and which of them is legacy: the one page whose documents, keys and IDs
// are today's. The first time more than one page is listed, the page whose
// URL is the one the legacy snapshot gives for its page is recorded as
// legacy (else the first page); from then on the record decides, whatever
// the list's order. One page and no record: that page is legacy, as
// before STATUS_PAGES, and nothing is recorded yet. Idempotent, and safe
// when the bot and the worker call it at once: the record is inserted, and
// on a duplicate key read back. The list's pages are recorded too (what
// RemovedPages compares with).
func (s *Store) Offer(ctx context.Context, list []pages.Page, now time.Time) (pages.Offer, error) {
	if len(list) == 0 {
		return pages.Offer{}, errors.New("no status page is listed")
	}
	if err := s.recordPages(ctx, list, now); err != nil {
		return pages.Offer{}, err
	}
	rec, err := s.legacyRecord(ctx)
	if err != nil {
		return pages.Offer{}, err
	}
	if rec != nil {
		return pages.Offer{List: list, Legacy: rec.Page}, nil
	}
	if len(list) == 1 {
		return pages.SingleOffer(list[0]), nil
	}
	snap, err := s.LatestSnapshot(ctx)
	if err != nil {
		return pages.Offer{}, err
	}
	legacy := list[0].Name
	if snap != nil {
		for _, p := range list {
			if pages.SameURL(p.URL, snap.Page.URL) {
				legacy = p.Name
				break
			}
		}
	}
	_, err = s.db.Collection(colPages).InsertOne(ctx, legacyRecord{ID: legacyRecordID, Page: legacy, At: now})
	if mongo.IsDuplicateKeyError(err) {
		// Another process decided first: its record holds.
		if rec, err = s.legacyRecord(ctx); err == nil && rec == nil {
			err = errors.New("the legacy page's record vanished")
		}
		if err != nil {
			return pages.Offer{}, err
		}
		legacy = rec.Page
	} else if err != nil {
		return pages.Offer{}, fmt.Errorf("mongodb: record the legacy page: %w", err)
	}
	return pages.Offer{List: list, Legacy: legacy}, nil
}

func (s *Store) legacyRecord(ctx context.Context) (*legacyRecord, error) {
	return findOne[legacyRecord](ctx, s.db.Collection(colPages), "read the legacy page's record", bson.D{{Key: "_id", Value: legacyRecordID}})
}

// recordPages upserts one document per listed page, keeping when it was
// first listed.
func (s *Store) recordPages(ctx context.Context, list []pages.Page, now time.Time) error {
	models := make([]mongo.WriteModel, 0, len(list))
	for _, p := range list {
		models = append(models, mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: p.Name}}).SetUpsert(true).
			SetUpdate(bson.D{
				{Key: "$set", Value: bson.D{{Key: "url", Value: p.URL}, {Key: "provider", Value: p.Provider}}},
				{Key: "$setOnInsert", Value: bson.D{{Key: "added_at", Value: now}}},
			}))
	}
	// Two processes upserting one new page at once: one insert loses with a
	// duplicate key, and the other's document is the same page.
	if _, err := s.db.Collection(colPages).BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("mongodb: record the pages: %w", err)
	}
	return nil
}

// RemovedPages names the pages recorded before (by Offer) that the list no
// longer has.
func (s *Store) RemovedPages(ctx context.Context, list []pages.Page) ([]string, error) {
	names := []string{legacyRecordID}
	for _, p := range list {
		names = append(names, p.Name)
	}
	docs, err := findAll[pageDoc](ctx, s.db.Collection(colPages), "read the pages",
		bson.D{{Key: "_id", Value: bson.D{{Key: "$nin", Value: names}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out, nil
}

// ForgetPage drops a page no longer listed: its checkpoint (a page listed
// again later baselines afresh) and its record. eventPage is its
// event.Event.Page ("" if it was the legacy page). Its snapshot and
// history age out; deliveries already running finish.
func (s *Store) ForgetPage(ctx context.Context, name, eventPage string) error {
	if err := s.PageDocs(eventPage).DropCheckpoint(ctx); err != nil {
		return err
	}
	if _, err := s.db.Collection(colPages).DeleteOne(ctx, bson.D{{Key: "_id", Value: name}}); err != nil {
		return fmt.Errorf("mongodb: forget page %s: %w", name, err)
	}
	return nil
}
