package worker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// setPages restarts nothing: it sets the list the next worker starts with.
func setPages(t *testing.T, s *testenv.Stack, list ...pages.Page) {
	t.Helper()
	s.Config.StatusPages = pages.Format(list)
	require.NoError(t, s.Config.Validate())
}

// followOnly makes a chat follow one page alone (eventPage "" is the legacy page).
func followOnly(t *testing.T, s *testenv.Stack, chat int64, eventPage string) {
	t.Helper()
	ctx := context.Background()
	_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
	require.NoError(t, err)
	key := store.SubscriberKey(chat, 0)
	if eventPage != "" {
		_, _, err = s.Store.FollowPage(ctx, key, eventPage)
		require.NoError(t, err)
		_, _, err = s.Store.UnfollowPage(ctx, key, "")
		require.NoError(t, err)
	}
}

// Issue 30, item 1, end to end: the legacy page (openai -> chatgpt) and
// another page (github -> gh) are renamed, same URLs. Each page's next
// incident reaches exactly the chats that followed it, once; both
// Schedules are the ones of before. On the old code both pages counted as
// removed: their Schedules deleted, their checkpoints dropped, and the
// renamed pages had no followers: neither chat heard anything again.
func TestRenamedPagesKeepTheirChats(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	io, gh := ps.IncidentIO("openai"), ps.Statuspage("github")
	const aiChat, ghChat = int64(611), int64(622)
	followOnly(t, s, aiChat, "")
	followOnly(t, s, ghChat, "github")
	stop := s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	waitForPageBaseline(t, s, "github")
	stop()

	setPages(t, s, pages.Page{Name: "chatgpt", URL: io.URL(), Provider: "auto"}, pages.Page{Name: "gh", URL: gh.URL(), Provider: "auto"})
	s.StartWorker(t)
	offer, err := s.Store.Offer(ctx, s.Config.Pages, time.Now())
	require.NoError(t, err)
	require.Equal(t, "chatgpt", offer.Legacy)
	require.Equal(t, "github", offer.EventPage("gh"), "gh keeps github's key")
	for _, id := range []string{workflows.ScheduleID, workflows.PageScheduleID("github")} {
		_, err := s.Temporal.ScheduleClient().GetHandle(ctx, id).Describe(ctx)
		require.NoError(t, err, "schedule %s kept", id)
	}
	_, err = s.Temporal.ScheduleClient().GetHandle(ctx, workflows.PageScheduleID("gh")).Describe(ctx)
	require.Error(t, err, "no second Schedule for the renamed page")

	io.AddIncidentUpdate("01INC0000000000000000000R1", "Elevated errors after the rename", "investigating", "", "01UPD0000000000000000000R1", "Looking.")
	gh.AddIncidentUpdate("ghren1", "Actions delayed after the rename", "investigating", "major", "ghrenupd1", "Runs are delayed.")
	testenv.WaitFor(t, 90*time.Second, "each page's incident in the chat that followed it", func() bool {
		return strings.Contains(textsTo(s, aiChat), "Elevated errors after the rename") &&
			strings.Contains(textsTo(s, ghChat), "Actions delayed after the rename")
	})
	waitDeliveriesClosed(t, s)
	require.NotContains(t, textsTo(s, aiChat), "Actions delayed", "the openai chat does not follow github")
	require.NotContains(t, textsTo(s, ghChat), "Elevated errors", "the github chat does not follow openai")
	require.Len(t, s.Telegram.MessagesTo(aiChat, 0), 1, "once, and nothing re-sent")
	require.Len(t, s.Telegram.MessagesTo(ghChat, 0), 1, "once, and nothing re-sent")
}

