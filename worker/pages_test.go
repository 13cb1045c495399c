package worker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// twoFakePages is an incident.io page shaped like status.openai.com and a
// Statuspage shaped like www.githubstatus.com.
func twoFakePages(t *testing.T) *fakes.Pages {
	ps := fakes.NewPages(
		fakes.PageSpec{Name: "openai", Kind: fakes.KindIncidentIO},
		fakes.PageSpec{Name: "github", Kind: fakes.KindStatuspage, Components: fakes.GitHubComponents, Title: "GitHub"},
	)
	t.Cleanup(ps.Close)
	return ps
}

// pagesInterval is the poll interval of the two-page stacks.
const pagesInterval = 2 * time.Second

// twoPageStack is an integration stack (real dev server and FerretDB) on
// twoFakePages; its worker is started by the test.
func twoPageStack(t *testing.T) (*testenv.Stack, *fakes.Pages) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	ps := twoFakePages(t)
	return testenv.NewStackWith(t, pagesInterval, testenv.StackOptions{Pages: ps}), ps
}

// waitForPageBaseline waits until the page's first poll has recorded its
// baseline (eventPage "" for the legacy page).
func waitForPageBaseline(t testing.TB, s *testenv.Stack, eventPage string) {
	t.Helper()
	testenv.WaitFor(t, 60*time.Second, "the baseline of page "+eventPage, func() bool {
		cp, err := s.Store.PageDocs(eventPage).LoadCheckpoint(context.Background())
		return err == nil && cp.Baseline
	})
}

// textsTo are the texts a chat was sent (as last edited).
func textsTo(s *testenv.Stack, chat int64) string {
	var b strings.Builder
	for _, m := range s.Telegram.MessagesTo(chat, 0) {
		b.WriteString(m.Text)
		b.WriteString("\n---\n")
	}
	return b.String()
}

func deliveriesWith(s *testenv.Stack, t *testing.T, prefix string) int {
	n := 0
	for _, id := range s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED) {
		if strings.HasPrefix(id, prefix) {
			n++
		}
	}
	return n
}

// Two pages, two Schedules: incidents and component changes on each reach
// every subscriber, each page's under its own keys; and a page whose every
// request hangs or fails for many poll intervals never holds back the
// other's notices.
func TestTwoPagesArePolledApart(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	for _, chat := range []int64{111, 222} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		_, _, err = s.Store.FollowPage(ctx, store.SubscriberKey(chat, 0), "github")
		require.NoError(t, err)
	}
	s.StartWorker(t)
	// A new deployment listing two pages: the first is legacy.
	waitForPageBaseline(t, s, "")
	waitForPageBaseline(t, s, "github")
	for _, id := range []string{workflows.ScheduleID, workflows.ScheduleID + "/github"} {
		_, err := s.Temporal.ScheduleClient().GetHandle(ctx, id).Describe(ctx)
		require.NoError(t, err, "schedule %s", id)
	}
	require.Empty(t, s.Telegram.Messages(), "the baselines notify no one")

	io, gh := ps.IncidentIO("openai"), ps.Statuspage("github")
	io.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "investigating", "", "01UPD00000000000000000000A", "Looking.")
	io.AffectComponent("01INC00000000000000000000A", fakes.IOComponentCLI, "partial_outage")
	gh.AddIncidentUpdate("ghinc1", "Actions delayed", "investigating", "major", "ghupd1", "Actions runs are delayed.")
	gh.SetComponent("ghpages00001", "Pages", "degraded_performance")
	for _, chat := range []int64{111, 222} {
		testenv.WaitFor(t, 60*time.Second, "both pages' notices", func() bool {
			txt := textsTo(s, chat)
			return strings.Contains(txt, "Elevated errors") && strings.Contains(txt, "Actions delayed") && strings.Contains(txt, "Pages")
		})
	}
	require.Positive(t, deliveriesWith(s, t, "delivery/github/incident:ghinc1:"), "the github incident's delivery names its page")
	require.Positive(t, deliveriesWith(s, t, "delivery/github/component:ghpages00001:"), "so does its component change's")
	require.Positive(t, deliveriesWith(s, t, "delivery/incident:01INC00000000000000000000A:"), "the legacy page's keys are today's")

	// github hangs, then fails, for over two minutes (dozens of its poll
	// intervals); openai's notices, one every 30 s, reach both chats
	// meanwhile, each while github still fails.
	gh.Fault("", fakes.Hang)
	failing := gh.TotalRequests()
	failedFrom := time.Now()
	gh.AddIncidentUpdate("ghinc2", "Webhooks delayed", "investigating", "minor", "ghupd2", "Webhooks are delayed.")
	for i, name := range []string{"Login failures", "Slow image generation", "Voice mode unavailable", "Fine-tuning jobs delayed", "Batch API errors"} {
		if i == 2 {
			gh.Fault("", fakes.ServerError) // from hanging to refusing
		}
		time.Sleep(time.Until(failedFrom.Add(time.Duration(i) * 30 * time.Second)))
		id := fmt.Sprintf("01INC0000000000000000000B%d", i)
		io.AddIncidentUpdate(id, name, "investigating", "", fmt.Sprintf("01UPD0000000000000000000B%d", i), "Looking into it.")
		for _, chat := range []int64{111, 222} {
			testenv.WaitFor(t, 60*time.Second, "openai's notice "+name+" while github fails", func() bool {
				return strings.Contains(textsTo(s, chat), name)
			})
		}
	}
	require.Greater(t, time.Since(failedFrom), 2*time.Minute, "github failed for minutes")
	require.Greater(t, gh.TotalRequests(), failing, "github was polled, and failed, all along")
	require.NotContains(t, textsTo(s, 111), "Webhooks delayed", "nothing of github got through while it failed")

	gh.Fault("", nil)
	for _, chat := range []int64{111, 222} {
		testenv.WaitFor(t, 60*time.Second, "github's notice once it answers", func() bool {
			return strings.Contains(textsTo(s, chat), "Webhooks delayed")
		})
	}
}

