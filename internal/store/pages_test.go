package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func ids(t *testing.T, db *mongo.Database, coll string) []string {
	t.Helper()
	cur, err := db.Collection(coll).Find(context.Background(), bson.D{})
	require.NoError(t, err)
	var docs []struct {
		ID string `bson:"_id"`
	}
	require.NoError(t, cur.All(context.Background(), &docs))
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

// The legacy page keeps today's documents ("page", "latest"); another page
// has its own beside them, and what one page records never shows in the
// other's. Its component history names the component scoped.
func TestPageDocsKeepTheLegacyIDs(t *testing.T) {
	st, db := testenv.StoreAndDatabase(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	legacy, github := st.PageDocs(""), st.PageDocs("github")
	base := func(status string) *event.Checkpoint {
		return &event.Checkpoint{Baseline: true, Components: map[string]event.ComponentMark{"c1": {Status: status, UpdatedAt: now}}}
	}
	require.NoError(t, legacy.SaveBaseline(ctx, base("operational")))
	require.NoError(t, github.SaveBaseline(ctx, base("major_outage")))
	require.NoError(t, legacy.SaveSnapshot(ctx, &statuspage.Page{Name: "OpenAI", URL: "https://status.openai.com"}, now))
	require.NoError(t, github.SaveSnapshot(ctx, &statuspage.Page{Name: "GitHub", URL: "https://www.githubstatus.com"}, now))
	require.NoError(t, github.CommitEvents(ctx, []event.Event{{Key: "component:c1:operational:t", Kind: event.KindComponent,
		ComponentID: "c1", NewStatus: "operational", StatusSince: now.Add(time.Minute), Notify: true}}, nil, now))
	require.NoError(t, github.SaveFailingParts(ctx, map[string]store.BlindSpot{"incidents": {Part: "incidents", Since: now, Err: "HTTP 500"}}))

	require.ElementsMatch(t, []string{"page", "page/github"}, ids(t, db, "checkpoints"))
	require.ElementsMatch(t, []string{"latest", "latest/github"}, ids(t, db, "snapshots"))

	cp, err := legacy.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Equal(t, "operational", cp.Components["c1"].Status)
	require.Empty(t, cp.Components["c1"].LastEvent, "the other page's commit is not the legacy page's")
	cp, err = github.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Equal(t, "operational", cp.Components["c1"].Status)
	require.Equal(t, "component:c1:operational:t", cp.Components["c1"].LastEvent, "the checkpoint keeps the page's own keys")
	same, err := st.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Equal(t, "", same.Components["c1"].LastEvent, "Store.LoadCheckpoint is the legacy page's")

	snap, err := st.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, "OpenAI", snap.Page.Name)
	snap, err = github.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, "GitHub", snap.Page.Name)

	parts, err := st.FailingParts(ctx)
	require.NoError(t, err)
	require.Empty(t, parts, "the other page's failing part")
	parts, err = github.FailingParts(ctx)
	require.NoError(t, err)
	require.Len(t, parts, 1)

	hist, err := st.ComponentHistory(ctx, now.Add(-time.Hour))
	require.NoError(t, err)
	var got []string
	for _, h := range hist {
		got = append(got, h.ComponentID+" "+h.Status)
	}
	require.ElementsMatch(t, []string{"c1 operational", "github/c1 major_outage", "github/c1 operational"}, got)

	require.NoError(t, github.DropCheckpoint(ctx))
	cp, err = github.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.False(t, cp.Baseline, "dropped: the page baselines afresh")
	require.Equal(t, []string{"page"}, ids(t, db, "checkpoints"))
}

var (
	openai = pages.Page{Name: "openai", URL: "https://status.openai.com", Provider: "auto"}
	github = pages.Page{Name: "github", URL: "https://www.githubstatus.com", Provider: "statuspage"}
	gitlab = pages.Page{Name: "gitlab", URL: "https://status.gitlab.com", Provider: "auto"}
)

