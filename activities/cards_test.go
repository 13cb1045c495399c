package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// A recipient read back from a retry (no mode known) in cards mode: the
// first update is a card; the page editing that update's text edits the
// card and says so in a reply; the resolution edits it and replies.
func TestSendCardEditedUpdateAndResolution(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.st.Subscribe(ctx, 9, 0, time.Now())
	require.NoError(t, err)
	at := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	ev := func(update, version, status, body string) event.Event {
		return event.Event{Key: "incident:inc1:" + update + ":" + version, OrderKey: "incident:inc1", Kind: event.KindIncident, At: at,
			Notify: true, IncidentID: "inc1", IncidentName: "Elevated errors", Impact: "minor", UpdateID: update, UpdateStatus: status, Body: body}
	}
	for _, e := range []event.Event{
		ev("u1", "v1", "investigating", "We are looking into it."),
		ev("u1", "v2", "investigating", "We are looking into errors on the API."),
		ev("u2", "v1", "resolved", "Fixed."),
	} {
		_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
		require.NoError(t, err)
		_, err = sendTo(t, w, e.Key, 9)
		require.NoError(t, err)
	}
	msgs := w.tg.MessagesTo(9, 0)
	require.Len(t, msgs, 3)
	card := msgs[0]
	require.Zero(t, card.ReplyTo)
	require.Contains(t, card.Text, "Incident resolved")
	require.Equal(t, 2, w.tg.EditCount(card.ID))
	require.Equal(t, card.ID, msgs[1].ReplyTo)
	require.Contains(t, msgs[1].Text, "Update edited")
	require.Contains(t, msgs[1].Text, "errors on the API")
	require.Equal(t, card.ID, msgs[2].ReplyTo)
	require.Contains(t, msgs[2].Text, "Resolved")

	cards, err := w.st.Cards(ctx, "inc1", []string{store.SubscriberKey(9, 0)})
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2"}, cards["9"].Updates)
	require.Equal(t, card.ID, cards["9"].MessageID)
}
