package activities_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// twoPages is the world with a second page, github, beside the legacy page
// (openai, the world's own fake).
func twoPages(t *testing.T) (*world, *fakes.Statuspage) {
	w := newWorld(t)
	gh := fakes.NewNamedStatuspage("GitHub", fakes.GitHubComponents...)
	t.Cleanup(gh.Close)
	w.a.Pages = pages.Offer{List: []pages.Page{{Name: "openai", URL: w.page.URL()}, {Name: "github", URL: gh.URL()}}, Legacy: "openai"}
	w.a.Fetchers = map[string]statuspage.Fetcher{
		"openai": w.a.Page,
		"github": statuspage.NewClient(gh.URL(), 2*time.Second),
	}
	w.a.Page = nil // the legacy page's fetcher comes from Fetchers
	return w, gh
}

func (w *world) detectPage(t *testing.T, page string) *activities.Detection {
	t.Helper()
	v, err := w.env.ExecuteActivity(w.a.DetectEvents, activities.DetectInput{Page: page})
	require.NoError(t, err)
	var d activities.Detection
	require.NoError(t, v.Get(&d))
	return &d
}

func (w *world) commitPage(t *testing.T, page string, d *activities.Detection) {
	t.Helper()
	_, err := w.env.ExecuteActivity(w.a.CommitCheckpoint, activities.CommitInput{Page: page, Events: d.Events, Prune: d.Prune})
	require.NoError(t, err)
}

// A page other than the legacy one: its events carry its name and every
// identifier scoped by it, its checkpoint and snapshot are its own, and the
// legacy page's events are today's.
func TestDetectEventsOfAnotherPageAreScoped(t *testing.T) {
	w, gh := twoPages(t)
	ctx := context.Background()
	require.True(t, w.detectPage(t, "github").Baseline)
	require.True(t, w.detectPage(t, "").Baseline, "the legacy page baselines on its own")

	before := w.st.RoundTrips()
	require.Empty(t, w.detectPage(t, "github").Events)
	require.LessOrEqual(t, w.st.RoundTrips()-before, int64(2), "an idle poll of any page: snapshot write + checkpoint read")

	gh.AddIncidentUpdate("ghinc1", "Actions delayed", "investigating", "major", "ghupd1", "Looking.")
	gh.AffectComponent("ghinc1", "ghactions001", "major_outage")
	d := w.detectPage(t, "github")
	require.Len(t, d.Events, 2)
	comp, inc := d.Events[0], d.Events[1]
	if comp.Kind != event.KindComponent {
		comp, inc = inc, comp
	}
	for _, e := range d.Events {
		require.Equal(t, "github", e.Page)
		require.True(t, strings.HasPrefix(e.Key, "github/"), e.Key)
		require.True(t, strings.HasPrefix(e.OrderKey, "github/"), e.OrderKey)
		page, _ := pages.Unscope(e.Key)
		require.Equal(t, "github", page)
	}
	require.Equal(t, "github/ghactions001", comp.ComponentID)
	require.Equal(t, "github/component:ghactions001", comp.OrderKey)
	require.Equal(t, "github/ghinc1", inc.IncidentID)
	require.Equal(t, []string{"github/ghactions001"}, inc.ComponentIDs)
	require.Empty(t, w.detectPage(t, "openai").Events, "the legacy page saw nothing")
	w.commitPage(t, "github", d)
	require.Empty(t, w.detectPage(t, "github").Events, "committed to the page's checkpoint")

	gh.AddIncidentUpdate("ghinc1", "Actions delayed", "resolved", "major", "ghupd2", "Fixed.")
	d = w.detectPage(t, "github")
	require.Len(t, d.Events, 1)
	require.Equal(t, inc.Key, d.Events[0].Predecessor, "chained to the page's previous key, scoped once")
	require.Equal(t, 2, d.Events[0].Seq)

	// The page's checkpoint keeps the page's own identifiers; its history
	// names the component scoped.
	cp, err := w.st.PageDocs("github").LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Contains(t, cp.Incidents, "ghinc1")
	require.Equal(t, strings.TrimPrefix(inc.Key, "github/"), cp.Incidents["ghinc1"].LastEvent)
	legacy, err := w.st.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.NotContains(t, legacy.Incidents, "ghinc1")
	hist, err := w.st.ComponentHistory(ctx, time.Time{})
	require.NoError(t, err)
	var ghHist int
	for _, h := range hist {
		if strings.HasPrefix(h.ComponentID, "github/") {
			ghHist++
		}
	}
	require.Equal(t, len(fakes.GitHubComponents)+1, ghHist, "the page's baseline and its change, scoped")

	w.page.SetComponent("api0000001", "API", "major_outage")
	d = w.detectPage(t, "openai")
	require.Len(t, d.Events, 1)
	require.Empty(t, d.Events[0].Page, "the legacy page's events are today's")
	require.True(t, strings.HasPrefix(d.Events[0].Key, "component:api0000001:"), d.Events[0].Key)
	require.Equal(t, "api0000001", d.Events[0].ComponentID)
	snap, err := w.st.PageDocs("github").LatestSnapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, "GitHub", snap.Page.Name)
	snap, err = w.st.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.NotEqual(t, "GitHub", snap.Page.Name, "the legacy snapshot is the legacy page's")
}

