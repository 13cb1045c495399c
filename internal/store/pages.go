package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
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

// DropSnapshot forgets what the page looked like (a name pointed at
// another URL: /status must not show the old page as the new one's).
func (d PageDocs) DropSnapshot(ctx context.Context) error {
	if _, err := d.s.db.Collection(colSnapshots).DeleteOne(ctx, d.snapshot()); err != nil {
		return fmt.Errorf("mongodb: drop snapshot: %w", err)
	}
	return nil
}

type legacyRecord struct {
	ID string `bson:"_id"`
	// Page is the ID of the legacy page's record (its first name);
	// legacyGone once the legacy page was removed.
	Page string    `bson:"page"`
	At   time.Time `bson:"at"`
}

// legacyGone is the legacy record's page once the legacy page is removed:
// no page has the legacy documents any more, and a page listed later under
// its old name is another page.
const legacyGone = "#gone"

// pageDoc is a page's record (pages.Record): _id is its ID, given once.
type pageDoc struct {
	ID string `bson:"_id"`
	// Name is its name as last listed; empty in records made before
	// renames were possible, whose name is their ID.
	Name     string    `bson:"name,omitempty"`
	URL      string    `bson:"url"`
	Provider string    `bson:"provider"`
	AddedAt  time.Time `bson:"added_at"`
}

func (d pageDoc) record() pages.Record {
	name := d.Name
	if name == "" {
		name = d.ID
	}
	return pages.Record{ID: d.ID, Name: name, URL: d.URL}
}

// PageChanges is what start-up found changed in the list of pages, against
// the records (pages.Resolve), each change with the page's key
// (event.Event.Page).
type PageChanges struct {
	pages.Resolution
	// Keys maps record IDs to keys ("" for the legacy page).
	Keys map[string]string
	// LegacyFound says how the legacy page was decided when it was first
	// recorded by this call ("" when it was recorded before).
	LegacyFound string
	// List is how the list compares with the recorded one; a Stale list
	// wrote nothing (pagelist.go).
	List ListState
}

// KeyOf is the key of a record's ID.
func (c PageChanges) KeyOf(id string) string {
	if k, ok := c.Keys[id]; ok {
		return k
	}
	return id
}

// ErrLegacyNotListed refuses an upgrade that would lose the page the
// deployment watched.
var ErrLegacyNotListed = errors.New("STATUS_PAGES does not list the page this deployment watched")

// Offer is the pages on offer (list, from cfg.Pages, the default first),
// each with its key (pages.Offer.Keys), and which of them is legacy: the
// one page whose documents, keys and IDs are today's. See ResolvePages.
func (s *Store) Offer(ctx context.Context, list []pages.Page, now time.Time) (pages.Offer, error) {
	o, _, err := s.ResolvePages(ctx, list, now)
	return o, err
}