// Issue 30, item 2, end to end: the name github is pointed at another
// page with a month of incidents. That page is new: baselined silently,
// none of its history announced, its followers told once (across a
// restart) that it changed; its next incident reaches github's
// followers. On the old code its checkpoint was the old page's: every
// update of every incident in its feed went to github's followers.
func TestRepointedNameAnnouncesNoHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	ps := fakes.NewPages(
		fakes.PageSpec{Name: "openai", Kind: fakes.KindIncidentIO},
		fakes.PageSpec{Name: "github", Kind: fakes.KindStatuspage, Components: fakes.GitHubComponents, Title: "GitHub"},
		fakes.PageSpec{Name: "gitlab", Kind: fakes.KindStatuspage, Components: fakes.GitHubComponents, Title: "GitLab"},
	)
	t.Cleanup(ps.Close)
	s := testenv.NewStackWith(t, pagesInterval, testenv.StackOptions{Pages: ps})
	io, gh, gl := ps.IncidentIO("openai"), ps.Statuspage("github"), ps.Statuspage("gitlab")
	setPages(t, s, pages.Page{Name: "openai", URL: io.URL(), Provider: "auto"}, pages.Page{Name: "github", URL: gh.URL(), Provider: "auto"})
	const ghChat, aiChat = int64(711), int64(722)
	followOnly(t, s, ghChat, "github")
	followOnly(t, s, aiChat, "")
	stop := s.StartWorker(t)
	waitForPageBaseline(t, s, "github")
	stop()

	// The other page's feed: resolved and open incidents of before.
	for i, name := range []string{"Old outage one", "Old outage two", "Old outage three"} {
		id := "glold" + string(rune('a'+i))
		gl.AddIncidentUpdate(id, name, "investigating", "major", id+"u1", "Looking.")
		gl.AddIncidentUpdate(id, name, "resolved", "major", id+"u2", "Fixed.")
	}
	gl.AddIncidentUpdate("glopen", "Open before the switch", "investigating", "minor", "glopenu1", "Looking.")
	setPages(t, s, pages.Page{Name: "openai", URL: io.URL(), Provider: "auto"}, pages.Page{Name: "github", URL: gl.URL(), Provider: "auto"})
	stop = s.StartWorker(t)
	testenv.WaitFor(t, 60*time.Second, "the new page's baseline", func() bool {
		snap, err := s.Store.PageDocs("github").LatestSnapshot(context.Background())
		return err == nil && snap != nil && snap.Page.Name == "GitLab"
	})
	// Its followers are told once that the page changed, from which host
	// to which (on the old code: nothing), and nothing else.
	testenv.WaitFor(t, 60*time.Second, "the change told", func() bool { return messagesWith(s, ghChat, "has changed") == 1 })
	require.Contains(t, textsTo(s, ghChat), hostOfURL(gl.URL()))
	require.Contains(t, textsTo(s, ghChat), hostOfURL(gh.URL()))
	stop()
	s.StartWorker(t) // a restart (another worker) tells no one again
	time.Sleep(3 * pagesInterval)
	require.Len(t, s.Telegram.MessagesTo(ghChat, 0), 1, "told once, and none of the new page's history")
	require.Empty(t, s.Telegram.MessagesTo(aiChat, 0), "openai's chat is not told of github")

	gl.AddIncidentUpdate("glnew", "New after the switch", "investigating", "major", "glnewu1", "Looking.")
	testenv.WaitFor(t, 60*time.Second, "the new page's next incident", func() bool {
		return strings.Contains(textsTo(s, ghChat), "New after the switch")
	})
	waitDeliveriesClosed(t, s)
	require.Len(t, s.Telegram.MessagesTo(ghChat, 0), 2, "the change, then the new incident")
}

// hostRewriter serves target under another URL: the page behind it gives
// its own address for itself (page.url), not the one configured.
func hostRewriter(t *testing.T, target string) string {
	u, err := url.Parse(target)
	require.NoError(t, err)
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u); r.Out.Host = u.Host }}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Issue 30, item 3, end to end: a one-page deployment watched GitHub at
// a URL other than the one the page gives for itself; the upgrade lists
// openai first and github at that URL. github is the legacy page (its
// chat hears its next incident, and nothing of openai); a list without it
// is refused. On the old code the legacy page was looked up by the page's
// own URL, matched nothing, and openai (the first) took GitHub's chats
// and checkpoint.
func TestUpgradeFindsThePageByItsConfiguredURL(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	io, gh := ps.IncidentIO("openai"), ps.Statuspage("github")
	configured := hostRewriter(t, gh.URL())

	s.Config.StatusPages, s.Config.StatuspageURL, s.Config.StatuspageProvider = "", configured, "auto"
	require.NoError(t, s.Config.Validate())
	const chat = int64(811)
	_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
	require.NoError(t, err)
	stop := s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	snap, err := s.Store.LatestSnapshot(ctx)
	require.NoError(t, err)
	require.False(t, pages.SameURL(snap.Page.URL, configured), "the page gives another URL for itself")
	stop()

	list := []pages.Page{{Name: "openai", URL: io.URL(), Provider: "auto"}}
	_, err = s.Store.Offer(ctx, append(list, pages.Page{Name: "other", URL: "https://status.example.com", Provider: "auto"}), time.Now())
	require.ErrorIs(t, err, store.ErrLegacyNotListed, "a list without the watched page is refused")

	s.Config.StatuspageURL = pages.OpenAIURL
	setPages(t, s, append(list, pages.Page{Name: "github", URL: configured, Provider: "auto"})...)
	s.StartWorker(t)
	offer, err := s.Store.Offer(ctx, s.Config.Pages, time.Now())
	require.NoError(t, err)
	require.Equal(t, "github", offer.Legacy)
	waitForPageBaseline(t, s, "openai")

	gh.AddIncidentUpdate("ghup1", "Actions delayed after the upgrade", "investigating", "major", "ghup1u1", "Runs are delayed.")
	io.AddIncidentUpdate("01INC0000000000000000000U1", "OpenAI errors after the upgrade", "investigating", "", "01UPD0000000000000000000U1", "Looking.")
	testenv.WaitFor(t, 90*time.Second, "github's incident in the chat that watched github", func() bool {
		return strings.Contains(textsTo(s, chat), "Actions delayed after the upgrade")
	})
	waitDeliveriesClosed(t, s)
	time.Sleep(2 * pagesInterval)
	require.NotContains(t, textsTo(s, chat), "OpenAI errors", "the chat never followed openai")
	require.Len(t, s.Telegram.MessagesTo(chat, 0), 1)
}

