package activities_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func recipients(t *testing.T, w *world, in activities.PageInput) activities.RecipientPage {
	t.Helper()
	return runActivity[activities.RecipientPage](t, w, w.a.Recipients, in)
}

func keysOf(rs []activities.Recipient) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Key)
	}
	return out
}

// Item 4: an edited update has its original's time but comes after every
// update handed over before it. A chat still waiting for the original (or
// for a later update handed over before the edit) gets the edit only
// after them; a later update's pending retry does not hold the edit.
func TestEditWaitsForItsOriginalAndTheUpdatesBeforeIt(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.a.Temporal = fakeTemporal{} // every delivery still runs
	t0 := time.Now().Add(-time.Hour)
	ev := func(update, version string, seq int, at time.Time) event.Event {
		return event.Event{Key: "incident:inc1:" + update + ":" + version, OrderKey: "incident:inc1", Seq: seq, At: at, Notify: true,
			Kind: event.KindIncident, IncidentID: "inc1", UpdateID: update, UpdateStatus: "investigating", Predecessor: "x"}
	}
	original, second, edit, later := ev("u1", "v1", 1, t0), ev("u2", "v1", 2, t0.Add(time.Minute)), ev("u1", "v2", 3, t0), ev("u3", "v1", 4, t0.Add(2*time.Minute))
	for _, chat := range []int64{1, 2, 3, 4} {
		_, err := w.st.Subscribe(ctx, chat, 0, t0)
		require.NoError(t, err)
	}
	require.NoError(t, w.st.RecordTold(ctx, *activities.StepOf(original), []string{"1", "2", "3", "4"}, t0))
	retry := func(e event.Event, sub string) store.Retry {
		return store.Retry{Event: e.Key, OrderKey: e.OrderKey, EventAt: e.At, Seq: e.Seq, Sub: sub, NextAt: time.Now().Add(time.Hour), At: time.Now()}
	}
	require.NoError(t, w.st.SaveRetries(ctx, []store.Retry{retry(original, "1"), retry(second, "2"), retry(later, "3")}))

	page := recipients(t, w, activities.PageInput{Event: edit, Limit: 10, Since: time.Now(), Recheck: time.Minute})
	require.Equal(t, []string{"3", "4"}, keysOf(page.Recipients), "1 waits for the original, 2 for the update before the edit")
	require.Equal(t, 2, page.Blocked)
}

