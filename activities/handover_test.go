package activities_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// The hand-over (handover.go) on the real store: a send of step 1 that
// carries the newer step 2 tells both in one message and is recorded as
// telling step 2; step 3 (which took step 2's waiting delivery over, so
// it folds step 2) then names step 2 only to the chat that was not told
// it. Every step once per chat. On the build before, step 3 named step 2
// to every chat, and a send of step 1 told step 1 alone.
func TestHandOverTellsEachChatOnlyWhatItWasNotTold(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.a.Temporal = fakeTemporal{}
	at := time.Now().Add(-time.Hour)
	step := func(seq int, body string) event.Event {
		u := "u" + string(rune('0'+seq))
		return event.Event{Key: "incident:ho1:" + u + ":v1", OrderKey: "incident:ho1", Seq: seq, Kind: event.KindIncident, Notify: true,
			At: at.Add(time.Duration(seq) * time.Minute), IncidentID: "ho1", IncidentName: "Outage", Impact: "major",
			UpdateID: u, UpdateStatus: "investigating", Body: body}
	}
	s1, s2, s3 := step(1, "First words."), step(2, "Second words."), step(3, "Third words.")
	s2.Predecessor = s1.Key
	s3.Predecessor = s2.Key
	s3 = activities.SupersededEvent(s3, activities.SupersededOf(s2)) // step 3 took step 2's waiting delivery over
	for _, e := range []event.Event{s1, s2, s3} {
		_, err := w.env.ExecuteActivity(w.a.PrepareMessage, e)
		require.NoError(t, err)
	}
	passed, ahead := int64(31), int64(32) // reached before the hand-over, and after it
	for _, c := range []int64{passed, ahead} {
		_, err := w.st.Subscribe(ctx, c, 0, at)
		require.NoError(t, err)
		require.NoError(t, w.st.ReplaceSettings(ctx, store.SubscriberKey(c, 0), store.Settings{Mode: store.ModeMessages}))
	}
	send := func(e event.Event, r activities.Recipient, newer *activities.Covered) (activities.SendResult, string) {
		t.Helper()
		before := len(w.tg.MessagesTo(r.ChatID, 0))
		v, err := w.env.ExecuteActivity(w.a.Send, activities.SendInput{EventKey: e.Key, Recipient: r, FoldLater: true, Newer: newer})
		require.NoError(t, err)
		var res activities.SendResult
		require.NoError(t, v.Get(&res))
		msgs := w.tg.MessagesTo(r.ChatID, 0)
		require.Len(t, msgs, before+1, "one message")
		return res, msgs[before].Text
	}
	page := recipients(t, w, activities.PageInput{Event: s1, Limit: 10, Since: time.Now()})
	require.Len(t, page.Recipients, 2)
	byKey := map[int64]activities.Recipient{}
	for _, r := range page.Recipients {
		byKey[r.ChatID] = r
	}
	_, text := send(s1, byKey[passed], nil)
	require.Contains(t, text, "First words.")
	require.NotContains(t, text, "Second words.")
	res, text := send(s1, byKey[ahead], &activities.Covered{Event: s2.Key, Seq: 2})
	require.Contains(t, text, "Second words.", "the chat ahead gets the newest")
	require.Contains(t, text, "First words.", "naming the one it missed")
	require.Equal(t, []activities.Covered{{Event: s2.Key, Seq: 2}}, res.Covers)
	// The delivery's ledger write, as the workflow makes it.
	_, err := w.env.ExecuteActivity(w.a.RecordDelivered, activities.RecordInput{EventKey: s1.Key, Keys: []string{byKey[passed].Key, byKey[ahead].Key},
		OrderKey: s1.OrderKey, EventAt: s1.At, Step: activities.StepOf(s1), Covered: []activities.CoveredBy{{Sub: byKey[ahead].Key, Events: res.Covers}}})
	require.NoError(t, err)

	// Step 2's delivery was taken over: step 3's finds both chats to tell.
	page = recipients(t, w, activities.PageInput{Event: s3, Limit: 10, Since: time.Now()})
	require.Len(t, page.Recipients, 2)
	for _, r := range page.Recipients {
		byKey[r.ChatID] = r
	}
	require.Empty(t, byKey[passed].Told)
	require.Equal(t, s2.Key, byKey[ahead].Told, "the chat ahead was told step 2")
	_, text = send(s3, byKey[passed], nil)
	require.Contains(t, text, "Third words.")
	require.Contains(t, text, "Second words.", "the chat passed before is told step 2 with step 3")
	_, text = send(s3, byKey[ahead], nil)
	require.Contains(t, text, "Third words.")
	require.NotContains(t, text, "Second words.", "the chat ahead heard step 2 already")
	require.NotContains(t, text, "First words.")

	fates, err := w.st.LastFates(ctx, byKey[ahead].Key, 10)
	require.NoError(t, err)
	var as []string
	for _, f := range fates {
		if f.Event == s2.Key {
			as = append(as, f.As)
		}
	}
	require.Equal(t, []string{store.AsHandedOver}, as, "/why: step 2 told together with step 1")
	require.False(t, strings.Contains(text, "earlier update"), "nothing earlier named: %s", text)

	// /why names the steps each send told too in the chat's language (the
	// stored Together stays English); before, a German chat read them in
	// English inside its German line.
	sentFate := func(chat int64, ev string) store.Fate {
		t.Helper()
		fs, err := w.st.LastFates(ctx, byKey[chat].Key, 10)
		require.NoError(t, err)
		for _, f := range fs {
			if f.Event == ev {
				return f
			}
		}
		t.Fatalf("no fate of %s for chat %d", ev, chat)
		return store.Fate{}
	}
	f1 := sentFate(ahead, s1.Key)
	require.Equal(t, "1 later update (Investigating, "+s2.At.UTC().Format("Jan 2 15:04")+" UTC)", f1.Together)
	require.Contains(t, notice.FateIn(i18n.Of("de"), f1, time.UTC),
		"; zusammen gemeldet mit 1 späteren Update (Wird untersucht, "+s2.At.UTC().Format("02.01. 15:04")+" UTC).")
	f3 := sentFate(passed, s3.Key)
	require.Equal(t, "1 earlier update (Investigating, "+s2.At.UTC().Format("Jan 2 15:04")+" UTC)", f3.Together)
	require.Contains(t, notice.FateIn(i18n.Of("de"), f3, time.UTC),
		"; zusammen gemeldet mit 1 früheren Update (Wird untersucht, "+s2.At.UTC().Format("02.01. 15:04")+" UTC).")
	require.Contains(t, notice.FateIn(i18n.Of("ru"), f3, time.UTC),
		"; вместе с 1 более ранним обновлением (Расследуется, "+s2.At.UTC().Format("02.01 15:04")+" UTC).")
}
