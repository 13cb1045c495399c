package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// storyChat is a subscriber of the story tests with its choices.
type storyChat struct {
	id       int64
	kinds    []event.Kind
	filter   []string
	settings store.Settings
}

func subscribeStoryChats(t *testing.T, s *testenv.Stack, chats ...storyChat) {
	t.Helper()
	ctx := context.Background()
	for _, c := range chats {
		_, err := s.Store.Subscribe(ctx, c.id, 0, time.Now())
		require.NoError(t, err)
		key := store.SubscriberKey(c.id, 0)
		require.NoError(t, s.Store.SetKinds(ctx, key, c.kinds))
		if len(c.filter) > 0 {
			require.NoError(t, s.Store.SetComponents(ctx, key, c.filter))
		}
		setSettings(t, s, key, c.settings)
	}
}

// inbox counts a chat's messages from a point on: the subtests share the
// stack, and an incident naming no component concerns every chat.
type inbox struct {
	s    *testenv.Stack
	chat int64
	from int
}

func newInbox(s *testenv.Stack, chat int64) *inbox {
	return &inbox{s: s, chat: chat, from: len(s.Telegram.MessagesTo(chat, 0))}
}

func (b *inbox) messages() []fakes.Message { return b.s.Telegram.MessagesTo(b.chat, 0)[b.from:] }

// wait waits until the chat has n new messages and returns them.
func (b *inbox) wait(t *testing.T, n int, what string) []fakes.Message {
	t.Helper()
	testenv.WaitFor(t, time.Minute, fmt.Sprintf("%s (chat %d: %d messages)", what, b.chat, n), func() bool {
		return len(b.messages()) >= n
	})
	return b.messages()
}

// wait2 is wait with its own time-out.
func (b *inbox) wait2(t *testing.T, n int, within time.Duration, what string) []fakes.Message {
	t.Helper()
	testenv.WaitFor(t, within, fmt.Sprintf("%s (chat %d: %d messages)", what, b.chat, n), func() bool {
		return len(b.messages()) >= n
	})
	return b.messages()
}