// Item 5: whether a notice rings is decided when it goes out, in the
// chat's zone: read at 21:50 Berlin and sent at 22:10, it is silent; read
// at 06:50 and sent at 07:10, it rings; a resolution rings through quiet
// hours unless the chat silences those too.
func TestQuietHoursAreJudgedWhenTheNoticeGoesOut(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	quiet := store.Settings{Mode: store.ModeMessages, QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin"}
	for chat, s := range map[int64]store.Settings{21: quiet, 22: {Mode: store.ModeMessages, QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin", QuietResolutions: true}} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		require.NoError(t, w.st.ReplaceSettings(ctx, store.SubscriberKey(chat, 0), s))
	}
	down := event.Event{Key: "component:c1:major_outage:t", OrderKey: "component:c1", Seq: 1, Kind: event.KindComponent, Notify: true,
		ComponentID: "c1", ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage"}
	up := down
	up.Key, up.Seq, up.OldStatus, up.NewStatus, up.Predecessor = "component:c1:operational:t", 2, "major_outage", "operational", down.Key
	for _, e := range []event.Event{down, up} {
		_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
		require.NoError(t, err)
	}
	clock := time.Date(2026, 12, 1, 21, 50, 0, 0, berlin)
	w.a.Now = func() time.Time { return clock }

	send := func(e event.Event, r activities.Recipient) fakes.Message {
		t.Helper()
		before := len(w.tg.MessagesTo(r.ChatID, 0))
		_, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, Recipient: r})
		require.NoError(t, err)
		msgs := w.tg.MessagesTo(r.ChatID, 0)
		require.Len(t, msgs, before+1)
		return msgs[before]
	}
	page := recipients(t, w, activities.PageInput{Event: down, Limit: 10, Since: time.Now()})
	require.Len(t, page.Recipients, 2)
	clock = time.Date(2026, 12, 1, 22, 10, 0, 0, berlin)
	for _, r := range page.Recipients {
		require.True(t, send(down, r).Silent, "chat %s: read before quiet hours, sent in them", r.Key)
	}
	require.NoError(t, w.st.RecordTold(ctx, *activities.StepOf(down), []string{"21", "22"}, clock))

	clock = time.Date(2026, 12, 2, 6, 50, 0, 0, berlin)
	page = recipients(t, w, activities.PageInput{Event: up, Limit: 10, Since: time.Now()})
	require.Len(t, page.Recipients, 2)
	clock = time.Date(2026, 12, 2, 6, 55, 0, 0, berlin)
	silent := map[string]bool{}
	for _, r := range page.Recipients {
		silent[r.Key] = send(up, r).Silent
	}
	require.Equal(t, map[string]bool{"21": false, "22": true}, silent, "the recovery rings through quiet hours unless resolutions are silenced too")
	clock = time.Date(2026, 12, 2, 7, 10, 0, 0, berlin)
	for _, r := range page.Recipients {
		require.False(t, send(up, r).Silent, "chat %s: read in quiet hours, sent after them", r.Key)
	}

	// A retry read from MongoDB is judged at its send too.
	require.NoError(t, w.st.SaveRetries(ctx, []store.Retry{{Event: up.Key, OrderKey: up.OrderKey, Seq: up.Seq, Sub: "21", ChatID: 21, NextAt: clock, At: clock}}))
	clock = time.Date(2026, 12, 2, 6, 0, 0, 0, berlin)
	v, err := w.env.ExecuteActivity(w.a.Retries, activities.RetryPageInput{Event: up, Limit: 10, DueBy: clock.Add(24 * time.Hour)})
	require.NoError(t, err)
	var due activities.RetryPage
	require.NoError(t, v.Get(&due))
	require.Len(t, due.Retries, 1)
	clock = time.Date(2026, 12, 2, 22, 30, 0, 0, berlin)
	require.False(t, send(up, due.Retries[0].Recipient).Silent, "resolutions ring for chat 21")
	quietDown := activities.Recipient{Key: "21", ChatID: 21, Quiet: &notice.Quiet{Start: "22:00", End: "07:00", Zone: "Europe/Berlin"}}
	require.True(t, send(down, quietDown).Silent, "a step that is not an end is silent at 22:30")
}

// Item 6: a silent notice to a group that became a supergroup stays
// silent in the supergroup, and the chat keeps what it was told.
func TestMovedGroupKeepsSilenceAndItsStories(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.st.Subscribe(ctx, -5, 0, time.Now())
	require.NoError(t, err)
	e := event.Event{Key: "component:c2:degraded_performance:t", OrderKey: "component:c2", Seq: 1, Kind: event.KindComponent, Notify: true,
		ComponentID: "c2", ComponentName: "API", OldStatus: "operational", NewStatus: "degraded_performance"}
	_, err = w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	require.NoError(t, w.st.RecordTold(ctx, store.Step{OrderKey: "incident:earlier", Event: "incident:earlier:u1:v1", Seq: 1}, []string{"-5"}, time.Now()))

	w.tg.FailChat(-5, func(int) *fakes.APIError { return fakes.Upgraded(-1005) })
	_, err = w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, Recipient: activities.Recipient{Key: "-5", ChatID: -5, Silent: true}})
	require.NoError(t, err)
	msgs := w.tg.MessagesTo(-1005, 0)
	require.Len(t, msgs, 1)
	require.True(t, msgs[0].Silent, "silent by the chat's choice, in the supergroup too")

	told, err := w.st.ToldOf(ctx, "incident:earlier", []string{"-1005"})
	require.NoError(t, err)
	require.True(t, told["-1005"].Open, "the supergroup is in the story its group was told")
}

