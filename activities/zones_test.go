package activities_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func maintenanceEvent() event.Event {
	start, end := time.Date(2026, 7, 18, 21, 0, 0, 0, time.UTC), time.Date(2026, 7, 18, 23, 0, 0, 0, time.UTC)
	return event.Event{Key: "incident:m1:u1:v1", OrderKey: "incident:m1", Kind: event.KindMaintenance, At: start.Add(-time.Hour), Notify: true,
		IncidentID: "m1", IncidentName: "Database upgrade", Impact: "maintenance", UpdateID: "u1", UpdateStatus: "scheduled",
		Body: "We will upgrade.", WindowStart: &start, WindowEnd: &end}
}

func sendIn(t *testing.T, w *world, key string, chat int64, zone string) string {
	t.Helper()
	before := len(w.tg.MessagesTo(chat, 0))
	_, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: key,
		Recipient: activities.Recipient{Key: store.SubscriberKey(chat, 0), ChatID: chat, Zone: zone}})
	require.NoError(t, err)
	msgs := w.tg.MessagesTo(chat, 0)
	require.Len(t, msgs, before+1)
	// The times are date-time entities: compare the text behind them.
	return timeTags.ReplaceAllString(msgs[len(msgs)-1].Text, "")
}

var timeTags = regexp.MustCompile(`</?tg-time[^>]*>`)

// Send renders the notice in the recipient's zone, once per worker and
// zone; a text stored before notices kept their event, or a zone the
// worker does not know, goes out in UTC.
func TestSendRendersTheRecipientsZone(t *testing.T) {
	w := newWorld(t)
	e := maintenanceEvent()
	_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)

	require.Contains(t, sendIn(t, w, e.Key, 1, ""), "Window: 2026-07-18 21:00 – 23:00 UTC")
	require.Contains(t, sendIn(t, w, e.Key, 2, "Europe/Berlin"), "Window: 2026-07-18 23:00 – 2026-07-19 01:00 CEST")
	require.Contains(t, sendIn(t, w, e.Key, 3, "Asia/Kolkata"), "Window: 2026-07-19 02:30 – 04:30 IST")
	require.Contains(t, sendIn(t, w, e.Key, 4, "Mars/Olympus"), "Window: 2026-07-18 21:00 – 23:00 UTC")

	before := w.st.RoundTrips()
	require.Contains(t, sendIn(t, w, e.Key, 5, "Europe/Berlin"), "CEST")
	require.EqualValues(t, 1, w.st.RoundTrips()-before, "the zone's text is cached: the one round trip records the send for /why")

	// Prepared before: only the UTC text is stored.
	require.NoError(t, w.st.SaveMessage(context.Background(), "incident:m0:u1:v1", "old text 21:00 UTC", time.Now()))
	require.Equal(t, "old text 21:00 UTC", sendIn(t, w, "incident:m0:u1:v1", 6, "Europe/Berlin"))
}

// The recipients of an event that shows times carry their chat's zone,
// first pages and retries alike; UTC chats and events without times carry
// none.
func TestRecipientsCarryTheirZone(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, chat := range []int64{1, 2} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	c, err := store.SetTimeZone("Europe/Berlin")
	require.NoError(t, err)
	_, err = w.st.ChangeSettings(ctx, "1", c)
	require.NoError(t, err)

	zones := func(e event.Event) map[string]string {
		return recipientsBy(t, w, e, func(r activities.Recipient) string { return r.Zone })
	}
	maint := maintenanceEvent()
	require.Equal(t, map[string]string{"1": "Europe/Berlin", "2": ""}, zones(maint))
	comp := event.Event{Key: "component:api:major_outage:t", Kind: event.KindComponent, ComponentID: "api", NewStatus: "major_outage", Notify: true}
	require.Equal(t, map[string]string{"1": "Europe/Berlin", "2": ""}, zones(comp),
		"a component change in cards mode may be told on a card, whose timeline shows times")

	got, _ := retriesBy(t, w, maint, func(r activities.Recipient) string { return r.Zone }, 1, 2)
	require.Equal(t, map[string]string{"1": "Europe/Berlin", "2": ""}, got)
}

