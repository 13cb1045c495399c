package worker_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// News, not history (issue 28): a chat gets the newest state of a story in
// one message, whatever number of steps the page posted since it last
// heard; every step is told once, in its own message or named in the one
// that told it; only news rings.

const newsIncident = "incnews001"

// newsUpdates are the page's updates i..j-1 of one outage: all
// "investigating" (words only) but the ones statuses names.
func newsUpdates(from, to int, statuses map[int]string) []fakes.Update {
	var out []fakes.Update
	for i := from; i < to; i++ {
		st := "investigating"
		if s, ok := statuses[i]; ok {
			st = s
		}
		out = append(out, fakes.Update{ID: fmt.Sprintf("updnews%03d", i), Status: st, Body: newsBody(i)})
	}
	return out
}

func newsBody(i int) string { return fmt.Sprintf("Step %02d of the outage.", i) }

// newsStack is a stack with a chat in cards mode and one in messages mode.
func newsStack(t *testing.T, extra ...chat) (*testenv.Stack, chat, chat) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	cards, messages := chat{1111, 0}, chat{2222, 0}
	subscribeModes(t, s, cards, messages, extra...)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	return s, cards, messages
}

// subscribeModes subscribes a chat in cards mode, one in messages mode
// and the extra chats.
func subscribeModes(t *testing.T, s *testenv.Stack, cards, messages chat, extra ...chat) {
	t.Helper()
	for _, c := range append([]chat{cards, messages}, extra...) {
		_, err := s.Store.Subscribe(context.Background(), c.id, c.thread, time.Now())
		require.NoError(t, err)
	}
	setSettings(t, s, store.SubscriberKey(cards.id, 0), store.Settings{Mode: store.ModeCards})
	setSettings(t, s, store.SubscriberKey(messages.id, 0), store.Settings{Mode: store.ModeMessages})
}

// toldOnce checks, against the page's updates from..to-1, that each is
// told exactly once in msgs (in its own message or named in another).
func toldOnce(t *testing.T, what string, msgs []fakes.Message, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		n := 0
		for _, m := range msgs {
			n += strings.Count(m.Text, newsBody(i))
		}
		require.Equal(t, 1, n, "%s: update %d told %d times", what, i, n)
	}
}

// settle waits until every delivery closed and a few polls found nothing more.
func settle(t *testing.T, s *testenv.Stack) {
	t.Helper()
	waitDeliveriesClosed(t, s)
	time.Sleep(4 * time.Second)
}

// The first sight of an incident that already has six updates is one card
// (its timeline shows them) in cards mode and one message naming them all
// in messages mode, and nothing else. On the old build: a card and five
// replies (six messages, every one ringing), and six messages.
func TestFirstSightOfSixUpdatesIsOneCard(t *testing.T) {
	s, cards, messages := newsStack(t)
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(0, 6, nil)...)
	testenv.WaitFor(t, time.Minute, "both chats told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) > 0 && len(s.Telegram.MessagesTo(messages.id, 0)) > 0
	})
	settle(t, s)

	msgs := s.Telegram.MessagesTo(cards.id, 0)
	require.Len(t, msgs, 1, "cards mode: one card and nothing else")
	require.Zero(t, s.Telegram.EditCount(msgs[0].ID), "the card is not edited after it was posted")
	toldOnce(t, "the card", msgs, 0, 6)
	require.False(t, msgs[0].Silent, "a new story rings")

	msgs = s.Telegram.MessagesTo(messages.id, 0)
	require.Len(t, msgs, 1, "messages mode: one message")
	toldOnce(t, "the message", msgs, 0, 6)
	require.Contains(t, msgs[0].Text, "5 earlier updates, newest first")
	require.Less(t, strings.Index(msgs[0].Text, newsBody(5)), strings.Index(msgs[0].Text, newsBody(4)), "the newest first")
	require.False(t, msgs[0].Silent)
	t.Logf("the message:\n%s", msgs[0].Text)
}