// Upgrading a one-page deployment: the page whose URL the legacy snapshot
// names is legacy, wherever the list puts it; from then on the record
// decides, whatever the list's order.
func TestOfferRecordsTheLegacyPageByItsSnapshot(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	require.NoError(t, st.SaveSnapshot(ctx, &statuspage.Page{Name: "OpenAI", URL: "https://STATUS.openai.com/"}, now))

	o, err := st.Offer(ctx, []pages.Page{github, openai}, now)
	require.NoError(t, err)
	require.Equal(t, "openai", o.Legacy, "the page the legacy snapshot is of")
	require.Equal(t, []pages.Page{github, openai}, o.List)
	require.Equal(t, "github", o.Default().Name)

	o, err = st.Offer(ctx, []pages.Page{gitlab, github, openai}, now)
	require.NoError(t, err)
	require.Equal(t, "openai", o.Legacy, "the record decides")
	o, err = st.Offer(ctx, []pages.Page{gitlab}, now)
	require.NoError(t, err)
	require.Equal(t, "openai", o.Legacy, "even when the legacy page is gone: no listed page takes its documents")
	require.Equal(t, "gitlab", o.EventPage("gitlab"))
}

// A new deployment listing several pages: the first is legacy. One page
// and no record: that page is legacy and nothing is recorded, so a list
// made later still finds the page the deployment watched, or is refused.
func TestOfferWithoutSnapshot(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	o, err := st.Offer(ctx, []pages.Page{github, openai}, time.Now())
	require.NoError(t, err)
	require.Equal(t, "github", o.Legacy, "a new deployment: the first")
	require.Equal(t, "", o.EventPage("github"))

	st = testenv.Store(t)
	o, err = st.Offer(ctx, []pages.Page{{Name: "page", URL: "http://127.0.0.1:8082", Provider: "auto"}}, time.Now())
	require.NoError(t, err)
	require.Equal(t, "page", o.Legacy)
	_, err = st.Offer(ctx, []pages.Page{github, openai}, time.Now())
	require.ErrorIs(t, err, store.ErrLegacyNotListed, "the page the one-page run watched is not listed: refused, not guessed")
	require.ErrorContains(t, err, "127.0.0.1:8082")

	_, err = st.Offer(ctx, nil, time.Now())
	require.ErrorContains(t, err, "no status page is listed")
}

// Issue 30, item 3: the upgrade from STATUSPAGE_URL finds the page by the
// URL the one-page run was configured with, not by the URL the page gives
// for itself (a GitHub page reporting another address). On the old code the
// first listed page (openai) became legacy: GitHub's chats and checkpoint
// went to OpenAI.
func TestUpgradeFindsTheConfiguredURL(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	one := pages.Page{Name: "githubstatus", URL: "https://www.githubstatus.com", Provider: "auto"}
	o, err := st.Offer(ctx, []pages.Page{one}, now)
	require.NoError(t, err)
	require.Equal(t, "githubstatus", o.Legacy)
	require.NoError(t, st.SaveSnapshot(ctx, &statuspage.Page{Name: "GitHub", URL: "https://githubstatus.example"}, now))
	require.NoError(t, st.SaveBaseline(ctx, &event.Checkpoint{Baseline: true}))

	_, err = st.Offer(ctx, []pages.Page{openai, gitlab}, now)
	require.ErrorIs(t, err, store.ErrLegacyNotListed)
	require.ErrorContains(t, err, "www.githubstatus.com")

	o, ch, err := st.ResolvePages(ctx, []pages.Page{openai, github}, now)
	require.NoError(t, err)
	require.Equal(t, "github", o.Legacy, "the page the one-page run was configured with")
	require.Equal(t, "", o.EventPage("github"))
	require.Equal(t, "openai", o.EventPage("openai"))
	require.Equal(t, "github", o.NameOf(""))
	require.Equal(t, []pages.Change{{ID: "githubstatus", Name: "github", URL: github.URL, FromName: "githubstatus"}}, ch.Renamed)
	require.Empty(t, ch.Removed)
	o, err = st.Offer(ctx, []pages.Page{gitlab, openai, github}, now)
	require.NoError(t, err)
	require.Equal(t, "github", o.Legacy, "the record decides")
}

// A database from before pages were recorded: the legacy snapshot's own
// URL is all there is; nothing matching it is refused.
func TestUpgradeFromBeforeRecords(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	require.NoError(t, st.SaveSnapshot(ctx, &statuspage.Page{Name: "OpenAI", URL: "https://elsewhere.example"}, now))
	_, err := st.Offer(ctx, []pages.Page{openai, github}, now)
	require.ErrorIs(t, err, store.ErrLegacyNotListed)
}

