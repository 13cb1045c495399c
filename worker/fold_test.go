package worker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// The card is the incident, end to end: an incident affecting two
// components gives a chat in cards mode one card and its replies, the
// components' statuses on the card (and their changes in its timeline),
// and no message of their own, their recovery included; a chat in messages
// mode gets a message per change as before; a component outage no
// incident covers is still its own notice.
func TestCardTellsComponents(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const interval = time.Second
	s := testenv.NewStack(t, interval)
	s.Page.SetComponent("files00001", "Files", "operational")
	cards := storyChat{id: 901, settings: store.Settings{Mode: store.ModeCards}}
	messages := storyChat{id: 902, settings: store.Settings{Mode: store.ModeMessages}}
	subscribeStoryChats(t, s, cards, messages)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	card, plain := newInbox(s, cards.id), newInbox(s, messages.id)

	s.Page.AddIncidentUpdate("inc00009", "Errors on the API and ChatGPT", "investigating", "major", "upd0000901", "We are investigating.")
	s.Page.AffectComponent("inc00009", "api0000001", "partial_outage")
	s.Page.AffectComponent("inc00009", "chatgpt001", "major_outage")
	plain.wait(t, 3, "the incident and both components in messages mode")
	first := card.wait(t, 1, "the card")[0]
	testenv.WaitFor(t, 10*time.Second, "both statuses on the card", func() bool {
		text := currentText(s, first)
		return strings.Contains(text, "API: Partial Outage") && strings.Contains(text, "ChatGPT: Major Outage")
	})

	s.Page.AddIncidentUpdate("inc00009", "Errors on the API and ChatGPT", "identified", "major", "upd0000902", "A bad deploy; rolling back.")
	card.wait(t, 2, "the reply")
	s.Page.SetComponent("api0000001", "API", "operational")
	plain.wait(t, 5, "the update and the API's recovery in messages mode")
	testenv.WaitFor(t, 10*time.Second, "the API's recovery on the card", func() bool {
		return strings.Contains(currentText(s, first), "API: Operational")
	})
	s.Page.SetComponent("chatgpt001", "ChatGPT", "operational")
	s.Page.AddIncidentUpdate("inc00009", "Errors on the API and ChatGPT", "resolved", "major", "upd0000903", "This incident has been resolved.")
	plain.wait(t, 7, "ChatGPT's recovery and the resolution in messages mode")
	card.wait(t, 3, "the resolution's reply")
	time.Sleep(4 * interval) // nothing more comes

	msgs := card.messages()
	require.Len(t, msgs, 3, "one card and two replies: %s", texts(msgs))
	final := currentText(s, msgs[0])
	for _, want := range []string{"Incident resolved", "API: Operational", "ChatGPT: Operational",
		"API: Partial Outage", "ChatGPT: Major Outage"} { // the last two: notes in the timeline
		require.Contains(t, final, want)
	}
	for _, m := range msgs[1:] {
		require.Equal(t, msgs[0].ID, m.ReplyTo)
		require.NotContains(t, m.Text, "Component status changed")
	}
	var comps int
	for _, m := range plain.messages() {
		if strings.Contains(m.Text, "Component status changed") {
			comps++
		}
	}
	require.Equal(t, 4, comps, "messages mode: a message per component change: %s", texts(plain.messages()))

	// No incident covers it: its own notice, in cards mode too.
	s.Page.SetComponent("files00001", "Files", "major_outage")
	got := card.wait(t, 4, "the uncovered outage")[3]
	require.Contains(t, got.Text, "Component status changed")
	require.Contains(t, got.Text, "Files")
	require.Zero(t, got.ReplyTo)
	t.Logf("the card as rendered:\n%s", final)
}

func texts(msgs []fakes.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

// A component's outage no incident covered went out as a message of its
// own; an incident listing it came next; its recovery is then a message of
// its own too, as its outage was, not only a silent edit of the card (the
// chat that heard "API is down" hears "API is back"). Before, the
// recovery folded into the card: no message at all.
func TestRecoveryOfAnOutageToldApartIsToldApart(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const interval = time.Second
	s := testenv.NewStack(t, interval)
	cards := storyChat{id: 904, settings: store.Settings{Mode: store.ModeCards}}
	subscribeStoryChats(t, s, cards)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	box := newInbox(s, cards.id)

	s.Page.SetComponent("api0000001", "API", "major_outage")
	outage := box.wait(t, 1, "the outage, no incident covering it")[0]
	require.Contains(t, outage.Text, "Component status changed")
	s.Page.AddIncidentUpdate("inc00011", "Errors on the API", "investigating", "major", "upd0001101", "We are investigating.")
	s.Page.AffectComponent("inc00011", "api0000001", "major_outage")
	box.wait(t, 2, "the card")
	waitDeliveriesClosed(t, s)

	s.Page.SetComponent("api0000001", "API", "operational")
	got := box.wait(t, 3, "the recovery, a message of its own")[2]
	require.Contains(t, got.Text, "Component status changed")
	require.Contains(t, got.Text, "API")
	require.Zero(t, got.ReplyTo)
	time.Sleep(4 * interval) // nothing more comes
	require.Len(t, box.messages(), 3, "%s", texts(box.messages()))
}
