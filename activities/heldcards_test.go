package activities_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// cardStory is one incident's updates told to a group in cards mode that
// pins its cards.
type cardStory struct {
	w     *world
	group int64
	key   string
	inc   string
}

func newCardStory(t *testing.T, w *world, group int64, inc string) *cardStory {
	t.Helper()
	ctx := context.Background()
	key := store.SubscriberKey(group, 0)
	_, err := w.st.Subscribe(ctx, group, 0, time.Now())
	require.NoError(t, err)
	require.NoError(t, w.st.ReplaceSettings(ctx, key, store.Settings{Mode: store.ModeCards, PinCards: true}))
	return &cardStory{w: w, group: group, key: key, inc: inc}
}

// tell prepares the update and runs its chain of Sends to the group
// (quiet: its quiet hours, nil for none); it returns the first Send's
// result and the chain's calls.
func (c *cardStory) tell(t *testing.T, update, status string, quiet *notice.Quiet) (first activities.SendResult, calls int) {
	t.Helper()
	at := time.Now().UTC()
	e := event.Event{Key: "incident:" + c.inc + ":" + update + ":v1", OrderKey: "incident:" + c.inc, Kind: event.KindIncident, At: at,
		Notify: true, IncidentID: c.inc, IncidentName: "Elevated errors", Impact: "major", UpdateID: update, UpdateStatus: status, Body: "Now " + status + "."}
	_, err := c.w.env.ExecuteActivity(c.w.a.PrepareMessage, e)
	require.NoError(t, err)
	in := activities.SendInput{EventKey: e.Key, PerCall: true, Ticket: activities.TicketOf(e.At, e.Key, c.key),
		Recipient: activities.Recipient{Key: c.key, ChatID: c.group, Quiet: quiet}}
	v, err := c.w.env.ExecuteActivity(c.w.a.Send, in)
	require.NoError(t, err)
	require.NoError(t, v.Get(&first))
	calls = c.w.tg.Calls("sendMessage") + c.w.tg.Calls("editMessageText") + c.w.tg.Calls("pinChatMessage") + c.w.tg.Calls("unpinChatMessage")
	if first.Next != nil {
		time.Sleep(time.Until(first.NotBefore))
		chain(t, c.w, *first.Next)
	}
	return first, c.w.tg.Calls("sendMessage") + c.w.tg.Calls("editMessageText") + c.w.tg.Calls("pinChatMessage") + c.w.tg.Calls("unpinChatMessage") - calls
}

// quietNow is a held window around now.
func quietNow() *notice.Quiet {
	now := time.Now().UTC()
	clock := func(t time.Time) string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) }
	return &notice.Quiet{Start: clock(now.Add(-time.Minute)), End: clock(now.Add(3 * time.Minute)), Hold: true}
}

// A resolution held in quiet hours still ends the card: the card is
// edited to the resolved state and unpinned at night (silent calls: no
// message), the reply waits for the morning summary. Before, the hold
// came before any card code: the card stayed pinned, showing the incident
// open, after the summary too.
func TestHeldResolutionEndsTheCard(t *testing.T) {
	w := newWorld(t)
	var started []activities.SummaryInput
	w.a.StartSummary = func(_ context.Context, in activities.SummaryInput) error {
		started = append(started, in)
		return nil
	}
	c := newCardStory(t, w, -31, "inc31")
	c.tell(t, "u1", "investigating", nil)
	msgs := w.tg.MessagesTo(c.group, 0)
	require.Len(t, msgs, 1, "the card")
	card := msgs[0]
	require.True(t, w.tg.Pinned(card.ID))

	q := quietNow()
	res, calls := c.tell(t, "u2", "identified", q)
	require.Equal(t, store.AsHeld, res.As)
	require.Equal(t, 1, calls, "the card's edit, nothing else")
	res, calls = c.tell(t, "u3", "resolved", q)
	require.Equal(t, store.AsHeld, res.As)
	require.Equal(t, 2, calls, "the card's edit and its unpin")

	require.Len(t, w.tg.MessagesTo(c.group, 0), 1, "no message at night")
	shown, _ := w.tg.Message(c.group, card.ID)
	require.Contains(t, shown.Text, "Resolved", "the card shows the resolution")
	require.False(t, w.tg.Pinned(card.ID), "unpinned at the resolution")
	require.Equal(t, 2, w.tg.EditCount(card.ID))
	cards, err := w.st.Cards(context.Background(), c.inc, []string{c.key})
	require.NoError(t, err)
	require.False(t, cards[c.key].Pinned)
	require.Equal(t, "incident:inc31:u3:v1", cards[c.key].Event)
	require.Equal(t, []string{"u1"}, cards[c.key].Updates, "the replies were not sent: the summary tells them")

	require.NotEmpty(t, started)
	held, err := w.st.HeldNotices(context.Background(), c.key, started[0].Window)
	require.NoError(t, err)
	require.Len(t, held, 2, "both notices held for the summary")
	fates, err := w.st.LastFates(context.Background(), c.key, 5)
	require.NoError(t, err)
	require.Contains(t, notice.Fate(fates[0], time.UTC), "Held for the morning summary", "the held notice's /why")
}