// Issue 30, item 1: renaming a page (same URL, new name) keeps its key, so
// its checkpoint, followers, cards and reminders carry over; nothing is
// removed. On the old code "openai" and "github" were removed (their
// Schedules deleted, checkpoints dropped) and "chatgpt" and "gh" were new
// pages nobody followed.
func TestRenameKeepsThePage(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	o, err := st.Offer(ctx, []pages.Page{openai, github}, now)
	require.NoError(t, err)
	require.Equal(t, "openai", o.Legacy)
	require.NoError(t, st.PageDocs("github").SaveBaseline(ctx, &event.Checkpoint{Baseline: true}))

	chatgpt := pages.Page{Name: "chatgpt", URL: "https://status.openai.com/", Provider: "auto"}
	gh := pages.Page{Name: "gh", URL: "https://WWW.githubstatus.com", Provider: "statuspage"}
	o, ch, err := st.ResolvePages(ctx, []pages.Page{gh, chatgpt}, now)
	require.NoError(t, err)
	require.Equal(t, "chatgpt", o.Legacy)
	require.Equal(t, "", o.EventPage("chatgpt"))
	require.Equal(t, "github", o.EventPage("gh"), "the key the page had")
	require.Equal(t, "gh", o.NameOf("github"), "events of the key show the new name")
	require.Equal(t, "chatgpt", o.NameOf(""))
	require.ElementsMatch(t, []pages.Change{
		{ID: "openai", Name: "chatgpt", URL: chatgpt.URL, FromName: "openai"},
		{ID: "github", Name: "gh", URL: gh.URL, FromName: "github"},
	}, ch.Renamed)
	require.Empty(t, ch.Removed)
	require.Empty(t, ch.Added)
	removed, err := st.RemovedPages(ctx, []pages.Page{gh, chatgpt})
	require.NoError(t, err)
	require.Empty(t, removed)
	cp, err := st.PageDocs("github").LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.True(t, cp.Baseline, "the checkpoint carries over")

	// Recorded: the next start sees no change, and a new page called
	// "github" is another page with a key of its own.
	o, ch, err = st.ResolvePages(ctx, []pages.Page{gh, chatgpt, {Name: "github", URL: "https://github.example", Provider: "auto"}}, now)
	require.NoError(t, err)
	require.Empty(t, ch.Renamed)
	require.Equal(t, "github-2", o.EventPage("github"))
	require.Equal(t, "github", o.EventPage("gh"))
}

// Issue 30, item 2: a name pointed at another URL keeps its key (its
// followers) but not its checkpoint or snapshot: its first poll baselines
// silently. On the old code the URL was overwritten and the old page's
// checkpoint kept, so the new page's whole feed was announced.
func TestRepointDropsTheCheckpoint(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	_, err := st.Offer(ctx, []pages.Page{openai, github}, now)
	require.NoError(t, err)
	gh := st.PageDocs("github")
	require.NoError(t, gh.SaveBaseline(ctx, &event.Checkpoint{Baseline: true}))
	require.NoError(t, gh.SaveSnapshot(ctx, &statuspage.Page{Name: "GitHub", URL: github.URL}, now))

	moved := pages.Page{Name: "github", URL: "https://status.gitlab.com", Provider: "auto"}
	o, ch, err := st.ResolvePages(ctx, []pages.Page{openai, moved}, now)
	require.NoError(t, err)
	require.Equal(t, "github", o.EventPage("github"))
	require.Equal(t, []pages.Change{{ID: "github", Name: "github", URL: moved.URL, FromURL: github.URL}}, ch.Repointed)
	cp, err := gh.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.False(t, cp.Baseline, "the new URL baselines afresh")
	snap, err := gh.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Nil(t, snap)

	require.NoError(t, gh.SaveBaseline(ctx, &event.Checkpoint{Baseline: true}))
	_, ch, err = st.ResolvePages(ctx, []pages.Page{openai, moved}, now)
	require.NoError(t, err)
	require.Empty(t, ch.Repointed, "recorded: said once")
	cp, err = gh.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.True(t, cp.Baseline, "the new page's own checkpoint stays")
}