// An upgrade from a one-page database (its checkpoint and ledger recorded,
// an incident delivered) to STATUS_PAGES listing that page after another:
// the page keeps its documents and keys (it is the legacy page, found by
// its snapshot's URL, not by its place), nothing is sent again, and its
// next update follows the first; the page added sends nothing about what
// it already showed, only what changes after.
func TestUpgradeToTwoPagesRenotifiesNothing(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	io, gh := ps.IncidentIO("openai"), ps.Statuspage("github")

	// Before: STATUSPAGE_URL alone, the incident.io page.
	s.Config.StatusPages, s.Config.StatuspageURL, s.Config.StatuspageProvider = "", io.URL(), "auto"
	require.NoError(t, s.Config.Validate())
	require.Len(t, s.Config.Pages, 1)
	_, err := s.Store.Subscribe(ctx, 111, 0, time.Now())
	require.NoError(t, err)
	stop := s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	io.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "investigating", "", "01UPD00000000000000000000A", "Looking.")
	testenv.WaitFor(t, 60*time.Second, "the incident's notice", func() bool { return strings.Contains(textsTo(s, 111), "Elevated errors") })
	// What github shows before it is added: an open incident, a degraded component.
	gh.AddIncidentUpdate("ghinc1", "Actions delayed", "investigating", "major", "ghupd1", "Actions runs are delayed.")
	gh.SetComponent("ghpages00001", "Pages", "degraded_performance")
	time.Sleep(2 * pagesInterval) // the ledger and checkpoint settle
	stop()
	before := len(s.Telegram.MessagesTo(111, 0))
	require.Equal(t, 1, before)

	// After: both pages, the new one first.
	s.Config.StatusPages, s.Config.StatuspageURL, s.Config.StatuspageProvider =
		pages.Format([]pages.Page{{Name: "github", URL: gh.URL(), Provider: "auto"}, {Name: "openai", URL: io.URL(), Provider: "auto"}}), pages.OpenAIURL, ""
	require.NoError(t, s.Config.Validate())
	// The chat follows github too (/subscribe page github) before its
	// first poll: it must hear nothing of what github already shows.
	_, _, err = s.Store.FollowPage(ctx, store.SubscriberKey(111, 0), "github")
	require.NoError(t, err)
	stop = s.StartWorker(t)
	waitForPageBaseline(t, s, "github")
	offer, err := s.Store.Offer(ctx, s.Config.Pages, time.Now())
	require.NoError(t, err)
	require.Equal(t, "openai", offer.Legacy, "the page the deployment watched stays legacy")
	time.Sleep(3 * pagesInterval)
	require.Len(t, s.Telegram.MessagesTo(111, 0), before, "nothing re-notified, nothing of what github already showed")

	io.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "resolved", "", "01UPD00000000000000000000Z", "Fixed.")
	gh.AddIncidentUpdate("ghinc2", "Webhooks delayed", "investigating", "minor", "ghupd2", "Webhooks are delayed.")
	testenv.WaitFor(t, 60*time.Second, "both pages' next changes", func() bool {
		return deliveriesWith(s, t, "delivery/incident:01INC00000000000000000000A:01UPD00000000000000000000Z:") == 1 &&
			strings.Contains(textsTo(s, 111), "Webhooks delayed")
	})
	require.Zero(t, deliveriesWith(s, t, "delivery/github/incident:ghinc1:"), "what github showed when added is its baseline")
	require.Zero(t, deliveriesWith(s, t, "delivery/github/component:"), "so is its degraded component")
	require.Equal(t, 1, deliveriesWith(s, t, "delivery/incident:01INC00000000000000000000A:01UPD00000000000000000000A:"),
		"the first update was delivered once, before the upgrade")

	// github removed: its Schedule is deleted at the next start and its
	// checkpoint dropped; the legacy page goes on.
	stop()
	s.Config.StatusPages = pages.Format([]pages.Page{{Name: "openai", URL: io.URL(), Provider: "auto"}})
	require.NoError(t, s.Config.Validate())
	s.StartWorker(t)
	testenv.WaitFor(t, 30*time.Second, "github's Schedule to go", func() bool {
		_, err := s.Temporal.ScheduleClient().GetHandle(ctx, workflows.PageScheduleID("github")).Describe(ctx)
		return err != nil
	})
	// The checkpoint is dropped right after the Schedule is deleted.
	testenv.WaitFor(t, 30*time.Second, "github's checkpoint to go (listed again, it would baseline afresh)", func() bool {
		cp, err := s.Store.PageDocs("github").LoadCheckpoint(ctx)
		return err == nil && !cp.Baseline
	})
	// Then its snapshot, and its followers are told (the worker stopped
	// mid-way would fail the test).
	testenv.WaitFor(t, 30*time.Second, "github's removal settled", func() bool {
		snap, err := s.Store.PageDocs("github").LatestSnapshot(ctx)
		pending, perr := s.Store.PendingPageNotices(ctx)
		return err == nil && perr == nil && snap == nil && len(pending) == 0 && messagesWith(s, 111, "no longer watches") == 1
	})
	_, err = s.Temporal.ScheduleClient().GetHandle(ctx, workflows.ScheduleID).Describe(ctx)
	require.NoError(t, err, "the legacy page's Schedule stays")
}