// A poll that finds four new updates of an incident a chat was told of is
// one edit of its card and one reply naming the four, newest first (cards
// mode), one message (messages mode); the reply is silent, as the status
// did not change. On the old build: four edits and four replies, four
// messages.
func TestPollWithFourUpdatesIsOneReply(t *testing.T) {
	s, cards, messages := newsStack(t)
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(0, 1, nil)...)
	testenv.WaitFor(t, time.Minute, "the first update told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) == 1 && len(s.Telegram.MessagesTo(messages.id, 0)) == 1
	})
	settle(t, s)
	card := s.Telegram.MessagesTo(cards.id, 0)[0]

	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(1, 5, nil)...)
	testenv.WaitFor(t, time.Minute, "the four updates told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) > 1 && len(s.Telegram.MessagesTo(messages.id, 0)) > 1
	})
	settle(t, s)

	msgs := s.Telegram.MessagesTo(cards.id, 0)
	require.Len(t, msgs, 2, "cards mode: the card and one reply")
	require.Equal(t, 1, s.Telegram.EditCount(card.ID), "one edit of the card, to the newest state")
	reply := msgs[1]
	require.Equal(t, card.ID, reply.ReplyTo)
	toldOnce(t, "the reply", msgs[1:], 1, 5)
	require.Contains(t, reply.Text, "3 earlier updates, newest first")
	require.True(t, reply.Silent, "no change of status or impact: silent")
	require.Contains(t, msgs[0].Text, newsBody(4), "the card shows the newest")

	msgs = s.Telegram.MessagesTo(messages.id, 0)
	require.Len(t, msgs, 2, "messages mode: one message for the four")
	toldOnce(t, "messages", msgs, 0, 5)
	require.True(t, msgs[1].Silent)
}

// A chat whose send fails (Telegram 500 for a minute) while three more
// updates arrive, one poll each, gets one message naming all of them when
// Telegram answers again: in cards mode one edit and one reply, in
// messages mode one message; a chat Telegram serves meanwhile gets each
// update as it comes. Nothing is lost or told twice. On the old build:
// the failing chats got four messages each, one per update, in a row.
func TestRetriedChatGetsOneMessageForTheStepsItMissed(t *testing.T) {
	healthy := chat{3333, 0}
	s, cards, messages := newsStack(t, healthy)
	setSettings(t, s, store.SubscriberKey(healthy.id, 0), store.Settings{Mode: store.ModeCards})
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(0, 1, nil)...)
	testenv.WaitFor(t, time.Minute, "the first update told", func() bool {
		for _, c := range []chat{cards, messages, healthy} {
			if len(s.Telegram.MessagesTo(c.id, 0)) != 1 {
				return false
			}
		}
		return true
	})
	settle(t, s)

	var mu sync.Mutex
	failing := true
	fail := func(int) *fakes.APIError {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return fakes.ErrInternal
		}
		return nil
	}
	s.Telegram.FailChat(cards.id, fail)
	s.Telegram.FailChat(messages.id, fail)
	started := time.Now()
	for i := 1; i < 5; i++ { // one poll each; the second is identified: news
		s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(i, i+1, map[int]string{2: "identified", 3: "identified", 4: "identified"})...)
		testenv.WaitFor(t, time.Minute, fmt.Sprintf("update %d to the healthy chat", i), func() bool {
			return len(s.Telegram.MessagesTo(healthy.id, 0)) == i+1
		})
	}
	time.Sleep(time.Until(started.Add(time.Minute)))
	mu.Lock()
	failing = false
	mu.Unlock()
	testenv.WaitFor(t, 5*time.Minute, "the failing chats told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) > 1 && len(s.Telegram.MessagesTo(messages.id, 0)) > 1
	})
	settle(t, s)

	msgs := s.Telegram.MessagesTo(cards.id, 0)
	require.Len(t, msgs, 2, "cards mode: the card and one reply naming the four")
	toldOnce(t, "the failing chat's reply", msgs[1:], 1, 5)
	require.Contains(t, msgs[0].Text, newsBody(4), "the card shows the newest")
	require.False(t, msgs[1].Silent, "a status changed on the way: it rings")

	msgs = s.Telegram.MessagesTo(messages.id, 0)
	require.Len(t, msgs, 2, "messages mode: one message naming the four")
	toldOnce(t, "the failing chat's messages", msgs, 0, 5)

	msgs = s.Telegram.MessagesTo(healthy.id, 0)
	require.Len(t, msgs, 5, "the healthy chat: the card and four replies")
	toldOnce(t, "the healthy chat's replies", msgs[1:], 1, 5)
	rings := 0
	for _, m := range msgs {
		if !m.Silent {
			rings++
		}
	}
	require.Equal(t, 2, rings, "the healthy chat: the card and the status change ring, the words-only steps do not")
	t.Logf("the failing chat's reply:\n%s", s.Telegram.MessagesTo(cards.id, 0)[1].Text)
}

