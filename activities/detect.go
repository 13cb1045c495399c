package activities

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// Detection is what one poll found.
type Detection struct {
	Baseline      bool          `json:"baseline,omitempty"`
	Events        []event.Event `json:"events,omitempty"`
	Prune         []string      `json:"prune,omitempty"`
	ComponentsErr string        `json:"components_err,omitempty"`
	IncidentsErr  string        `json:"incidents_err,omitempty"`
	BytesFetched  int64         `json:"bytes_fetched"`
	// Provider that read the page; Rebaseline when it differs from the
	// checkpoint's (nobody is told about what the new one sees first).
	Provider   string `json:"provider,omitempty"`
	Rebaseline bool   `json:"rebaseline,omitempty"`
	// BaselinedParts names the parts seen for the first time this poll.
	BaselinedParts []string `json:"baselined_parts,omitempty"`
	// Renamed counts components whose IDs changed (filters followed them).
	Renamed int `json:"renamed,omitempty"`
	// Blind lists the parts of the page that have failed for longer than
	// BlindAfter: nobody hears of changes there until they come back.
	Blind []store.BlindSpot `json:"blind,omitempty"`
}

// DetectInput names the page a poll reads. Polls started before
// STATUS_PAGES carry none: the legacy page.
type DetectInput struct {
	// Page is the page's name as listed ("": the legacy page).
	Page string `json:"page,omitempty"`
}