// Issue 30, item 7, end to end: an older worker (started with the list
// before gitlab was added) restarts after a newer one recorded the list
// with gitlab. It says so (the /readyz check's store.PagesAgree) and
// deletes no Schedule. On the old code whichever worker started last
// decided: the older one deleted gitlab's Schedule and dropped its
// checkpoint.
func TestAnOlderWorkerDeletesNoSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	ps := fakes.NewPages(
		fakes.PageSpec{Name: "openai", Kind: fakes.KindIncidentIO},
		fakes.PageSpec{Name: "gitlab", Kind: fakes.KindStatuspage, Components: fakes.GitHubComponents, Title: "GitLab"},
	)
	t.Cleanup(ps.Close)
	s := testenv.NewStackWith(t, pagesInterval, testenv.StackOptions{Pages: ps})
	ctx := context.Background()
	older := []pages.Page{{Name: "openai", URL: ps.IncidentIO("openai").URL(), Provider: "auto"}}
	newer := append(older, pages.Page{Name: "gitlab", URL: ps.Statuspage("gitlab").URL(), Provider: "auto"})
	setPages(t, s, older...)
	stop := s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	stop()
	setPages(t, s, newer...)
	stop = s.StartWorker(t)
	waitForPageBaseline(t, s, "gitlab")
	stop()
	require.NoError(t, s.Store.PagesAgree(ctx, newer))

	setPages(t, s, older...)
	s.StartWorker(t)
	require.ErrorContains(t, s.Store.PagesAgree(ctx, older), "differs from the page list recorded as version 2")
	time.Sleep(3 * pagesInterval)
	_, err := s.Temporal.ScheduleClient().GetHandle(ctx, workflows.PageScheduleID("gitlab")).Describe(ctx)
	require.NoError(t, err, "gitlab's Schedule stays")
	cp, err := s.Store.PageDocs("gitlab").LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.True(t, cp.Baseline, "gitlab's checkpoint stays")
}

// Issue 30, item 4, end to end: two workers poll an incident.io page; the
// native API answers 404 twice (whichever worker polls gets them) just as
// an incident is published. No worker changes providers on that: the
// incident reaches the chat, once, and the page's recorded provider stays
// incident.io. On the old code the worker that got the 404 chose
// Statuspage v2 on its own: its poll re-baselined silently with the
// incident in it, and the incident was never announced.
func TestTwoWorkersLoseNothingOnA404(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStackWith(t, time.Second, testenv.StackOptions{Provider: "incidentio"})
	ctx := context.Background()
	const chat = int64(911)
	_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
	require.NoError(t, err)
	s.StartWorker(t)
	s.StartWorker(t)
	waitForPageBaseline(t, s, "")

	var left atomic.Int32
	left.Store(2)
	s.IO.Fault("/proxy/", func(w http.ResponseWriter, r *http.Request) bool {
		if left.Add(-1) < 0 {
			return false
		}
		http.NotFound(w, r)
		return true
	})
	s.IO.AddIncidentUpdate("01INC0000000000000000000F1", "Errors during the 404", "investigating", "", "01UPD0000000000000000000F1", "Looking.")
	testenv.WaitFor(t, 60*time.Second, "the incident", func() bool { return strings.Contains(textsTo(s, chat), "Errors during the 404") })
	require.Negative(t, left.Load(), "both 404s were served")
	waitDeliveriesClosed(t, s)
	require.Len(t, s.Telegram.MessagesTo(chat, 0), 1, "once")
	rec, err := s.Store.Providers().LoadProvider(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "incidentio", rec.Provider)
}