// A reopened incident's card is pinned again (the chat pins its cards):
// before, the card unpinned at the resolution stayed unpinned for the
// rest of the incident.
func TestReopenedIncidentsCardIsPinnedAgain(t *testing.T) {
	w := newWorld(t)
	c := newCardStory(t, w, -32, "inc32")
	c.tell(t, "u1", "investigating", nil)
	card := w.tg.MessagesTo(c.group, 0)[0]
	c.tell(t, "u2", "resolved", nil)
	require.False(t, w.tg.Pinned(card.ID), "unpinned at the resolution")
	_, calls := c.tell(t, "u3", "investigating", nil)
	require.Equal(t, 3, calls, "edit, reply, pin")
	require.True(t, w.tg.Pinned(card.ID), "pinned again at the reopening")
	cards, err := w.st.Cards(context.Background(), c.inc, []string{c.key})
	require.NoError(t, err)
	require.True(t, cards[c.key].Pinned)
	_, calls = c.tell(t, "u4", "monitoring", nil)
	require.Equal(t, 2, calls, "a later update of the open incident: edit, reply (no pin again)")
	c.tell(t, "u5", "resolved", nil)
	require.False(t, w.tg.Pinned(card.ID), "unpinned at the second resolution")
	fates, err := w.st.LastFates(context.Background(), c.key, 5)
	require.NoError(t, err)
	require.Equal(t, store.AsReply, fates[0].As)
}

// A group that became a supergroup answers the pin of its new card
// "migrated" (as Telegram answers every call to the old chat): the chat
// moves (store.MigrateChatAt) and the card goes to the supergroup, pinned
// there. Before, the pin's failure was taken for missing rights: the
// subscription stayed on the dead group, and every later call failed.
func TestMigratedAnswerToAPinMovesTheChat(t *testing.T) {
	w := newWorld(t)
	const supergroup = int64(-1000033)
	c := newCardStory(t, w, -33, "inc33")
	w.tg.FailChat(c.group, func(attempt int) *fakes.APIError {
		if attempt == 1 {
			return nil // the card goes out; the group moves before its pin
		}
		return fakes.Upgraded(supergroup)
	})
	res, _ := c.tell(t, "u1", "investigating", nil)
	require.Equal(t, "pin", res.Next.Step.Call, "first the card; its pin then moves the chat")
	msgs := w.tg.MessagesTo(supergroup, 0)
	require.Len(t, msgs, 1, "the card in the supergroup")
	require.True(t, w.tg.Pinned(msgs[0].ID), "pinned there")
	sub, err := w.st.Subscription(context.Background(), store.SubscriberKey(supergroup, 0))
	require.NoError(t, err)
	require.True(t, sub.Settings.PinCards, "the subscription moved with its settings")
	_, err = w.st.Subscription(context.Background(), c.key)
	require.ErrorIs(t, err, store.ErrNotSubscribed)
}

// The same for the unpin of a resolved card: the chat moves and the
// resolution goes to the supergroup (a fresh card there, resolved, not
// pinned). Before, the unpin's "migrated" was logged as missing rights.
func TestMigratedAnswerToAnUnpinMovesTheChat(t *testing.T) {
	w := newWorld(t)
	const supergroup = int64(-1000035)
	c := newCardStory(t, w, -35, "inc35")
	c.tell(t, "u1", "investigating", nil)
	w.tg.FailChat(c.group, func(attempt int) *fakes.APIError {
		if attempt <= 2 {
			return nil // the card's edit and the reply under it
		}
		return fakes.Upgraded(supergroup)
	})
	c.tell(t, "u2", "resolved", nil)
	msgs := w.tg.MessagesTo(supergroup, 0)
	require.Len(t, msgs, 1, "the resolved card in the supergroup")
	require.Contains(t, msgs[0].Text, "Incident resolved")
	require.False(t, w.tg.Pinned(msgs[0].ID))
	_, err := w.st.Subscription(context.Background(), store.SubscriberKey(supergroup, 0))
	require.NoError(t, err, "the subscription moved")
}