// A poll that never committed is settled on its own page: its deliveries
// are looked up by their scoped keys, and it lands in the page's
// checkpoint.
func TestSettleIntentOfAnotherPage(t *testing.T) {
	w, gh := twoPages(t)
	started := map[string]bool{}
	w.a.DeliveryStarted = func(_ context.Context, key string) (bool, error) { return started[key], nil }
	w.detectPage(t, "github")
	gh.SetComponent("ghactions001", "Actions", "major_outage")
	d := w.detectPage(t, "github")
	require.Len(t, d.Events, 1)
	outage := d.Events[0]
	started[outage.Key] = true
	gh.SetComponent("ghactions001", "Actions", "operational")
	d = w.detectPage(t, "github")
	require.Len(t, d.Events, 1, "the recovery, after the settled outage")
	require.Equal(t, outage.Key, d.Events[0].Predecessor)
	require.Equal(t, "github/ghactions001", d.Events[0].ComponentID)
}

// A page the deployment does not list fails the poll, and retrying cannot
// help.
func TestDetectEventsOfAnUnlistedPage(t *testing.T) {
	w, _ := twoPages(t)
	_, err := w.env.ExecuteActivity(w.a.DetectEvents, activities.DetectInput{Page: "gitlab"})
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.True(t, app.NonRetryable())
	require.Contains(t, err.Error(), `"gitlab" is not listed`)
}

// Each page's poll tells the cadence its own page, and the reminders its
// own event page.
func TestDetectEventsTellsCadenceAndRemindersThePage(t *testing.T) {
	w, _ := twoPages(t)
	var cadence, reminders []string
	w.a.Cadence = func(_ context.Context, page string, _ bool) error { cadence = append(cadence, page); return nil }
	w.a.Reminders = func(_ context.Context, eventPage string, _ *statuspage.Page) error {
		reminders = append(reminders, eventPage)
		return nil
	}
	w.detectPage(t, "github")
	w.detectPage(t, "")
	w.detectPage(t, "openai")
	require.Equal(t, []string{"github", "openai", "openai"}, cadence)
	require.Equal(t, []string{"github", "", ""}, reminders)
}

// A maintenance of another page is planned from that page's snapshot, by
// its scoped ID (its reminder workflow's), and comes back scoped.
func TestPlanReminderOfAnotherPage(t *testing.T) {
	w, gh := twoPages(t)
	ctx := context.Background()
	start := time.Now().Add(3 * time.Hour).Truncate(time.Second).UTC()
	gh.AddMaintenanceUpdate("ghmnt1", "Database upgrade", "scheduled", "ghmu1", "We will upgrade.")
	gh.SetMaintenanceWindow("ghmnt1", start, start.Add(time.Hour))
	w.detectPage(t, "github")
	w.detectPage(t, "openai")
	p, err := w.a.PlanReminder(ctx, activities.ReminderPlanInput{MaintenanceID: "github/ghmnt1", Start: start, Boundary: time.Now()})
	require.NoError(t, err)
	require.False(t, p.Gone)
	require.NotNil(t, p.Window)
	require.Equal(t, "github/ghmnt1", p.Window.Template.IncidentID)
	require.Equal(t, "github", p.Window.Template.Page)
	p, err = w.a.PlanReminder(ctx, activities.ReminderPlanInput{MaintenanceID: "ghmnt1", Start: start, Boundary: time.Now()})
	require.NoError(t, err)
	require.True(t, p.Gone, "the legacy page has no such maintenance")

	// Issue 30, item 5: github removed from the list, its reminder is
	// cancelled (on the old code it went out at its planned time from
	// the last snapshot).
	w.a.Pages = pages.Offer{List: w.a.Pages.List[:1], Legacy: w.a.Pages.Legacy}
	require.False(t, w.a.Pages.Lists("github"))
	p, err = w.a.PlanReminder(ctx, activities.ReminderPlanInput{MaintenanceID: "github/ghmnt1", Start: start, Boundary: time.Now()})
	require.NoError(t, err)
	require.True(t, p.Gone, "the page is no longer watched")
}

// A page's snapshot read for one of its events names its incidents and
// components as the event does; the snapshot itself is left as stored.
func TestScopedPage(t *testing.T) {
	p := statuspage.Page{Name: "GitHub",
		Components: []statuspage.Component{{ID: "g1", Group: true, Components: []string{"c1"}}, {ID: "c1", GroupID: "g1"}, {ID: "c2"}},
		Incidents:  []statuspage.Incident{{ID: "i1", Components: []statuspage.IncidentComp{{ID: "c1", Name: "Actions"}}}}}
	require.Equal(t, p, activities.ScopedPage(p, ""), "the legacy page's IDs are today's")
	got := activities.ScopedPage(p, "github")
	require.Equal(t, []statuspage.Component{{ID: "github/g1", Group: true, Components: []string{"github/c1"}}, {ID: "github/c1", GroupID: "github/g1"}, {ID: "github/c2"}}, got.Components)
	require.Equal(t, "github/i1", got.Incidents[0].ID)
	require.Equal(t, "github/c1", got.Incidents[0].Components[0].ID)
	require.Equal(t, "c1", p.Incidents[0].Components[0].ID, "the page read is not changed")
	require.Equal(t, []string{"c1"}, p.Components[0].Components)
	targets := activities.FoldTargets(&got, event.Event{Kind: event.KindComponent, ComponentID: "github/c1", At: time.Now()})
	require.Len(t, targets, 1, "a component change of the page folds into its incident's card")
	require.Equal(t, "github/i1", targets[0].Incident)
}