// Each chat hears the pages it follows and only those: A follows both, B
// only github and only its Pages component, C only the default page (as
// every chat did before pages). Notices name their page for A alone, and
// no chat hears anything twice.
func TestChatsHearThePagesTheyFollow(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	const chatA, chatB, chatC = int64(411), int64(422), int64(433)
	for _, chat := range []int64{chatA, chatB, chatC} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	keyA, keyB := store.SubscriberKey(chatA, 0), store.SubscriberKey(chatB, 0)
	_, _, err := s.Store.FollowPage(ctx, keyA, "github")
	require.NoError(t, err)
	_, _, err = s.Store.FollowPage(ctx, keyB, "github")
	require.NoError(t, err)
	_, _, err = s.Store.UnfollowPage(ctx, keyB, "")
	require.NoError(t, err)
	require.NoError(t, s.Store.SetComponents(ctx, keyB, []string{pages.Scope("github", "ghpages00001")}))
	s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	waitForPageBaseline(t, s, "github")

	io, gh := ps.IncidentIO("openai"), ps.Statuspage("github")
	io.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "investigating", "", "01UPD00000000000000000000A", "Looking.")
	io.AffectComponent("01INC00000000000000000000A", fakes.IOComponentCLI, "partial_outage")
	gh.AddIncidentUpdate("ghinc1", "Actions delayed", "investigating", "major", "ghupd1", "Actions runs are delayed.")
	gh.AffectComponent("ghinc1", "ghactions001", "major_outage")
	gh.SetComponent("ghpages00001", "Pages", "degraded_performance")

	testenv.WaitFor(t, 90*time.Second, "A hears both pages", func() bool {
		txt := textsTo(s, chatA)
		return strings.Contains(txt, "Elevated errors") && strings.Contains(txt, "Actions delayed") && strings.Contains(txt, "Pages")
	})
	testenv.WaitFor(t, 60*time.Second, "B hears github's Pages", func() bool { return strings.Contains(textsTo(s, chatB), "Pages") })
	testenv.WaitFor(t, 60*time.Second, "C hears openai", func() bool { return strings.Contains(textsTo(s, chatC), "Elevated errors") })
	testenv.WaitFor(t, 90*time.Second, "every delivery to end", func() bool {
		return len(s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)) == 0
	})

	for _, m := range s.Telegram.MessagesTo(chatA, 0) {
		require.True(t, strings.HasPrefix(m.Text, "<b>openai</b> · ") || strings.HasPrefix(m.Text, "<b>github</b> · "),
			"a chat of two pages is told which page: %q", m.Text)
	}
	txtA := textsTo(s, chatA)
	require.Contains(t, txtA, "<b>github</b> · ")
	require.Contains(t, txtA, "<b>openai</b> · ")

	txtB := textsTo(s, chatB)
	require.NotContains(t, txtB, "Elevated errors", "B does not follow openai")
	require.NotContains(t, txtB, "Actions delayed", "B's filter of github is Pages alone")
	require.NotContains(t, txtB, "<b>github</b> · ", "a chat of one page is not told its name")

	txtC := textsTo(s, chatC)
	require.NotContains(t, txtC, "Actions delayed", "C does not follow github")
	require.NotContains(t, txtC, "Pages", "C does not follow github")
	require.NotContains(t, txtC, "<b>openai</b> · ", "a chat of one page is not told its name")

	for _, chat := range []int64{chatA, chatB, chatC} {
		seen := map[string]bool{}
		for _, m := range s.Telegram.MessagesTo(chat, 0) {
			require.False(t, seen[m.Text], "chat %d told twice: %q", chat, m.Text)
			seen[m.Text] = true
		}
	}
}

