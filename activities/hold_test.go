package activities_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// In a held window the send calls no Bot API: it records the notice (a
// retry records it once), starts the window's summary, and /why says so;
// the summary, at the window's end, is one message, and only one.
func TestSendHoldsThenOneSummary(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 8, 23, 10, 0, 0, time.UTC)
	w.a.Now = func() time.Time { return now }
	var started []activities.SummaryInput
	w.a.StartSummary = func(_ context.Context, in activities.SummaryInput) error {
		started = append(started, in)
		return nil
	}
	const chat = 4401
	_, err := w.st.Subscribe(ctx, chat, 0, now)
	require.NoError(t, err)
	key := store.SubscriberKey(chat, 0)
	down := event.Event{Key: "component:api:down", OrderKey: "component:api", Kind: event.KindComponent, ComponentID: "api",
		ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage", At: now.Add(-time.Minute)}
	up := event.Event{Key: "component:api:up", OrderKey: "component:api", Kind: event.KindComponent, ComponentID: "api",
		ComponentName: "API", OldStatus: "major_outage", NewStatus: "operational", Predecessor: down.Key, At: now}
	for _, e := range []event.Event{down, up} {
		require.NoError(t, w.st.SaveNotice(ctx, e, e.Summary(), now))
	}
	q := &notice.Quiet{Start: "22:00", End: "07:00", Hold: true}
	window := time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)
	for _, k := range []string{down.Key, down.Key, up.Key} { // the second: a retry
		for _, perCall := range []bool{true, false} { // and deliveries from before call-per-send
			v, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: k, PerCall: perCall,
				Recipient: activities.Recipient{Key: key, ChatID: chat, Quiet: q}})
			require.NoError(t, err)
			var res activities.SendResult
			require.NoError(t, v.Get(&res))
			require.Equal(t, store.AsHeld, res.As)
			require.Nil(t, res.Next)
		}
	}
	require.Empty(t, w.tg.MessagesTo(chat, 0), "nothing sent in a held window")
	require.Len(t, started, 6)
	for _, in := range started {
		require.Equal(t, activities.SummaryInput{Sub: key, Window: window}, activities.SummaryInput{Sub: in.Sub, Window: in.Window.UTC()})
	}
	held, err := w.st.HeldNotices(ctx, key, window)
	require.NoError(t, err)
	require.Len(t, held, 2, "a retry holds the notice once")
	fates, err := w.st.LastFates(ctx, key, 5)
	require.NoError(t, err)
	require.Len(t, fates, 2)
	require.Contains(t, notice.Fate(fates[0], time.UTC), "Held for the morning summary (quiet hours)")

	now = window
	for range 2 {
		_, err := w.env.ExecuteActivity(w.a.SendMorningSummary, activities.SummaryInput{Sub: key, Window: window})
		require.NoError(t, err)
	}
	msgs := w.tg.MessagesTo(chat, 0)
	require.Len(t, msgs, 1, "one summary")
	require.Contains(t, msgs[0].Text, "<b>Resolved meanwhile</b>")
	held, err = w.st.HeldNotices(ctx, key, window)
	require.NoError(t, err)
	require.Empty(t, held, "forgotten once told")

	// Outside the window: sent as usual, a turn after the summary.
	now = now.Add(2 * time.Second)
	v, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: up.Key, PerCall: true,
		Recipient: activities.Recipient{Key: key, ChatID: chat, Quiet: q}})
	require.NoError(t, err)
	var res activities.SendResult
	require.NoError(t, v.Get(&res))
	require.Nil(t, res.Next, "the chat's turn has come")
	require.Len(t, w.tg.MessagesTo(chat, 0), 2)
}

