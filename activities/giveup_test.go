package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// /why tells a notice that will never come as given up, and why, however
// it ended: the delivery spent its bursts, an operator gave the delivery up
// or skipped the chat, or the chat's settings changed before its retry.
// Before, the last thing written was the failed attempt's "retrying", and
// /why said "Waiting…" for 7 days.
func TestWhyAfterAGiveUp(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	w.a.Now = func() time.Time { return now }
	e := event.Event{Key: "component:api:down", OrderKey: "component:api", Kind: event.KindComponent, ComponentID: "api",
		ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage", At: now.Add(-time.Hour)}
	require.NoError(t, w.st.SaveNotice(ctx, e, e.Summary(), now))
	chats := map[string]int64{"bursts": 5101, "give-up": 5102, "skip": 5103, "settings": 5104}
	keys := map[string]string{}
	for name, chat := range chats {
		_, err := w.st.Subscribe(ctx, chat, 0, now.Add(-2*time.Hour))
		require.NoError(t, err)
		keys[name] = store.SubscriberKey(chat, 0)
	}
	waiting := func(name string) {
		require.NoError(t, w.st.SaveRetries(ctx, []store.Retry{{Event: e.Key, OrderKey: e.OrderKey, EventAt: e.At, Sub: keys[name],
			ChatID: chats[name], Bursts: 3, NextAt: now.Add(-time.Second), Error: "502 Bad Gateway", At: now}}))
		require.NoError(t, w.st.RecordFates(ctx, []store.Fate{{Sub: keys[name], Event: e.Key, Outcome: store.FateWaiting,
			Why: "Telegram failed (502 Bad Gateway); retrying", At: now.Add(-time.Minute)}}))
	}
	why := func(name string) string {
		ans, err := notice.WhyAnswer(ctx, w.st, keys[name], time.UTC, notice.OnePage)
		require.NoError(t, err)
		return ans
	}
	// A German chat reads the same in German (before: the English reasons
	// inside the German frame); the stored Why stays English.
	whyDE := func(name string) string {
		ans, err := notice.WhyAnswerIn(ctx, i18n.Of("de"), w.st, keys[name], time.UTC, notice.OnePage)
		require.NoError(t, err)
		return ans
	}
	storedWhy := func(name string) string {
		fs, err := w.st.LastFates(ctx, keys[name], 1)
		require.NoError(t, err)
		require.Len(t, fs, 1)
		return fs[0].Why
	}

	// The delivery spent its bursts: the ledger's write says so.
	waiting("bursts")
	_, err := w.env.ExecuteActivity(w.a.RecordDelivered, activities.RecordInput{EventKey: e.Key, Settled: []string{keys["bursts"]},
		GaveUp: []activities.GaveUp{{Key: keys["bursts"], Why: "gave up after 12 bursts: 502 Bad Gateway"}}})
	require.NoError(t, err)
	require.Contains(t, why("bursts"), "Not delivered")
	require.Contains(t, why("bursts"), "gave up after 12 bursts: 502 Bad Gateway")
	require.NotContains(t, why("bursts"), "Waiting")
	require.Contains(t, whyDE("bursts"), "Nicht zugestellt")
	require.Contains(t, whyDE("bursts"), "aufgegeben nach 12 Versuchsrunden: 502 Bad Gateway")
	require.NotContains(t, whyDE("bursts"), "gave up")

	// The operator skips one chat.
	waiting("skip")
	now = now.Add(time.Second)
	_, err = w.env.ExecuteActivity(w.a.SkipSubscriber, activities.SkipInput{EventKey: e.Key, Key: keys["skip"]})
	require.NoError(t, err)
	require.Contains(t, why("skip"), "skipped by an operator")
	require.Equal(t, "skipped by an operator (the delivery's skip-subscriber in the Temporal Web UI)", storedWhy("skip"))
	require.Contains(t, whyDE("skip"), "von einem Operator übersprungen")

	// The chat's settings changed before its retry: the retry is dropped.
	waiting("settings")
	require.NoError(t, w.st.SetKinds(ctx, keys["settings"], []event.Kind{event.KindIncident}))
	now = now.Add(time.Second)
	_, err = w.env.ExecuteActivity(w.a.Retries, activities.RetryPageInput{Event: e, Limit: 10, DueBy: now, Recheck: time.Second})
	require.NoError(t, err)
	require.Contains(t, why("settings"), "Not delivered")
	require.NotContains(t, why("settings"), "Waiting")
	require.Contains(t, why("settings"), "not sent: the chat's settings changed before its retry (notice-types)")
	require.Equal(t, "not sent: the chat's settings changed before its retry (notice-types)", storedWhy("settings"))
	require.Contains(t, whyDE("settings"), "nicht gesendet: Die Einstellungen des Chats haben sich vor dem erneuten Versuch geändert — dieser Chat erhält diese Art von Meldung nicht (/subscribe)")

	// The operator gives the delivery up: every chat still waiting hears so.
	waiting("give-up")
	now = now.Add(time.Second)
	v, err := w.env.ExecuteActivity(w.a.DropPending, e.Key)
	require.NoError(t, err)
	var dropped int
	require.NoError(t, v.Get(&dropped))
	require.Equal(t, 1, dropped)
	require.Contains(t, why("give-up"), "given up by an operator")
	require.NotContains(t, why("give-up"), "Waiting")
	require.Equal(t, "given up by an operator (the delivery's give-up in the Temporal Web UI)", storedWhy("give-up"))
	require.Contains(t, whyDE("give-up"), "von einem Operator aufgegeben")
}

// A card's reply whose texts are gone ends the chain without a call (its
// edit was made); before, the step returned no result and no error, and
// the send dereferenced the missing result: a panic in every attempt.
func TestCardReplyWithoutItsTextsEndsTheChain(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := time.Now().UTC()
	const chat = 5201
	_, err := w.st.Subscribe(ctx, chat, 0, now.Add(-time.Hour))
	require.NoError(t, err)
	key := store.SubscriberKey(chat, 0)
	e := event.Event{Key: "incident:gone:u2", OrderKey: "incident:gone", Kind: event.KindIncident, IncidentID: "gone",
		IncidentName: "Gone", UpdateID: "u2", UpdateStatus: "identified", At: now}
	require.NoError(t, w.st.SaveNotice(ctx, e, e.Summary(), now)) // no card texts
	v, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, PerCall: true,
		Step:      &activities.SendStep{Call: "reply", Card: store.IncidentCard{Incident: "gone", Sub: key, MessageID: 77}},
		Recipient: activities.Recipient{Key: key, ChatID: chat}})
	require.NoError(t, err)
	var res activities.SendResult
	require.NoError(t, v.Get(&res))
	require.Nil(t, res.Next, "the chain ends")
	require.Equal(t, store.AsCardEdit, res.As)
	require.Empty(t, w.tg.MessagesTo(chat, 0), "no reply without its text")
}