// Item 7: a card sent while MongoDB fails is handed back to the delivery,
// which records it with the ledger: the next update edits that card
// instead of posting (and pinning) a second one.
func TestCardSentButNotRecordedIsRecordedWithTheLedger(t *testing.T) {
	own := testenv.StartOwnMongo(t)
	ctx := context.Background()
	st, err := store.Open(ctx, own.URI, "cards")
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(5 * time.Second) })
	tg := fakes.NewTelegram(testenv.TestToken)
	t.Cleanup(tg.Close)
	var killOnSend atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if strings.HasSuffix(r.URL.Path, "/sendMessage") && killOnSend.CompareAndSwap(true, false) {
			own.Kill(t) // MongoDB is lost while Telegram takes the card
		}
		tg.ServeHTTP(rw, r)
	}))
	t.Cleanup(front.Close)
	sender, err := telegram.NewSender(front.URL, testenv.TestToken, 2*time.Second)
	require.NoError(t, err)
	page := fakes.NewStatuspage()
	t.Cleanup(page.Close)
	a := &activities.Activities{Store: st, Page: statuspage.NewClient(page.URL(), 2*time.Second), Telegram: sender}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)

	_, err = st.Subscribe(ctx, 31, 0, time.Now())
	require.NoError(t, err)
	require.NoError(t, st.ReplaceSettings(ctx, "31", store.Settings{Mode: store.ModeCards, PinCards: true}))
	ev := func(update, status string, seq int) event.Event {
		return event.Event{Key: "incident:inc7:" + update + ":v1", OrderKey: "incident:inc7", Seq: seq, Kind: event.KindIncident, Notify: true,
			At: time.Now(), IncidentID: "inc7", IncidentName: "Errors", Impact: "major", UpdateID: update, UpdateStatus: status, Body: status + " text"}
	}
	first, second := ev("u1", "investigating", 1), ev("u2", "identified", 2)
	for _, e := range []event.Event{first, second} {
		_, err := env.ExecuteActivity(a.PrepareMessage, e)
		require.NoError(t, err)
	}
	killOnSend.Store(true)
	v, err := env.ExecuteActivity(a.Send, activities.SendInput{EventKey: first.Key, Recipient: activities.Recipient{Key: "31", ChatID: 31}})
	require.NoError(t, err, "the card went out: the send succeeded")
	var res activities.SendResult
	require.NoError(t, v.Get(&res))
	require.NotNil(t, res.Card, "the card the send could not record is handed to the delivery")
	own.Start(t)
	_, err = env.ExecuteActivity(a.RecordDelivered, activities.RecordInput{EventKey: first.Key, Keys: []string{"31"}, Step: activities.StepOf(first), Cards: []store.IncidentCard{*res.Card}})
	require.NoError(t, err)

	_, err = env.ExecuteActivity(a.Send, activities.SendInput{EventKey: second.Key, Recipient: activities.Recipient{Key: "31", ChatID: 31}})
	require.NoError(t, err)
	msgs := tg.MessagesTo(31, 0)
	require.Len(t, msgs, 2, "one card and one reply")
	require.Zero(t, msgs[0].ReplyTo)
	require.Equal(t, msgs[0].ID, msgs[1].ReplyTo, "the update is a reply to the first card")
	require.Contains(t, msgs[0].Text, "Identified", "the first card was edited")
	require.True(t, tg.Pinned(msgs[0].ID), "the one card is the pinned one")
}

// A story whose previous step was handed over before the records were
// kept (this step is numbered 1 at most): the ledger says who heard it.
// An "outages only" chat that got the outage hears the degraded step and
// the recovery; one that did not is not told the recovery.
func TestStoriesFromBeforeTheRecordsFollowTheLedger(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, chat := range []int64{41, 42} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
		require.NoError(t, w.st.ReplaceSettings(ctx, store.SubscriberKey(chat, 0), store.Settings{Mode: store.ModeMessages, MinSeverity: store.SeverityOutage}))
	}
	outage := "component:c4:major_outage:t0" // delivered by the version before
	require.NoError(t, w.st.RecordDelivered(ctx, outage, []string{"41"}, time.Now()))
	degraded := event.Event{Key: "component:c4:degraded_performance:t1", OrderKey: "component:c4", Seq: 1, Predecessor: outage,
		Kind: event.KindComponent, Notify: true, ComponentID: "c4", OldStatus: "major_outage", NewStatus: "degraded_performance"}
	page := recipients(t, w, activities.PageInput{Event: degraded, Limit: 10, Since: time.Now()})
	require.Equal(t, []string{"41"}, keysOf(page.Recipients))
	require.True(t, page.Recipients[0].Silent, "a step under the threshold of a story it is in comes silently")

	// With the degraded step recorded, the recovery (Seq 2) reads the record.
	require.NoError(t, w.st.RecordTold(ctx, *activities.StepOf(degraded), []string{"41"}, time.Now()))
	up := degraded
	up.Key, up.Seq, up.Predecessor, up.OldStatus, up.NewStatus = "component:c4:operational:t2", 2, degraded.Key, "degraded_performance", "operational"
	page = recipients(t, w, activities.PageInput{Event: up, Limit: 10, Since: time.Now()})
	require.Equal(t, []string{"41"}, keysOf(page.Recipients))
	require.False(t, page.Recipients[0].Silent, "the end rings")
	require.NoError(t, w.st.RecordTold(ctx, *activities.StepOf(up), []string{"41"}, time.Now()))
	told, err := w.st.ToldOf(ctx, "component:c4", []string{"41"})
	require.NoError(t, err)
	require.False(t, told["41"].Open, "the episode ended for the chat: the next trip is a new story")
}
