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

// A chat in messages mode whose language is German gets its component
// change, incident and maintenance notices with a German frame (the
// page's words as written, times in its zone); an English chat gets the
// English notices it always got. The old code sent both the English.
func TestNoticesSpeakTheChatsLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	german := storyChat{id: 971, settings: store.Settings{Mode: store.ModeMessages, Lang: "de", TimeZone: "Europe/Berlin"}}
	english := storyChat{id: 972, settings: store.Settings{Mode: store.ModeMessages}}
	subscribeStoryChats(t, s, german, english)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	de, en := newInbox(s, german.id), newInbox(s, english.id)
	german1 := func(n int, what string, want ...string) {
		t.Helper()
		got := de.wait(t, n, what)[n-1].Text
		for _, w := range want {
			require.Contains(t, got, w, what)
		}
		for _, w := range []string{"Component status changed", "Incident update", "Scheduled maintenance", "Impact:", "Window:", "Components:"} {
			require.NotContains(t, got, w, what)
		}
	}
	english1 := func(n int, what string, want ...string) {
		t.Helper()
		got := en.wait(t, n, what)[n-1].Text
		for _, w := range want {
			require.Contains(t, got, w, what)
		}
	}

	s.Page.SetComponent("chatgpt001", "ChatGPT", "partial_outage")
	german1(1, "the German component notice", "🔔 <b>Status einer Komponente geändert</b>\n\n<b>ChatGPT</b>\nFunktioniert -&gt; Teilausfall")
	english1(1, "the English component notice", "🔔 <b>Component status changed</b>\n\n<b>ChatGPT</b>\nOperational -&gt; Partial Outage")

	s.Page.AddIncidentUpdate("inc00071", "Elevated errors on the API", "investigating", "major", "upd0007101", "We are investigating elevated errors.")
	german1(2, "the German incident notice", "🚨 <b>Update zur Störung</b>\n\n<b>Elevated errors on the API</b>\nStatus: Wird untersucht\nAuswirkung: Schwer",
		"\n\nWe are investigating elevated errors.", ">Störung ansehen</a>")
	english1(2, "the English incident notice", "🚨 <b>Incident update</b>\n\n<b>Elevated errors on the API</b>\nStatus: Investigating\nImpact: Major",
		">View incident</a>")

	// Three days ahead: no reminder comes in between.
	start := time.Now().Add(72 * time.Hour).Truncate(time.Hour)
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	s.Page.SetMaintenanceWindow("mnt00071", start, start.Add(2*time.Hour))
	s.Page.AddMaintenanceUpdate("mnt00071", "Database upgrade", "scheduled", "mntupd00071", "We will upgrade the database.")
	german1(3, "the German maintenance notice", "🛠 <b>Geplante Wartung</b>\n\n<b>Database upgrade</b>\nStatus: Geplant\nAuswirkung: Wartung",
		"\nZeitfenster: ", start.In(berlin).Format("2006-01-02 15:04"), start.Add(2*time.Hour).In(berlin).Format("15:04 MST"),
		"We will upgrade the database.")
	english1(3, "the English maintenance notice", "🛠 <b>Scheduled maintenance</b>\n\n<b>Database upgrade</b>\nStatus: Scheduled\nImpact: Maintenance",
		"\nWindow: ", start.UTC().Format("2006-01-02 15:04"), start.Add(2*time.Hour).UTC().Format("15:04")+" UTC")
}