// recipientsBy is f of each recipient of e's first page, by key.
func recipientsBy(t *testing.T, w *world, e event.Event, f func(activities.Recipient) string) map[string]string {
	t.Helper()
	v, err := w.env.ExecuteActivity(w.a.Recipients, activities.PageInput{Event: e, Limit: 10, Since: time.Now()})
	require.NoError(t, err)
	var page activities.RecipientPage
	require.NoError(t, v.Get(&page))
	out := map[string]string{}
	for _, r := range page.Recipients {
		out[r.Key] = f(r)
	}
	return out
}

// retriesBy saves a due retry of e for each chat and returns f of each
// recipient of the due retries, by key, and the recipients.
func retriesBy(t *testing.T, w *world, e event.Event, f func(activities.Recipient) string, chats ...int64) (map[string]string, map[string]activities.Recipient) {
	t.Helper()
	now := time.Now()
	var retries []store.Retry
	for _, c := range chats {
		retries = append(retries, store.Retry{Event: e.Key, OrderKey: e.OrderKey, EventAt: e.At, Sub: store.SubscriberKey(c, 0), ChatID: c,
			NextAt: now.Add(-time.Second), At: now})
	}
	require.NoError(t, w.st.SaveRetries(context.Background(), retries))
	v, err := w.env.ExecuteActivity(w.a.Retries, activities.RetryPageInput{Event: e, Limit: 10, DueBy: time.Now()})
	require.NoError(t, err)
	var due activities.RetryPage
	require.NoError(t, v.Get(&due))
	out, rs := map[string]string{}, map[string]activities.Recipient{}
	for _, r := range due.Retries {
		out[r.Recipient.Key], rs[r.Recipient.Key] = f(r.Recipient), r.Recipient
	}
	return out, rs
}

// An incident card's timeline reads in the chat's zone.
func TestCardTimelineInTheRecipientsZone(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, chat := range []int64{7, 8} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now()) // new chats get cards
		require.NoError(t, err)
	}
	at := time.Date(2026, 11, 30, 14, 2, 0, 0, time.UTC)
	e := event.Event{Key: "incident:inc1:u1:v1", OrderKey: "incident:inc1", Kind: event.KindIncident, At: at, Notify: true,
		IncidentID: "inc1", IncidentName: "Elevated errors", Impact: "minor", UpdateID: "u1", UpdateStatus: "investigating", Body: "Looking."}
	_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
	require.NoError(t, err)
	require.Contains(t, sendIn(t, w, e.Key, 7, "Asia/Tokyo"), "<b>Timeline (Asia/Tokyo)</b>\n• Nov 30 23:02 Investigating")
	require.Contains(t, sendIn(t, w, e.Key, 8, ""), "<b>Timeline (UTC)</b>\n• Nov 30 14:02 Investigating")
}

// The recipients of an event carry their chat's language, first pages
// and retries alike (a retry used to lose it: the retried notice or card
// went out in English), and Send says the notice in it.
func TestRecipientsCarryTheirLanguage(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, chat := range []int64{1, 2} {
		_, err := w.st.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	_, err := w.st.ChangeSettings(ctx, "1", store.SetLanguage("de", true))
	require.NoError(t, err)
	maint := maintenanceEvent()

	lang := func(r activities.Recipient) string { return r.Lang }
	require.Equal(t, map[string]string{"1": "de", "2": ""}, recipientsBy(t, w, maint, lang))

	got, rs := retriesBy(t, w, maint, lang, 1, 2)
	require.Equal(t, map[string]string{"1": "de", "2": ""}, got)
	german := rs["1"]

	_, err = w.env.ExecuteActivity(w.a.PrepareMessage, maint)
	require.NoError(t, err)
	_, err = w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: maint.Key, Recipient: german})
	require.NoError(t, err)
	msgs := w.tg.MessagesTo(1, 0)
	require.NotEmpty(t, msgs)
	text := msgs[len(msgs)-1].Text
	require.Contains(t, text, "🛠 <b>Geplante Wartung</b>")
	require.NotContains(t, text, "Scheduled maintenance")
}