// The stories a chat is told, end to end on the real stack (dev server,
// FerretDB, the fakes over HTTP): once a chat heard the start of an
// incident or of a component's trouble, it hears every later step and the
// end, whatever its threshold or filter say of that step alone; a chat
// told nothing of a story is not told its end; a card always shows the
// incident's latest state.
func TestStories(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const interval = time.Second
	s := testenv.NewStack(t, interval)
	outagesOnly := store.Settings{Mode: store.ModeMessages, MinSeverity: store.SeverityOutage}
	components := []event.Kind{event.KindComponent}
	incidents := []event.Kind{event.KindIncident}
	compOutage := storyChat{id: 501, kinds: components, settings: outagesOnly}
	compAll := storyChat{id: 502, kinds: components, settings: store.Settings{Mode: store.ModeMessages}}
	cardOutage := storyChat{id: 601, kinds: incidents, settings: store.Settings{Mode: store.ModeCards, PinCards: true, MinSeverity: store.SeverityOutage}}
	incAll := storyChat{id: 602, kinds: incidents, settings: store.Settings{Mode: store.ModeMessages}}
	filterAPI := storyChat{id: 701, kinds: incidents, filter: []string{"api0000001"}, settings: store.Settings{Mode: store.ModeMessages}}
	filterChatGPT := storyChat{id: 702, kinds: incidents, filter: []string{"chatgpt001"}, settings: store.Settings{Mode: store.ModeMessages}}
	cards := storyChat{id: 801, kinds: incidents, settings: store.Settings{Mode: store.ModeCards, PinCards: true}}
	subscribeStoryChats(t, s, compOutage, compAll, cardOutage, incAll, filterAPI, filterChatGPT, cards)
	s.StartWorker(t)
	s.WaitForBaseline(t)

	// Item 1, components: major outage -> degraded -> operational. The
	// "outages only" chat joins at the outage, hears the degraded step
	// silently (a later step under its threshold) and the recovery with
	// sound; a second trip that never reaches an outage it never joins.
	t.Run("outages only hears the recovery", func(t *testing.T) {
		outage, all := newInbox(s, compOutage.id), newInbox(s, compAll.id)
		steps := []string{"major_outage", "degraded_performance", "operational", "degraded_performance", "operational"}
		for i, status := range steps {
			s.Page.SetComponent("chatgpt001", "ChatGPT", status)
			all.wait(t, i+1, "step "+status)
		}
		time.Sleep(3 * interval)
		got := outage.messages()
		require.Len(t, got, 3, "the outage, the degraded step and the recovery; nothing of the second, minor trip")
		for i, want := range []struct {
			text   string
			silent bool
		}{{"Operational -&gt; Major Outage", false}, {"Major Outage -&gt; Degraded Performance", true}, {"Degraded Performance -&gt; Operational", false}} {
			require.Contains(t, got[i].Text, want.text)
			require.Equal(t, want.silent, got[i].Silent, "message %d", i)
		}
		require.Len(t, all.messages(), 5)
	})

	// Item 1, incidents: opened major, lowered to minor, resolved. The
	// outage-only chat in cards mode gets the card, the lowered update
	// (silently) and the resolution; the card ends resolved and unpinned.
	t.Run("impact lowered before resolution still resolves the card", func(t *testing.T) {
		outage, all := newInbox(s, cardOutage.id), newInbox(s, incAll.id)
		s.Page.AddIncidentUpdate("inc00002", "Elevated errors", "investigating", "major", "upd0000201", "We are investigating.")
		card := outage.wait(t, 1, "the card")[0]
		testenv.WaitFor(t, 5*time.Second, "the card pinned", func() bool { return s.Telegram.Pinned(card.ID) })
		s.Page.SetIncidentImpact("inc00002", "minor")
		s.Page.AddIncidentUpdate("inc00002", "Elevated errors", "monitoring", "minor", "upd0000202", "Errors are lower now.")
		all.wait(t, 2, "the lowered update")
		s.Page.AddIncidentUpdate("inc00002", "Elevated errors", "resolved", "minor", "upd0000203", "This incident has been resolved.")
		msgs := outage.wait(t, 3, "the card's replies")
		card = msgs[0]
		require.Contains(t, currentText(s, card), "Incident resolved")
		testenv.WaitFor(t, 5*time.Second, "the card unpinned", func() bool { return !s.Telegram.Pinned(card.ID) })
		require.Equal(t, card.ID, msgs[1].ReplyTo)
		require.True(t, msgs[1].Silent, "the minor step of a joined story comes silently")
		require.Equal(t, card.ID, msgs[2].ReplyTo)
		require.False(t, msgs[2].Silent, "the end rings")
		require.Contains(t, msgs[2].Text, "This incident has been resolved.")
	})

	// Item 2: a chat filtered to API joins at an update listing API and
	// stays when later updates list only ChatGPT; a chat filtered to
	// ChatGPT joins at the update that lists it.
	t.Run("filtered chat hears the end when the incident moves to other components", func(t *testing.T) {
		api, chatgpt, all := newInbox(s, filterAPI.id), newInbox(s, filterChatGPT.id), newInbox(s, incAll.id)
		s.Page.AddIncidentUpdate("inc00003", "Errors on the API", "investigating", "minor", "upd0000301", "Looking into API errors.")
		s.Page.ListIncidentComponents("inc00003", "api0000001")
		api.wait(t, 1, "the first update to the API chat")
		s.Page.ListIncidentComponents("inc00003", "chatgpt001")
		s.Page.AddIncidentUpdate("inc00003", "Errors on the API", "identified", "minor", "upd0000302", "It is ChatGPT after all.")
		chatgpt.wait(t, 1, "the second update to the ChatGPT chat")
		s.Page.AddIncidentUpdate("inc00003", "Errors on the API", "resolved", "minor", "upd0000303", "Resolved.")
		all.wait(t, 3, "the resolution to everyone")
		got := api.wait(t, 3, "the API chat's story")
		require.Contains(t, got[2].Text, "Resolved.")
		got = chatgpt.wait(t, 2, "the ChatGPT chat's story")
		require.Contains(t, got[0].Text, "It is ChatGPT after all.")
		time.Sleep(3 * interval)
		require.Len(t, chatgpt.messages(), 2, "not the update from before it joined")
		require.Len(t, api.messages(), 3)
	})

	// Item 3: a typo fix to the first update after the resolution leaves
	// the card resolved; the fix gets one short reply.
	t.Run("typo fix after the resolution keeps the card resolved", func(t *testing.T) {
		box := newInbox(s, cards.id)
		for i, u := range []struct{ status, body string }{
			{"investigating", "We are investigatign."}, {"identified", "Found it."}, {"resolved", "All good again."},
		} {
			s.Page.AddIncidentUpdate("inc00004", "Login failures", u.status, "minor", fmt.Sprintf("upd000040%d", i+1), u.body)
			box.wait(t, i+1, u.status)
		}
		card := box.messages()[0]
		require.Contains(t, currentText(s, card), "Incident resolved")
		latecomer := storyChat{id: 802, kinds: incidents, settings: store.Settings{Mode: store.ModeCards}}
		subscribeStoryChats(t, s, latecomer)
		late := newInbox(s, latecomer.id)
		s.Page.EditIncidentUpdate("inc00004", "upd0000401", "We are investigating.")
		msgs := box.wait(t, 4, "the edit's reply")
		require.Contains(t, msgs[3].Text, "Update edited")
		require.Contains(t, msgs[3].Text, "We are investigating.")
		text := currentText(s, card)
		require.Contains(t, text, "Incident resolved", "the card stays resolved")
		require.Contains(t, text, "Status: Resolved")
		require.Contains(t, text, "All good again.", "its latest text is still the resolution's")
		require.Contains(t, text, "Investigating — We are investigating.", "the timeline shows the fixed text")
		require.NotContains(t, text, "investigatign")
		require.False(t, s.Telegram.Pinned(card.ID))
		time.Sleep(3 * interval)
		require.Len(t, box.messages(), 4, "one reply for the fix, nothing else")
		require.Empty(t, late.messages(), "a chat subscribed after the resolution is not told of a correction")
	})
}

