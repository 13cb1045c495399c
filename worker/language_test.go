package worker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// A chat whose language is German gets its incident card and the replies
// under it with a German frame, the page's words as the page wrote them;
// an English chat of the same zone gets today's English card; a Persian
// chat's card keeps the page's update text on a line of its own.
func TestCardsSpeakTheChatsLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	german := storyChat{id: 961, settings: store.Settings{Mode: store.ModeCards, Lang: "de", TimeZone: "Europe/Berlin"}}
	english := storyChat{id: 962, settings: store.Settings{Mode: store.ModeCards, TimeZone: "Europe/Berlin"}}
	persian := storyChat{id: 963, settings: store.Settings{Mode: store.ModeCards, Lang: "fa"}}
	subscribeStoryChats(t, s, german, english, persian)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	de, en, fa := newInbox(s, german.id), newInbox(s, english.id), newInbox(s, persian.id)

	s.Page.AddIncidentUpdate("inc00061", "Elevated errors on the API", "investigating", "major", "upd0006101", "We are investigating elevated errors.")
	card := de.wait(t, 1, "the German card")[0]
	for _, want := range []string{"🚨 <b>Störung</b>", "<b>Elevated errors on the API</b>", "Auswirkung: Schwer · Status: Wird untersucht",
		"<b>Verlauf (Europe/Berlin)</b>", "<b>Neueste:</b> We are investigating elevated errors."} {
		require.Contains(t, card.Text, want)
	}
	require.Contains(t, en.wait(t, 1, "the English card")[0].Text, "Impact: Major · Status: Investigating")
	faCard := fa.wait(t, 1, "the Persian card")[0].Text
	require.Contains(t, faCard, "اثر: بزرگ · وضعیت: در حال بررسی")
	require.Contains(t, faCard, "<b>آخرین:</b>\nWe are investigating elevated errors.", "the page's English on a line of its own")

	s.Page.AddIncidentUpdate("inc00061", "Elevated errors on the API", "identified", "major", "upd0006102", "The cause is a bad deploy.")
	reply := de.wait(t, 2, "the German reply")[1]
	require.Equal(t, card.ID, reply.ReplyTo)
	require.True(t, strings.HasPrefix(reply.Text, "🔄 <b>Ursache gefunden</b>\n\nThe cause is a bad deploy."), reply.Text)
	testenv.WaitFor(t, 10*time.Second, "the German card edited", func() bool {
		now, _ := s.Telegram.Message(german.id, card.ID)
		return strings.Contains(now.Text, "Status: Ursache gefunden")
	})
	require.True(t, strings.HasPrefix(en.wait(t, 2, "the English reply")[1].Text, "🔄 <b>Identified</b>"))
}