// A maintenance scheduled on a page other than the legacy one is
// announced and reminded to that page's followers, and to them alone.
func TestRemindersOfAnotherPage(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	const ghChat, aiChat = int64(511), int64(522)
	for _, chat := range []int64{ghChat, aiChat} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		setSettings(t, s, store.SubscriberKey(chat, 0), store.Settings{Mode: store.ModeMessages, ReminderMinutes: 5})
	}
	ghKey := store.SubscriberKey(ghChat, 0)
	_, _, err := s.Store.FollowPage(ctx, ghKey, "github")
	require.NoError(t, err)
	_, _, err = s.Store.UnfollowPage(ctx, ghKey, "")
	require.NoError(t, err)
	s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	waitForPageBaseline(t, s, "github")

	gh := ps.Statuspage("github")
	start := time.Now().Add(5*time.Minute + 25*time.Second).Truncate(time.Second)
	gh.AddMaintenanceUpdate("ghmnt1", "Upgrade of Actions runners", "scheduled", "ghmntupd1", "We will upgrade the runners.")
	gh.AffectComponent("ghmnt1", "ghactions001", "under_maintenance")
	gh.SetMaintenanceWindow("ghmnt1", start, start.Add(time.Hour))

	testenv.WaitFor(t, 2*time.Minute, "github's maintenance reminder", func() bool {
		return len(reminders(s.Telegram.MessagesTo(ghChat, 0))) >= 1
	})
	got := reminders(s.Telegram.MessagesTo(ghChat, 0))
	require.Len(t, got, 1)
	require.Contains(t, got[0].Text, "Maintenance starts in 5 minutes")
	require.Contains(t, got[0].Text, "Upgrade of Actions runners")
	require.False(t, got[0].At.Before(start.Add(-5*time.Minute)), "sent at %s, before its time", got[0].At)
	require.Contains(t, textsTo(s, ghChat), "Upgrade of Actions runners", "announced too")
	require.NotContains(t, textsTo(s, aiChat), "Upgrade of Actions runners", "the legacy page's followers hear nothing of github")
}