// DetectEvents fetches the page, stores it as the page's latest snapshot,
// and diffs it against the page's checkpoint. An idle poll costs two
// MongoDB round trips (snapshot write, checkpoint read); one whose summary
// failed, three (the snapshot keeps the earlier summary's part). The
// events of a page other than the legacy one carry its name and scoped
// identifiers (event.Event.Scoped); the checkpoint keeps the page's own.
func (a *Activities) DetectEvents(ctx context.Context, in DetectInput) (*Detection, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // lost with a killed worker: retried after the poll's heartbeat time-out
	pp, err := a.pollPage(in.Page)
	if err != nil {
		return nil, err
	}
	page, n, err := pp.fetcher.Fetch(ctx)
	if err != nil {
		if len(a.Pages.List) > 1 {
			return nil, fmt.Errorf("fetch status page %s: %w", pp.name, err)
		}
		return nil, fmt.Errorf("fetch status page: %w", err)
	}
	d := &Detection{ComponentsErr: page.ComponentsErr, IncidentsErr: page.IncidentsErr, BytesFetched: n, Provider: page.Provider}
	cp, err := pp.docs.LoadCheckpoint(ctx)
	if err != nil {
		return nil, err
	}
	if len(cp.Intent) > 0 {
		if err := a.settleIntent(ctx, pp, &cp); err != nil {
			return nil, err
		}
	}
	// Before the snapshot is replaced: it may hold the old names.
	if d.Renamed, err = a.followRenames(ctx, pp, &cp, page); err != nil {
		return nil, err
	}
	// Saved part by part, before the reminders are told: a maintenance first
	// seen while the summary fails is in the snapshot they read.
	if err := pp.docs.SaveSnapshot(ctx, page, a.now()); err != nil {
		return nil, err
	}
	if a.Cadence != nil && page.IncidentsErr == "" {
		if err := a.Cadence(ctx, pp.name, page.Open()); err != nil {
			// Polling at the usual pace is no reason to fail the poll.
			activity.GetLogger(ctx).Warn("could not adjust the poll interval", "page", pp.name, "error", err)
		}
	}
	if a.Reminders != nil {
		if err := a.Reminders(ctx, pp.event, page); err != nil {
			// Told again on the next poll; a missed poll is no reason to
			// hold back the page's changes.
			activity.GetLogger(ctx).Warn("could not schedule maintenance reminders", "page", pp.name, "error", err)
		}
	}
	res := event.Diff(cp, page)
	d.Rebaseline = res.Rebaseline
	if d.BaselinedParts, err = a.saveBaseline(ctx, pp, cp, res, page.Provider); err != nil {
		return nil, err
	}
	// After the baseline: saving one replaces the checkpoint document.
	if d.Blind, err = a.trackBlindSpots(ctx, pp, cp, page, res.Baseline != nil); err != nil {
		return nil, err
	}
	d.Baseline = res.Baseline != nil && len(res.Events) == 0
	event.MarkBursts(res.Events)
	// Several new updates of one story are one notice (news, not history).
	event.FoldStories(res.Events)
	d.Events, d.Prune = event.ScopedAll(pp.event, res.Events), res.Prune
	metrics.EventsDetected(d.Events)
	if len(d.Events) > 0 {
		if err := pp.docs.SaveIntent(ctx, d.Events); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// pollPage is what a poll of one page works with.
type pollPage struct {
	name    string // as listed ("" only without Pages: the one page)
	event   string // event.Event.Page: "" for the legacy page
	fetcher statuspage.Fetcher
	docs    store.PageDocs
}

// pollPage resolves a page's name ("": the legacy page) to its fetcher and
// documents.
func (a *Activities) pollPage(name string) (pollPage, error) {
	if name == "" {
		name = a.Pages.Legacy
	}
	pp := pollPage{name: name, event: a.Pages.EventPage(name), fetcher: a.Fetchers[name]}
	if pp.fetcher == nil && pp.event == "" {
		pp.fetcher = a.Page
	}
	if pp.fetcher == nil {
		return pp, temporal.NewNonRetryableApplicationError(fmt.Sprintf("the status page %q is not listed in STATUS_PAGES", name), "UnknownPage", nil)
	}
	pp.docs = a.Store.PageDocs(pp.event)
	return pp, nil
}

// saveBaseline records the parts of the page seen for the first time (or
// again under another provider) and names them.
func (a *Activities) saveBaseline(ctx context.Context, pp pollPage, cp event.Checkpoint, res event.Result, provider string) ([]string, error) {
	if res.Baseline == nil {
		return nil, nil
	}
	if err := pp.docs.SaveBaseline(ctx, res.Baseline); err != nil {
		return nil, err
	}
	parts := newlyBaselined(cp, res)
	activity.GetLogger(ctx).Info("status page baselined: nobody is told about what it already shows",
		"page", pp.name, "provider", provider, "parts", parts, "provider_changed", res.Rebaseline)
	return parts, nil
}

func newlyBaselined(cp event.Checkpoint, res event.Result) []string {
	var parts []string
	was := func(part bool) bool { return part && !res.Rebaseline }
	if res.Baseline.ComponentsBaselined && !was(cp.Baseline || cp.ComponentsBaselined) {
		parts = append(parts, "components")
	}
	if res.Baseline.IncidentsBaselined && !was(cp.Baseline || cp.IncidentsBaselined) {
		parts = append(parts, "incidents")
	}
	return parts
}

// followRenames maps subscribers' component filters, and the checkpoint's
// marks, to new component IDs when the page changed them (a provider
// change, or a page that renumbered its components), matching by name and
// group. It returns how many components were mapped.
func (a *Activities) followRenames(ctx context.Context, pp pollPage, cp *event.Checkpoint, page *statuspage.Page) (int, error) {
	switching := cp.ProviderChanged(page)
	if page.ComponentsErr != "" || (!switching && !event.MissingComponents(*cp, page)) {
		return 0, nil
	}
	refs := cp.Refs()
	if len(refs) < len(cp.Components) {
		// Marks from before names were kept: the last snapshot knows them.
		snap, err := pp.docs.LatestSnapshot(ctx)
		if err != nil {
			return 0, err
		}
		if snap != nil {
			for _, c := range snap.Page.Components {
				if _, known := cp.Components[c.ID]; known && !c.Group && refs[c.ID].Name == "" {
					refs[c.ID] = event.ComponentRef{Name: c.Name, Group: c.GroupName}
				}
			}
		}
	}
	renames := event.Renames(refs, page)
	if len(renames) == 0 {
		return 0, nil
	}
	// Filters hold a page's component IDs scoped, as its events name them.
	scoped := make(map[string]string, len(renames))
	for from, to := range renames {
		scoped[pages.Scope(pp.event, from)] = pages.Scope(pp.event, to)
	}
	subs, err := a.Store.RemapComponentFilters(ctx, scoped)
	if err != nil {
		return 0, err
	}
	activity.GetLogger(ctx).Info("component IDs changed: filters mapped by name",
		"page", pp.name, "components", len(renames), "subscriptions", subs, "provider", page.Provider)
	if !switching {
		cp.RenameComponents(renames)
		if err := pp.docs.ReplaceCheckpoint(ctx, *cp); err != nil {
			return 0, err
		}
	}
	return len(renames), nil
}

// trackBlindSpots records since when each part of the page has failed and
// returns those failing for longer than BlindAfter.
func (a *Activities) trackBlindSpots(ctx context.Context, pp pollPage, cp event.Checkpoint, page *statuspage.Page, rewrite bool) ([]store.BlindSpot, error) {
	now := a.now()
	failing := map[string]store.BlindSpot{}
	for part, msg := range map[string]string{"components": page.ComponentsErr, "incidents": page.IncidentsErr, "maintenances": page.MaintenancesErr} {
		if msg == "" {
			continue
		}
		since := now
		if prev, ok := cp.Failing[part]; ok {
			since = prev
		}
		failing[part] = store.BlindSpot{Part: part, Since: since, Err: store.CapError(msg)}
	}
	if rewrite || !sameParts(cp.Failing, failing) {
		if err := pp.docs.SaveFailingParts(ctx, failing); err != nil {
			return nil, err
		}
		for part, b := range failing {
			if _, was := cp.Failing[part]; !was {
				activity.GetLogger(ctx).Warn("a part of the status page cannot be read", "page", pp.name, "part", part, "error", b.Err)
			}
		}
	}
	var blind []store.BlindSpot
	for _, b := range failing {
		if a.BlindAfter > 0 && now.Sub(b.Since) >= a.BlindAfter {
			blind = append(blind, b)
		}
	}
	sort.Slice(blind, func(i, j int) bool { return blind[i].Part < blind[j].Part })
	for _, b := range blind {
		activity.GetLogger(ctx).Error("blind spot: a part of the status page has been unreadable for several polls",
			"page", pp.name, "part", b.Part, "since", b.Since, "error", b.Err)
	}
	return blind, nil
}

func sameParts(prev map[string]time.Time, now map[string]store.BlindSpot) bool {
	if len(prev) != len(now) {
		return false
	}
	for part := range now {
		if _, ok := prev[part]; !ok {
			return false
		}
	}
	return true
}

// settleIntent commits the events of an earlier poll whose deliveries
// started but which never committed (its run timed out, MongoDB was down):
// without this, a change that reverted meanwhile would go unannounced.
// Events are settled in order, up to the first whose delivery never started.
// The intent holds the events as handed over (scoped); the checkpoint
// records them in the page's own identifiers.
func (a *Activities) settleIntent(ctx context.Context, pp pollPage, cp *event.Checkpoint) error {
	var started []event.Event
	for _, e := range cp.Intent {
		if e.Notify {
			ok, err := a.DeliveryStarted(ctx, e.Key)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
		}
		started = append(started, e)
	}
	bare := event.UnscopedAll(started)
	if err := pp.docs.CommitEvents(ctx, bare, nil, a.now()); err != nil {
		return err
	}
	activity.GetLogger(ctx).Info("settled an uncommitted poll", "page", pp.name, "events", len(cp.Intent), "committed", len(started))
	cp.Apply(bare)
	cp.Intent = nil
	return nil
}

// CommitInput lists events whose delivery has durably started.
type CommitInput struct {
	// Page is the page's name as listed ("": the legacy page, and every
	// commit from before STATUS_PAGES).
	Page   string        `json:"page,omitempty"`
	Events []event.Event `json:"events"`
	Prune  []string      `json:"prune,omitempty"`
}

// CommitCheckpoint records handed-over events in their page's checkpoint
// so no later poll finds them again.
func (a *Activities) CommitCheckpoint(ctx context.Context, in CommitInput) error {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // lost with a killed worker: retried after the poll's heartbeat time-out
	name := in.Page
	if name == "" {
		name = a.Pages.Legacy
	}
	return a.Store.PageDocs(a.Pages.EventPage(name)).CommitEvents(ctx, event.UnscopedAll(in.Events), in.Prune, a.now())
}