// The bot and the worker start at once: both get the same legacy page.
func TestOfferIsSafeWhenCalledAtOnce(t *testing.T) {
	for round := 0; round < 3; round++ {
		st := testenv.Store(t)
		ctx := context.Background()
		var wg sync.WaitGroup
		got := make([]string, 6)
		errs := make([]error, 6)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				list := []pages.Page{github, openai}
				if i%2 == 1 {
					list = []pages.Page{openai, github} // a racer that would pick another
				}
				o, err := st.Offer(ctx, list, time.Now())
				got[i], errs[i] = o.Legacy, err
			}()
		}
		wg.Wait()
		for i := range got {
			require.NoError(t, errs[i])
			require.Equal(t, got[0], got[i], "round %d: every caller sees the one record", round)
		}
	}
}

// Pages recorded before and no longer listed are named, once forgotten no
// more; forgetting drops the page's checkpoint.
func TestRemovedPages(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	_, err := st.Offer(ctx, []pages.Page{openai, github, gitlab}, time.Now())
	require.NoError(t, err)
	require.NoError(t, st.PageDocs("gitlab").SaveBaseline(ctx, &event.Checkpoint{Baseline: true}))
	require.NoError(t, st.PageDocs("gitlab").SaveSnapshot(ctx, &statuspage.Page{Name: "GitLab"}, time.Now()))
	removed, err := st.RemovedPages(ctx, []pages.Page{openai, github})
	require.NoError(t, err)
	require.Equal(t, []store.RemovedPage{{ID: "gitlab", Key: "gitlab", Name: "gitlab", URL: gitlab.URL}}, removed)
	require.NoError(t, st.ForgetPage(ctx, removed[0]))
	cp, err := st.PageDocs("gitlab").LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.False(t, cp.Baseline)
	snap, err := st.PageDocs("gitlab").LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Nil(t, snap, "issue 30, item 5: the removed page's snapshot goes (on the old code it stayed for good)")
	removed, err = st.RemovedPages(ctx, []pages.Page{openai, github})
	require.NoError(t, err)
	require.Empty(t, removed)
}

// Issue 30, item 7: the list one worker started with is recorded with a
// version; a worker started with a list the record superseded (an older
// worker's settings) writes nothing, and says so (PagesAgree, /readyz). On
// the old code whichever worker started last rewrote the page records:
// here the old list would have pointed "github" back at its old URL and
// dropped the new page's checkpoint.
func TestAnOlderListChangesNothing(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now()
	older := []pages.Page{openai, github}
	_, ch, err := st.ResolvePages(ctx, older, now)
	require.NoError(t, err)
	require.Equal(t, store.ListState{Version: 1, Adopted: true, By: ch.List.By, At: ch.List.At}, ch.List)

	newer := []pages.Page{openai, {Name: "github", URL: "https://status.gitlab.com", Provider: "auto"}}
	_, ch, err = st.ResolvePages(ctx, newer, now)
	require.NoError(t, err)
	require.True(t, ch.List.Adopted)
	require.Equal(t, int64(2), ch.List.Version)
	require.Len(t, ch.Repointed, 1)
	require.NoError(t, st.PageDocs("github").SaveBaseline(ctx, &event.Checkpoint{Baseline: true}))

	_, ch, err = st.ResolvePages(ctx, older, now)
	require.NoError(t, err)
	require.True(t, ch.List.Stale, "the older worker's list")
	require.Equal(t, int64(2), ch.List.Version)
	cp, err := st.PageDocs("github").LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.True(t, cp.Baseline, "the older list dropped nothing")
	_, ch, err = st.ResolvePages(ctx, newer, now)
	require.NoError(t, err)
	require.Empty(t, ch.Repointed, "the record is the newer list's still")
	require.False(t, ch.List.Stale)

	require.NoError(t, st.PagesAgree(ctx, newer))
	err = st.PagesAgree(ctx, older)
	require.ErrorContains(t, err, "differs from the page list recorded as version 2")
	require.NotContains(t, err.Error(), "gitlab", "no URL in /readyz")

	// A third list, never seen: the operator's next change, adopted.
	_, ch, err = st.ResolvePages(ctx, []pages.Page{openai}, now)
	require.NoError(t, err)
	require.True(t, ch.List.Adopted)
	require.Equal(t, int64(3), ch.List.Version)
}