// currentText is a message's text as last edited.
func currentText(s *testenv.Stack, m fakes.Message) string {
	for _, n := range s.Telegram.MessagesTo(m.ChatID, m.ThreadID) {
		if n.ID == m.ID {
			return n.Text
		}
	}
	return ""
}

// Item 1 on the incident.io provider (as status.openai.com is read): a
// component's full outage, its degraded step and its recovery reach the
// "outages only" chat, the middle step silently.
func TestStoriesOnIncidentIO(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStackWith(t, time.Second, testenv.StackOptions{Provider: "incidentio"})
	components := []event.Kind{event.KindComponent}
	outage := storyChat{id: 511, kinds: components, settings: store.Settings{Mode: store.ModeMessages, MinSeverity: store.SeverityOutage}}
	all := storyChat{id: 512, kinds: components, settings: store.Settings{Mode: store.ModeMessages}}
	subscribeStoryChats(t, s, outage, all)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	id := s.IO.ComponentIDs()[0]
	everyone, outages := newInbox(s, all.id), newInbox(s, outage.id)
	for i, status := range []string{"full_outage", "degraded_performance", "operational"} {
		s.IO.SetComponent(id, "", status)
		everyone.wait(t, i+1, status)
	}
	got := outages.wait(t, 3, "the outage, the degraded step and the recovery")
	require.Equal(t, []bool{false, true, false}, []bool{got[0].Silent, got[1].Silent, got[2].Silent})
	require.Contains(t, got[2].Text, "Operational")
}