// A morning summary is a call like a notice: it takes the chat's turn
// (and the bot's slot), so right after another call in the chat it waits
// its turn instead of going over the chat's limit, and then goes once.
func TestMorningSummaryTakesItsChatsTurn(t *testing.T) {
	w := newWorld(t)
	w.tg.RealLimits()
	ctx := context.Background()
	window := time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)
	now := window
	w.a.Now = func() time.Time { return now }
	const chat = 4402
	_, err := w.st.Subscribe(ctx, chat, 0, now.Add(-time.Hour))
	require.NoError(t, err)
	key := store.SubscriberKey(chat, 0)
	require.NoError(t, w.st.HoldNotice(ctx, store.Held{Sub: key, Window: window, Event: "component:api:down", Story: "component:api",
		Title: "API", Summary: "Component change: API, Operational → Major outage", Opens: true, EventAt: window.Add(-time.Hour), At: window.Add(-time.Hour)}))

	// Another call in the chat has just taken its turn.
	c, err := w.st.ClaimCall(ctx, chat, "2026-03-09T06:59:59.000Z|component:x|"+key+"|first", telegram.BudgetOf(chat), now)
	require.NoError(t, err)
	require.True(t, c.OK)

	_, err = w.env.ExecuteActivity(w.a.SendMorningSummary, activities.SummaryInput{Sub: key, Window: window})
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae, "the summary waits for the chat's turn")
	require.Equal(t, activities.ErrTypeNotYet, ae.Type())
	require.Empty(t, w.tg.MessagesTo(chat, 0), "no call before the chat's turn")
	held, err := w.st.HeldNotices(ctx, key, window)
	require.NoError(t, err)
	require.Len(t, held, 1, "nothing forgotten while waiting")

	now = now.Add(1100 * time.Millisecond)
	v, err := w.env.ExecuteActivity(w.a.SendMorningSummary, activities.SummaryInput{Sub: key, Window: window})
	require.NoError(t, err)
	var sent bool
	require.NoError(t, v.Get(&sent))
	require.True(t, sent)
	require.Len(t, w.tg.MessagesTo(chat, 0), 1, "one summary, once its turn came")
}

// A bad night reaches the chat whole. 45 components down and back and 2
// incidents (94 held notices) are one summary Telegram accepts (before:
// 4,737 characters, refused "message is too long" as permanent, and the
// night lost); a night too long even condensed goes in parts, each its own
// turn of the chat: a retry (the next part's turn not yet come) goes on
// with what is left, told once; nothing held is left behind.
func TestMorningSummaryOfABadNight(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		components, incidents, updates int
		several                        bool
	}{
		{"45 components and 2 incidents", 45, 2, 2, false},
		{"400 components and 30 incidents", 400, 30, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// On the real clock, as the fake's limits are: each part waits
			// for the chat's next second.
			w := newWorld(t)
			w.tg.RealLimits()
			ctx := context.Background()
			window := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
			const chat = 4403
			_, err := w.st.Subscribe(ctx, chat, 0, window.Add(-12*time.Hour))
			require.NoError(t, err)
			key := store.SubscriberKey(chat, 0)
			night := badNightHeld(key, window, tc.components, tc.incidents, tc.updates)
			for _, h := range night {
				require.NoError(t, w.st.HoldNotice(ctx, h))
			}
			parts := len(activities.MorningSummary(night, time.UTC, false))
			require.Equal(t, tc.several, parts > 1, "%d parts", parts)
			sentParts := 0
			for attempt := 1; ; attempt++ {
				require.Less(t, attempt, 4*parts+4, "the summary ends")
				if sentParts > 0 {
					w.env.SetHeartbeatDetails(sentParts) // as the server hands them to a retry
				}
				v, err := w.env.ExecuteActivity(w.a.SendMorningSummary, activities.SummaryInput{Sub: key, Window: window})
				sentParts = len(w.tg.MessagesTo(chat, 0))
				if err == nil {
					var sent bool
					require.NoError(t, v.Get(&sent))
					require.True(t, sent)
					break
				}
				var ae *temporal.ApplicationError
				require.ErrorAs(t, err, &ae)
				require.Equal(t, activities.ErrTypeNotYet, ae.Type(), "only the next part's turn holds it back: %v", err)
				time.Sleep(ae.NextRetryDelay())
			}
			msgs := w.tg.MessagesTo(chat, 0)
			require.Len(t, msgs, parts)
			all := ""
			for i, m := range msgs {
				require.LessOrEqual(t, utf8.RuneCountInString(m.Text), 4096, "Telegram accepts it")
				require.Equal(t, i > 0, strings.Contains(m.Text, "Morning summary</b> (continued)"), "part %d: %s", i, m.Text[:80])
				all += m.Text + "\n"
			}
			for i := range tc.components {
				require.Equal(t, 1, strings.Count(all, fmt.Sprintf("Component %03d", i)), "component %d named once", i)
			}
			for i := range tc.incidents {
				require.Equal(t, 1, strings.Count(all, fmt.Sprintf("Elevated errors %03d<", i)), "incident %d named once", i)
			}
			left, err := w.st.HeldNotices(ctx, key, window)
			require.NoError(t, err)
			require.Empty(t, left, "every held notice told and forgotten")
			fates, err := w.st.LastFates(ctx, key, 40) // what /why reads is a few
			require.NoError(t, err)
			require.Len(t, fates, min(40, len(night)), "/why knows they went in the summary")
			for _, f := range fates {
				require.Equal(t, store.AsSummary, f.As)
			}
		})
	}
}

