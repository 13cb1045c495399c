package activities_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func TestPageNoticeSilent(t *testing.T) {
	night := time.Date(2026, 3, 8, 23, 20, 0, 0, time.UTC)
	day := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		s    store.Settings
		at   time.Time
		want bool
	}{
		{"no quiet hours", store.Settings{}, night, false},
		{"in muted quiet hours", store.Settings{QuietStart: "22:00", QuietEnd: "07:00"}, night, true},
		{"in held quiet hours", store.Settings{QuietStart: "22:00", QuietEnd: "07:00", QuietHold: true}, night, true},
		{"outside quiet hours", store.Settings{QuietStart: "22:00", QuietEnd: "07:00", QuietHold: true}, day, false},
		{"in the chat's zone", store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Asia/Tokyo"}, day, false},
		{"night in the chat's zone", store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Asia/Tokyo"},
			time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, activities.PageNoticeSilent(c.s, c.at))
		})
	}
}

// A page removed in the night, while a chat that follows only it holds
// notices for its morning summary: the chat is told of the removal without
// sound (not rung awake, before: with sound), and the notices it held of
// the page still come in the summary at the window's end: the night's
// news of the page is not lost with the page.
func TestPageRemovedInHeldHoursKeepsTheNightsSummary(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 8, 23, 10, 0, 0, time.UTC)
	w.a.Now = func() time.Time { return now }
	w.a.StartSummary = func(context.Context, activities.SummaryInput) error { return nil }
	w.a.Pages = openaiAndGithub

	const chat = 7301
	_, err := w.st.Subscribe(ctx, chat, 0, now)
	require.NoError(t, err)
	key := store.SubscriberKey(chat, 0)
	_, _, err = w.st.FollowPage(ctx, key, "github")
	require.NoError(t, err)
	_, _, err = w.st.UnfollowPage(ctx, key, "")
	require.NoError(t, err)
	hold, err := store.SetQuietHours("22:00", "07:00")
	require.NoError(t, err)
	_, err = w.st.ChangeSettings(ctx, key, hold.And(store.SetQuietHold(true)))
	require.NoError(t, err)

	// A github outage at night: held.
	e := githubChange("git01")
	require.NoError(t, w.st.SaveNotice(ctx, e, e.Summary(), now))
	q := &notice.Quiet{Start: "22:00", End: "07:00", Hold: true}
	_, err = w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, PerCall: true,
		Recipient: activities.Recipient{Key: key, ChatID: chat, Quiet: q, Page: "github"}})
	require.NoError(t, err)
	require.Empty(t, w.tg.MessagesTo(chat, 0), "held")

	// The operator removes github; the worker records the notice.
	now = now.Add(10 * time.Minute)
	w.a.Pages = pages.Offer{List: []pages.Page{{Name: "openai"}}, Legacy: "openai"}
	n := store.PageNotice{ID: store.PageNoticeID(store.PageRemoved, "github", "v2"), Kind: store.PageRemoved,
		Page: "github", Name: "github", Host: "www.githubstatus.com", At: now}
	require.NoError(t, w.st.AddPageNotice(ctx, n))
	for range 5 {
		v, err := w.env.ExecuteActivity(w.a.TellPageNotice, activities.PageNoticeInput{Notice: n.ID})
		require.NoError(t, err)
		var res activities.PageNoticeResult
		require.NoError(t, v.Get(&res))
		if res.Done {
			break
		}
		now = now.Add(time.Second)
		if res.RetryAt.After(now) {
			now = res.RetryAt
		}
	}
	msgs := w.tg.MessagesTo(chat, 0)
	require.Len(t, msgs, 1, "told once of the removal")
	require.Contains(t, msgs[0].Text, "no longer watches <b>github</b>")
	require.True(t, msgs[0].Silent, "told without sound in the chat's quiet hours")

	// The morning: the summary still tells the github outage.
	window := time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)
	now = window
	_, err = w.env.ExecuteActivity(w.a.SendMorningSummary, activities.SummaryInput{Sub: key, Window: window})
	require.NoError(t, err)
	msgs = w.tg.MessagesTo(chat, 0)
	require.Len(t, msgs, 2, "the removal, then the summary")
	require.True(t, strings.Contains(msgs[1].Text, "Git git01"), "the summary names the held story: %s", msgs[1].Text)
	held, err := w.st.HeldNotices(ctx, key, window)
	require.NoError(t, err)
	require.Empty(t, held, "nothing left held")
}
