package activities_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

var openaiAndGithub = pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "github"}}, Legacy: "openai"}

// githubChange is a component change of the github page as detection emits
// it (the contract of issue 22): Page set, every page-given ID scoped.
func githubChange(id string) event.Event {
	return event.Event{Key: pages.Scope("github", "component:"+id+":major_outage:t"), OrderKey: pages.Scope("github", "component:"+id),
		Page: "github", Kind: event.KindComponent, Notify: true, ComponentID: pages.Scope("github", id), ComponentName: "Git " + id,
		OldStatus: "operational", NewStatus: "major_outage"}
}

func legacyChange(id string) event.Event {
	return event.Event{Key: "component:" + id + ":major_outage:t", OrderKey: "component:" + id, Kind: event.KindComponent, Notify: true,
		ComponentID: id, ComponentName: id, OldStatus: "operational", NewStatus: "major_outage"}
}

// Each page's event reaches exactly the chats that follow the page and whose
// filter of that page lets it through; a chat of two pages gets the page's
// name on its recipient, a chat of one page none.
func TestRecipientsPerPage(t *testing.T) {
	w := newWorld(t)
	w.a.Pages = openaiAndGithub
	ctx := context.Background()
	for chat := int64(1); chat <= 5; chat++ {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	// 1: the legacy page alone, as every chat before pages.
	// 2: both pages.
	_, _, err := w.st.FollowPage(ctx, "2", "github")
	require.NoError(t, err)
	// 3: github alone, filtered to git01.
	_, _, err = w.st.FollowPage(ctx, "3", "github")
	require.NoError(t, err)
	_, _, err = w.st.UnfollowPage(ctx, "3", "")
	require.NoError(t, err)
	require.NoError(t, w.st.SetComponents(ctx, "3", []string{"github/git01"}))
	// 4: both pages, a filter of the legacy page's api alone: every github
	// component still.
	_, _, err = w.st.FollowPage(ctx, "4", "github")
	require.NoError(t, err)
	require.NoError(t, w.st.SetComponents(ctx, "4", []string{"api"}))
	// 5: github alone.
	_, _, err = w.st.FollowPage(ctx, "5", "github")
	require.NoError(t, err)
	_, _, err = w.st.UnfollowPage(ctx, "5", "")
	require.NoError(t, err)

	labels := func(e event.Event) map[string]string {
		t.Helper()
		page := recipients(t, w, activities.PageInput{Event: e, Limit: 100, Since: time.Now()})
		out := map[string]string{}
		for _, r := range page.Recipients {
			out[r.Key] = r.Page
		}
		return out
	}
	require.Equal(t, map[string]string{"2": "github", "3": "", "4": "github", "5": ""}, labels(githubChange("git01")))
	require.Equal(t, map[string]string{"2": "github", "4": "github", "5": ""}, labels(githubChange("git02")), "3 filters git01")
	require.Equal(t, map[string]string{"1": "", "2": "openai", "4": "openai"}, labels(legacyChange("api")))
	require.Equal(t, map[string]string{"1": "", "2": "openai"}, labels(legacyChange("files")), "4 filters api")
}

// A chat of two pages reads the page's name in front of the notice; one of
// one page reads it as before.
func TestNoticeNamesItsPage(t *testing.T) {
	w := newWorld(t)
	w.a.Pages = openaiAndGithub
	e := githubChange("git01")
	_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	for _, r := range []activities.Recipient{{Key: "1", ChatID: 1, Page: "github"}, {Key: "2", ChatID: 2}} {
		_, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, Recipient: r})
		require.NoError(t, err)
	}
	named, plain := w.tg.MessagesTo(1, 0), w.tg.MessagesTo(2, 0)
	require.Len(t, named, 1)
	require.Len(t, plain, 1)
	require.True(t, strings.HasPrefix(named[0].Text, "<b>github</b> · 🔔"), named[0].Text)
	require.True(t, strings.HasPrefix(plain[0].Text, "🔔"), plain[0].Text)
}

// An incident of another page is told on a card, as the legacy page's are
// (its key is "github/incident:…"), and the card names its page.
func TestCardOfAnotherPage(t *testing.T) {
	w := newWorld(t)
	w.a.Pages = openaiAndGithub
	ctx := context.Background()
	_, err := w.st.Subscribe(ctx, 9, 0, time.Now())
	require.NoError(t, err)
	e := event.Event{Key: pages.Scope("github", "incident:inc1:u1:v1"), OrderKey: pages.Scope("github", "incident:inc1"), Page: "github",
		Kind: event.KindIncident, At: time.Now(), Notify: true, IncidentID: pages.Scope("github", "inc1"), IncidentName: "Git degraded",
		Impact: "minor", UpdateID: "u1", UpdateStatus: "investigating", Body: "Looking."}
	_, err = w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	_, err = w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key,
		Recipient: activities.Recipient{Key: "9", ChatID: 9, Cards: true, CardRead: true, Page: "github"}})
	require.NoError(t, err)
	cards, err := w.st.Cards(ctx, e.IncidentID, []string{"9"})
	require.NoError(t, err)
	require.Contains(t, cards, "9", "sent as the incident's card")
	msgs := w.tg.MessagesTo(9, 0)
	require.Len(t, msgs, 1)
	require.True(t, strings.HasPrefix(msgs[0].Text, "<b>github</b> · "), msgs[0].Text)
}

// A notice held for the morning summary keeps its page's name for a chat of
// several pages, as the notice would have shown it.
func TestHeldNoticeNamesItsPage(t *testing.T) {
	w := newWorld(t)
	w.a.Pages = openaiAndGithub
	ctx := context.Background()
	now := time.Date(2026, 3, 8, 23, 10, 0, 0, time.UTC)
	w.a.Now = func() time.Time { return now }
	w.a.StartSummary = func(context.Context, activities.SummaryInput) error { return nil }
	e := githubChange("git01")
	require.NoError(t, w.st.SaveNotice(ctx, e, e.Summary(), now))
	q := &notice.Quiet{Start: "22:00", End: "07:00", Hold: true}
	for _, r := range []activities.Recipient{{Key: "1", ChatID: 1, Quiet: q, Page: "github"}, {Key: "2", ChatID: 2, Quiet: q}} {
		_, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, Recipient: r})
		require.NoError(t, err)
	}
	window := time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)
	named, err := w.st.HeldNotices(ctx, "1", window)
	require.NoError(t, err)
	plain, err := w.st.HeldNotices(ctx, "2", window)
	require.NoError(t, err)
	require.Len(t, named, 1)
	require.Len(t, plain, 1)
	require.Equal(t, "github · Git git01", named[0].Title)
	require.Equal(t, "Git git01", plain[0].Title)
}