func badNightHeld(key string, window time.Time, components, incidents, updates int) []store.Held {
	at := window.Add(-8 * time.Hour)
	var held []store.Held
	add := func(story, title, summary string, opens, ends bool) {
		at = at.Add(10 * time.Second)
		held = append(held, store.Held{Sub: key, Window: window, Event: fmt.Sprintf("%s:%d", story, len(held)), Story: story,
			Title: title, Summary: summary, Opens: opens, Ends: ends, EventAt: at, At: at})
	}
	for i := range incidents {
		for u := range updates {
			add(fmt.Sprintf("incident:%d", i), fmt.Sprintf("Elevated errors %03d", i), fmt.Sprintf("Incident update: Elevated errors, Investigating (%d)", u), u == 0, false)
		}
	}
	for _, ends := range []bool{false, true} {
		for i := range components {
			add(fmt.Sprintf("component:c%d", i), fmt.Sprintf("Component %03d", i), "Component change: down or up", !ends, ends)
		}
	}
	return held
}

// A notice held at the very end of its window, by a worker whose clock is
// behind (the summary has already gone out), is not left behind nor told
// in a second one-item summary: its send finds the window closed, takes
// it back and sends it as usual. Before: held after the summary's read,
// it started a second summary of one notice, or was deleted unsent with
// the window's notices.
func TestANoticeHeldAsItsSummaryGoesIsToldOnce(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	window := time.Now().UTC().Truncate(time.Minute).Add(-time.Minute) // a window ends on a minute
	q := &notice.Quiet{Start: window.Add(-8 * time.Hour).Format("15:04"), End: window.Format("15:04"), Hold: true}
	var starts int
	w.a.StartSummary = func(context.Context, activities.SummaryInput) error { starts++; return nil }
	const chat = 4404
	_, err := w.st.Subscribe(ctx, chat, 0, window.Add(-12*time.Hour))
	require.NoError(t, err)
	key := store.SubscriberKey(chat, 0)
	r := activities.Recipient{Key: key, ChatID: chat, Quiet: q}
	mk := func(id string, at time.Time) event.Event {
		e := event.Event{Key: "component:api:" + id, OrderKey: "component:api", Kind: event.KindComponent, ComponentID: "api",
			ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage", At: at}
		require.NoError(t, w.st.SaveNotice(ctx, e, e.Summary(), at))
		return e
	}
	call := func(in activities.SendInput) activities.SendResult {
		v, err := w.env.ExecuteActivity(w.a.Send, in)
		require.NoError(t, err)
		var res activities.SendResult
		require.NoError(t, v.Get(&res))
		return res
	}
	send := func(e event.Event) activities.SendResult {
		return call(activities.SendInput{EventKey: e.Key, PerCall: true, Recipient: r})
	}
	// Held in the night, by a clock an hour before the window's end.
	clock := window.Add(-time.Hour)
	w.a.Now = func() time.Time { return clock }
	require.Equal(t, store.AsHeld, send(mk("down", clock)).As)
	require.Equal(t, 1, starts)

	// The summary goes out at the window's end.
	w.a.Now = nil
	_, err = w.env.ExecuteActivity(w.a.SendMorningSummary, activities.SummaryInput{Sub: key, Window: window})
	require.NoError(t, err)
	require.Len(t, w.tg.MessagesTo(chat, 0), 1)

	// A worker whose clock is 2 s behind the window's end holds the next.
	clock = window.Add(-2 * time.Second)
	w.a.Now = func() time.Time { return clock }
	late := send(mk("late", clock))
	require.NotEqual(t, store.AsHeld, late.As, "the window's summary has gone: sent as usual")
	require.Equal(t, 1, starts, "no second summary")
	for i := 0; late.Next != nil; i++ { // its turn in the chat, a second after the summary's
		require.Less(t, i, 10, "not before %v (clock %v, now %v)", late.NotBefore, clock, time.Now())
		clock = late.NotBefore.Add(time.Millisecond)
		late = call(*late.Next)
	}
	msgs := w.tg.MessagesTo(chat, 0)
	require.Len(t, msgs, 2)
	require.NotContains(t, msgs[1].Text, "Morning summary")
	left, err := w.st.HeldNotices(ctx, key, window)
	require.NoError(t, err)
	require.Empty(t, left, "nothing left held")
}
