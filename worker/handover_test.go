package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Steps that come while the step before is still on its way to the
// chats (its pass takes half a minute at 3 calls a second) are handed over
// to that pass: the chats it has not reached yet get the newest state in
// it, in one message naming the earlier steps (a card posted showing the
// newest, in cards mode), and the newest step's own pass goes only to the
// chats passed before, naming only what each was not told. Every step is
// told once to every chat, in order, in at most two messages; /why says
// "together with". On the build before the hand-over every chat got a
// message for the first step and another for the other two, that one only
// after the whole first pass.
func TestStepDuringAPassReachesTheChatsAheadInThatPass(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	// More chats than a delivery's window of sends (50), at a rate that
	// makes the pass outlast the newer step's start on a loaded machine.
	s.Config.TelegramRateLimit = 3
	const n = 100
	var chats []chat
	cards := map[int64]bool{}
	for i := range n {
		c := chat{int64(7000 + i), 0}
		chats = append(chats, c)
		_, err := s.Store.Subscribe(context.Background(), c.id, 0, time.Now())
		require.NoError(t, err)
		mode := store.ModeMessages
		if i%4 == 0 {
			mode, cards[c.id] = store.ModeCards, true
		}
		setSettings(t, s, store.SubscriberKey(c.id, 0), store.Settings{Mode: mode})
	}
	s.StartWorker(t)
	s.WaitForBaseline(t)

	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(0, 1, nil)...)
	testenv.WaitFor(t, time.Minute, "the first step's pass to begin", func() bool { return s.Telegram.MessageCount() > 0 })
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(1, 2, nil)...)
	time.Sleep(4 * time.Second) // well within the first pass (100 chats at 3 calls a second)
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(2, 3, nil)...)
	testenv.WaitFor(t, 5*time.Minute, "every chat shows the third step", func() bool {
		for _, c := range chats {
			if !shows(s, c, newsBody(2)) {
				return false
			}
		}
		return true
	})
	settle(t, s)

	var ahead []chat           // reached by the first pass after the hand-over
	var firstPassEnd time.Time // the first step's last message
	var secondStart time.Time  // the first message of the newest step's own pass
	middle := 0                // chats told the second step in the first pass, the third after
	for _, c := range chats {
		msgs := s.Telegram.MessagesTo(c.id, 0)
		require.NotEmpty(t, msgs)
		require.LessOrEqual(t, len(msgs), 2, "chat %d: at most what the first pass told it, then the rest", c.id)
		if cards[c.id] {
			card := currentText(s, msgs[0])
			require.Contains(t, card, newsBody(2), "chat %d: its card shows the newest", c.id)
			if len(msgs) == 2 {
				require.Equal(t, msgs[0].ID, msgs[1].ReplyTo, "chat %d: the reply is under the card", c.id)
				require.Contains(t, msgs[1].Text, newsBody(2))
				require.Equal(t, 1, s.Telegram.EditCount(msgs[0].ID), "chat %d: the card edited once", c.id)
			} else {
				require.Zero(t, s.Telegram.EditCount(msgs[0].ID), "chat %d: a card posted with the newest is not edited", c.id)
			}
		} else {
			toldOnce(t, "messages", msgs, 0, 3)
			if len(msgs) == 2 {
				require.Contains(t, msgs[0].Text, newsBody(0), "chat %d: in order", c.id)
				require.NotContains(t, msgs[0].Text, newsBody(2))
				require.Contains(t, msgs[1].Text, newsBody(2))
				if strings.Contains(msgs[0].Text, newsBody(1)) {
					middle++ // told the second step in the first pass: the third names nothing earlier
				}
			} else {
				require.Less(t, strings.Index(msgs[0].Text, newsBody(2)), strings.Index(msgs[0].Text, newsBody(1)), "chat %d: the newest first", c.id)
			}
		}
		if len(msgs) == 1 {
			ahead = append(ahead, c)
			firstPassEnd = later(firstPassEnd, msgs[0].At)
		} else {
			firstPassEnd = later(firstPassEnd, msgs[0].At)
			if secondStart.IsZero() || msgs[1].At.Before(secondStart) {
				secondStart = msgs[1].At
			}
		}
	}
	t.Logf("%d of %d chats got the newest in the first pass (one message), %d in messages mode the second step in it and the third after; the first pass ended %v, the next began %v",
		len(ahead), n, middle, firstPassEnd.Format(time.TimeOnly), secondStart.Format(time.TimeOnly))
	require.GreaterOrEqual(t, len(ahead), 10, "the chats ahead of the first pass get the newest in it")
	require.Less(t, len(ahead), n, "the chats passed before the hand-over get the newest step in its own pass")
	if !secondStart.IsZero() {
		require.False(t, secondStart.Before(firstPassEnd.Add(-time.Second)), "the second step's own pass follows the first pass (order per chat)")
	}

	// /why: a later step told together with the first.
	var why string
	for _, c := range ahead {
		if cards[c.id] {
			continue
		}
		fates, err := s.Store.LastFates(context.Background(), store.SubscriberKey(c.id, 0), 10)
		require.NoError(t, err)
		for _, f := range fates {
			if f.As == store.AsHandedOver {
				why = notice.Fate(f, time.UTC)
			}
		}
		break
	}
	require.Contains(t, why, "together with an earlier update of the same story")

	if os.Getenv("UPDATE_REPLAY_HISTORIES") != "" {
		exportHandOver(t, s)
	}
}

// shows: the chat's messages (its card as last edited) tell text.
func shows(s *testenv.Stack, c chat, text string) bool {
	for _, m := range s.Telegram.MessagesTo(c.id, c.thread) {
		if strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// exportHandOver writes the histories of the delivery that took the
// hand-over and the one that offered it (make histories).
func exportHandOver(t *testing.T, s *testenv.Stack) {
	dir := filepath.Join(testenv.RepoRoot(), "workflows", "testdata")
	var took, offered string
	for _, id := range s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
		for _, e := range history(t, s, id) {
			if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "HandOverSending" {
				offered = id
			}
			if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == activities.UpdateHandOver {
				took = id
			}
		}
	}
	require.NotEmpty(t, took, "the delivery that took the hand-over")
	require.NotEmpty(t, offered, "the delivery that offered it")
	export(t, s, took, filepath.Join(dir, "delivery_took_hand_over.json"))
	export(t, s, offered, filepath.Join(dir, "delivery_offered_hand_over.json"))
}