// A worker down while the page posts four updates, one at a time, comes
// back to one poll that finds them all: the same folding, one reply per
// chat in cards mode (one edit), one message in messages mode; nothing is
// sent per missed step. On the old build: four replies, four messages.
func TestCatchUpAfterDowntimeIsOneMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	cards, messages := chat{1111, 0}, chat{2222, 0}
	subscribeModes(t, s, cards, messages)
	stop := s.StartWorker(t)
	s.WaitForBaseline(t)
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(0, 1, nil)...)
	testenv.WaitFor(t, time.Minute, "the first update told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) == 1 && len(s.Telegram.MessagesTo(messages.id, 0)) == 1
	})
	settle(t, s)
	stop()
	for i := 1; i < 5; i++ {
		s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(i, i+1, map[int]string{4: "resolved"})...)
		time.Sleep(1500 * time.Millisecond) // polls would have run meanwhile
	}
	s.StartWorker(t)
	testenv.WaitFor(t, 2*time.Minute, "the missed updates told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) > 1 && len(s.Telegram.MessagesTo(messages.id, 0)) > 1
	})
	settle(t, s)
	msgs := s.Telegram.MessagesTo(cards.id, 0)
	require.Len(t, msgs, 2, "cards mode: the card and one reply for the four")
	require.Equal(t, 1, s.Telegram.EditCount(msgs[0].ID))
	toldOnce(t, "the reply", msgs[1:], 1, 5)
	require.Contains(t, msgs[0].Text, "Resolved", "the card ends resolved")
	require.False(t, msgs[1].Silent, "the end rings")
	msgs = s.Telegram.MessagesTo(messages.id, 0)
	require.Len(t, msgs, 2, "messages mode: one message for the four")
	toldOnce(t, "messages", msgs, 0, 5)
}

// Steps that arrive while an earlier step's pass is still going (a chat's
// sends failing make it last half a minute) do not queue a pass each: the
// newest takes over those still waiting, and a chat gets them in one
// message after the earlier one; the chat whose sends failed (for less
// than a burst of attempts) too: the first when Telegram answers, then one
// for the three. On the old build: four messages each.
func TestStepsDuringAPassAreOneMessage(t *testing.T) {
	slow := chat{4444, 0}
	s, cards, messages := newsStack(t, slow)
	setSettings(t, s, store.SubscriberKey(slow.id, 0), store.Settings{Mode: store.ModeMessages})
	var mu sync.Mutex
	failing := true
	s.Telegram.FailChat(slow.id, func(int) *fakes.APIError {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return fakes.ErrInternal
		}
		return nil
	})
	s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(0, 1, nil)...)
	testenv.WaitFor(t, time.Minute, "the first update told", func() bool {
		return len(s.Telegram.MessagesTo(cards.id, 0)) == 1 && len(s.Telegram.MessagesTo(messages.id, 0)) == 1
	})
	for i := 1; i < 4; i++ { // one poll each, while the first pass waits for the failing chat
		s.Page.AddIncidentUpdates(newsIncident, "Incident with GitHub.com", "critical", newsUpdates(i, i+1, nil)...)
		time.Sleep(2 * time.Second)
	}
	time.Sleep(10 * time.Second)
	mu.Lock()
	failing = false
	mu.Unlock()
	testenv.WaitFor(t, 5*time.Minute, "every chat told the last update", func() bool {
		for _, c := range []chat{cards, messages, slow} {
			n := 0
			for _, m := range s.Telegram.MessagesTo(c.id, 0) {
				n += strings.Count(m.Text, newsBody(3))
			}
			if n == 0 {
				return false
			}
		}
		return true
	})
	settle(t, s)
	msgs := s.Telegram.MessagesTo(cards.id, 0)
	require.Len(t, msgs, 2, "cards mode: the card, then one reply for the three that came during its pass")
	toldOnce(t, "cards", msgs[1:], 1, 4)
	msgs = s.Telegram.MessagesTo(messages.id, 0)
	require.Len(t, msgs, 2, "messages mode: the first, then one for the three")
	toldOnce(t, "messages", msgs, 0, 4)
	// The failing chat: the first, then one for the three; or, when its
	// first send's retries outlast the three polls (a loaded machine), one
	// message for all four. Every step once either way.
	msgs = s.Telegram.MessagesTo(slow.id, 0)
	require.GreaterOrEqual(t, len(msgs), 1)
	require.LessOrEqual(t, len(msgs), 2, "the failing chat: at most the first, then one for the rest")
	toldOnce(t, "the failing chat", msgs, 0, 4)
}