// ResolvePages matches the list with the pages recorded before
// (pages.Resolve: a page is its configured URL; its name is a label) and
// records the list: a renamed page keeps its record and key; a name
// pointed at another URL keeps its key and followers but loses its
// checkpoint and snapshot (its first poll baselines silently); a new page
// gets a record. Removed pages are only reported (EnsureSchedules forgets
// them). The first time, the legacy page is recorded: the listed page with
// the URL a one-page run recorded as configured (or, from a database of
// before, the URL the legacy snapshot's page gives for itself); a list
// without it is refused (ErrLegacyNotListed) rather than guessed; a
// database with nothing recorded takes the first page. Idempotent, and safe
// when the bot and the worker call it at once.
func (s *Store) ResolvePages(ctx context.Context, list []pages.Page, now time.Time) (pages.Offer, PageChanges, error) {
	if len(list) == 0 {
		return pages.Offer{}, PageChanges{}, errors.New("no status page is listed")
	}
	docs, err := findAll[pageDoc](ctx, s.db.Collection(colPages), "read the pages", bson.D{},
		options.Find().SetSort(bson.D{{Key: "added_at", Value: -1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return pages.Offer{}, PageChanges{}, err
	}
	recs := make([]pages.Record, 0, len(docs))
	for _, d := range docs {
		if !strings.HasPrefix(d.ID, "#") { // the legacy record and the list's
			recs = append(recs, d.record())
		}
	}
	rec, err := s.legacyRecord(ctx)
	if err != nil {
		return pages.Offer{}, PageChanges{}, err
	}
	var ch PageChanges
	legacyID, legacyName := "", ""
	if rec != nil {
		legacyID = rec.Page
	} else {
		var how string
		if legacyID, legacyName, how, recs, err = s.findLegacy(ctx, list, recs); err != nil {
			return pages.Offer{}, PageChanges{}, err
		}
		ch.LegacyFound = how
	}
	ch.Resolution = pages.Resolve(list, recs)
	if legacyID == "" {
		// Found by its listed name: now its ID.
		legacyID = ch.IDs[legacyName]
	}
	// One page and no record: that page is legacy and nothing is recorded,
	// so that a list made later still finds the page by the URL it was
	// configured with (findLegacy), or is refused.
	if rec == nil && len(list) > 1 {
		_, err = s.db.Collection(colPages).InsertOne(ctx, legacyRecord{ID: legacyRecordID, Page: legacyID, At: now})
		if mongo.IsDuplicateKeyError(err) {
			// Another process decided first: its record holds.
			return s.ResolvePages(ctx, list, now)
		} else if err != nil {
			return pages.Offer{}, PageChanges{}, fmt.Errorf("mongodb: record the legacy page: %w", err)
		}
	}
	if ch.List, err = s.recordList(ctx, list, now); err != nil {
		return pages.Offer{}, PageChanges{}, err
	}
	ch.Keys = map[string]string{}
	for _, r := range recs {
		ch.Keys[r.ID] = r.ID
	}
	for _, id := range ch.IDs {
		ch.Keys[id] = id
	}
	ch.Keys[legacyID] = ""
	o := pages.Offer{List: list, Keys: make(map[string]string, len(list))}
	for _, p := range list {
		id := ch.IDs[p.Name]
		o.Keys[p.Name] = ch.KeyOf(id)
		if id == legacyID {
			o.Legacy = p.Name
		}
	}
	if o.Legacy == "" && legacyID != legacyGone {
		o.Legacy = legacyID // not listed: its record's ID
	}
	if ch.List.Stale {
		// An older worker's list: what it would change is not its to change.
		return o, ch, nil
	}
	if err := s.recordPages(ctx, list, ch, now); err != nil {
		return pages.Offer{}, PageChanges{}, err
	}
	return o, ch, nil
}

// findLegacy decides the legacy page the first time: the ID of its record,
// or the name of a listed page (the first: nothing recorded, a new
// deployment; or the one the legacy snapshot names), with how. It
// may rename the one record of a one-page run to the one listed name (the
// one page was legacy whatever its URL: a repoint).
func (s *Store) findLegacy(ctx context.Context, list []pages.Page, recs []pages.Record) (id, name, how string, _ []pages.Record, _ error) {
	if len(recs) > 0 {
		// A one-page run recorded the URL it was configured with (the
		// newest record first).
		for _, r := range recs {
			for _, p := range list {
				if pages.SameURL(p.URL, r.URL) {
					return r.ID, "", "by the URL a one-page run was configured with", recs, nil
				}
			}
		}
		if len(list) == 1 {
			recs = slices.Clone(recs)
			recs[0].Name = list[0].Name
			return recs[0].ID, "", "the one page, configured with another URL", recs, nil
		}
		return "", "", "", nil, fmt.Errorf("%w (configured as %s): list it under any name so that its chats, checkpoint and cards carry over (remove it afterwards if you wish)", ErrLegacyNotListed, hostOf(recs[0].URL))
	}
	snap, err := s.LatestSnapshot(ctx)
	if err != nil {
		return "", "", "", nil, err
	}
	cp, err := s.LoadCheckpoint(ctx)
	if err != nil {
		return "", "", "", nil, err
	}
	if snap == nil && !cp.Baseline {
		return "", list[0].Name, "a new deployment: the first page", recs, nil
	}
	if len(list) == 1 {
		return "", list[0].Name, "the one page", recs, nil
	}
	if snap != nil {
		for _, p := range list {
			if pages.SameURL(p.URL, snap.Page.URL) {
				return "", p.Name, "by the URL the legacy snapshot's page gives for itself (no configured URL recorded)", recs, nil
			}
		}
	}
	return "", "", "", nil, fmt.Errorf("%w, and which one it was is not recorded (its snapshot names %s): list it so that its chats and checkpoint carry over", ErrLegacyNotListed, snapshotHost(snap))
}

func snapshotHost(snap *Snapshot) string {
	if snap == nil {
		return "no page"
	}
	return hostOf(snap.Page.URL)
}

// hostOf is what an error shows of a URL: its host only.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(not shown)"
	}
	return u.Host
}

func (s *Store) legacyRecord(ctx context.Context) (*legacyRecord, error) {
	return findOne[legacyRecord](ctx, s.db.Collection(colPages), "read the legacy page's record", bson.D{{Key: "_id", Value: legacyRecordID}})
}

// recordPages writes one record per listed page under its ID, keeping when
// it was first listed. A repointed page's record changes its URL only if
// it still holds the old one, and whoever changes it drops the page's
// checkpoint and snapshot: the page listed now baselines silently.
func (s *Store) recordPages(ctx context.Context, list []pages.Page, ch PageChanges, now time.Time) error {
	for _, c := range ch.Repointed {
		// Recorded before the change, by whoever sees it first (the same
		// notice for every process with this list): its followers are told
		// once that the page they follow changed, even when this process
		// stops right after the change.
		if err := s.AddPageNotice(ctx, PageNotice{ID: PageNoticeID(PageRepointed, ch.KeyOf(c.ID), listVersion(ch.List)),
			Kind: PageRepointed, Page: ch.KeyOf(c.ID), Name: c.Name, FromHost: hostOf(c.FromURL), Host: hostOf(c.URL), At: now}); err != nil {
			return err
		}
		res, err := s.db.Collection(colPages).UpdateOne(ctx, bson.D{{Key: "_id", Value: c.ID}, {Key: "url", Value: c.FromURL}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "url", Value: c.URL}, {Key: "name", Value: c.Name}}}})
		if err != nil {
			return fmt.Errorf("mongodb: record page %s at its new URL: %w", c.Name, err)
		}
		if res.ModifiedCount == 1 {
			d := s.PageDocs(ch.KeyOf(c.ID))
			if err := d.DropCheckpoint(ctx); err != nil {
				return err
			}
			if err := d.DropSnapshot(ctx); err != nil {
				return err
			}
			if err := s.Providers().ForgetProvider(ctx, ch.KeyOf(c.ID)); err != nil {
				return err
			}
		}
	}
	models := make([]mongo.WriteModel, 0, len(list))
	for _, p := range list {
		models = append(models, mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: ch.IDs[p.Name]}}).SetUpsert(true).
			SetUpdate(bson.D{
				{Key: "$set", Value: bson.D{{Key: "name", Value: p.Name}, {Key: "url", Value: p.URL}, {Key: "provider", Value: p.Provider}}},
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

// RemovedPage is a page recorded before that the list no longer has.
type RemovedPage struct {
	// ID is its record's; Key its event.Event.Page ("" for the legacy page).
	ID, Key, Name string
	// URL is the one it was last configured with.
	URL string
}

// listVersion names the list that made a change in a notice's ID.
func listVersion(l ListState) string { return strconv.FormatInt(l.Version, 10) }

// RemovedNotice is the notice that tells a removed page's followers
// (recorded by ForgetPage before the page's documents go).
func (c PageChanges) RemovedNotice(p RemovedPage, now time.Time) PageNotice {
	return PageNotice{ID: PageNoticeID(PageRemoved, p.Key, listVersion(c.List)), Kind: PageRemoved, Page: p.Key,
		Name: p.Name, Host: hostOf(p.URL), At: now}
}

// RemovedPages names the pages recorded before that the list no longer
// has (by ResolvePages's rule: a renamed page is not removed).
func (s *Store) RemovedPages(ctx context.Context, list []pages.Page) ([]RemovedPage, error) {
	_, ch, err := s.ResolvePages(ctx, list, time.Now())
	if err != nil {
		return nil, err
	}
	return ch.RemovedPages(), nil
}

// RemovedPages are the changes' removed pages with their keys, by ID.
func (c PageChanges) RemovedPages() []RemovedPage {
	out := make([]RemovedPage, 0, len(c.Removed))
	for _, r := range c.Removed {
		out = append(out, RemovedPage{ID: r.ID, Key: c.KeyOf(r.ID), Name: r.Name, URL: r.URL})
	}
	slices.SortFunc(out, func(a, b RemovedPage) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// ForgetPage drops a page no longer listed: its checkpoint (a page listed
// again later baselines afresh), its snapshot (a single document: nothing
// would age it out), its provider choice and its record; the legacy
// page's (key "") leaves no page legacy. Its component history ages out
// with everyone's; deliveries already running finish.
func (s *Store) ForgetPage(ctx context.Context, p RemovedPage) error {
	if err := s.PageDocs(p.Key).DropCheckpoint(ctx); err != nil {
		return err
	}
	if err := s.PageDocs(p.Key).DropSnapshot(ctx); err != nil {
		return err
	}
	if err := s.Providers().ForgetProvider(ctx, p.Key); err != nil {
		return err
	}
	if p.Key == "" {
		if _, err := s.db.Collection(colPages).UpdateOne(ctx, bson.D{{Key: "_id", Value: legacyRecordID}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "page", Value: legacyGone}}}}); err != nil {
			return fmt.Errorf("mongodb: record that the legacy page is gone: %w", err)
		}
	}
	if _, err := s.db.Collection(colPages).DeleteOne(ctx, bson.D{{Key: "_id", Value: p.ID}}); err != nil {
		return fmt.Errorf("mongodb: forget page %s: %w", p.Name, err)
	}
	return nil
}

// providerDoc is a page's provider as every worker reads it
// (statuspage.ProviderChoice), in the pages collection under
// "#provider/<key>" ('#' is in no page's ID).
type providerDoc struct {
	ID             string    `bson:"_id"`
	Provider       string    `bson:"provider"`
	ProbedAt       time.Time `bson:"probed_at,omitempty"`
	NotServed      int       `bson:"not_served,omitempty"`
	NotServedSince time.Time `bson:"not_served_since,omitempty"`
	V              int64     `bson:"v"`
}

func providerID(key string) string { return "#provider/" + key }

// Providers keeps each page's provider choice for statuspage.Auto.Shared.
type Providers struct{ s *Store }

// Providers is the shared provider choices.
func (s *Store) Providers() Providers { return Providers{s: s} }

// LoadProvider reads a page's choice (zero: not decided).
func (p Providers) LoadProvider(ctx context.Context, key string) (statuspage.ProviderChoice, error) {
	d, err := findOne[providerDoc](ctx, p.s.db.Collection(colPages), "read the page's provider", bson.D{{Key: "_id", Value: providerID(key)}})
	if err != nil || d == nil {
		return statuspage.ProviderChoice{}, err
	}
	return statuspage.ProviderChoice{Provider: d.Provider, ProbedAt: d.ProbedAt, NotServed: d.NotServed, NotServedSince: d.NotServedSince, V: d.V}, nil
}

// SaveProvider writes next if the record is still at version was.V: an
// insert for version 0, else an update on the version.
func (p Providers) SaveProvider(ctx context.Context, key string, was, next statuspage.ProviderChoice) (bool, error) {
	d := providerDoc{ID: providerID(key), Provider: next.Provider, ProbedAt: next.ProbedAt, NotServed: next.NotServed,
		NotServedSince: next.NotServedSince, V: was.V + 1}
	c := p.s.db.Collection(colPages)
	if was.V == 0 {
		_, err := c.InsertOne(ctx, d)
		if mongo.IsDuplicateKeyError(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("mongodb: record the page's provider: %w", err)
		}
		return true, nil
	}
	res, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: d.ID}, {Key: "v", Value: was.V}}, d)
	if err != nil {
		return false, fmt.Errorf("mongodb: record the page's provider: %w", err)
	}
	return res.MatchedCount == 1, nil
}

// ForgetProvider drops a page's choice (a page removed, or its name
// pointed at another URL: the new one is probed afresh).
func (p Providers) ForgetProvider(ctx context.Context, key string) error {
	if _, err := p.s.db.Collection(colPages).DeleteOne(ctx, bson.D{{Key: "_id", Value: providerID(key)}}); err != nil {
		return fmt.Errorf("mongodb: forget the page's provider: %w", err)
	}
	return nil
}
