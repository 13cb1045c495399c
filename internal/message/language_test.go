package message_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
)

// noticeEvents are one notice of each kind a chat in messages mode gets:
// a component change, a new component, an incident update telling an
// earlier one too, a maintenance started, a reminder.
func noticeEvents() map[string]event.Event {
	start, end := t0.Add(2*time.Hour), t0.Add(4*time.Hour)
	inc := incidentEvent("identified", "u2", "We found the cause.", t0.Add(time.Hour))
	inc.Folded = []event.FoldedStep{{UpdateID: "u1", Status: "investigating", At: t0, Body: "We are looking into it."}}
	return map[string]event.Event{
		"component": {Kind: event.KindComponent, ComponentName: "API", OldStatus: "operational", NewStatus: "partial_outage",
			PageURL: "https://status.openai.com"},
		"new component": {Kind: event.KindComponent, ComponentName: "Sora", NewStatus: "operational"},
		"incident":      inc,
		"maintenance": {Kind: event.KindMaintenance, IncidentName: "Database upgrade", UpdateStatus: "in_progress", Impact: "maintenance",
			Body: "Work has begun.", WindowStart: &start, WindowEnd: &end, ComponentNames: []string{"API"},
			URL: "https://status.openai.com/incidents/m1"},
		"reminder": {Kind: event.KindMaintenance, IncidentName: "Database upgrade", WindowStart: &start, WindowEnd: &end,
			Reminder: &event.Reminder{Start: start, Lead: 2 * time.Hour}, URL: "https://status.openai.com/incidents/m1"},
	}
}

// TestNotificationSpeaksTheChatsLanguage: a German chat's notices have
// their frame, statuses and counts in German, the page's words as
// written; English stays what Notification renders.
func TestNotificationSpeaksTheChatsLanguage(t *testing.T) {
	de := i18n.Of("de")
	want := map[string][]string{
		"component":     {"🔔 <b>Status einer Komponente geändert</b>", "<b>API</b>", "Funktioniert -&gt; Teilausfall", ">Statusseite öffnen</a>"},
		"new component": {"<b>Sora</b>", "Neue Komponente, Status: Funktioniert"},
		"incident": {"🚨 <b>Update zur Störung</b>", "<b>Elevated errors on &lt;API&gt;</b>", "Status: Ursache gefunden", "Auswirkung: Schwer",
			"Komponenten: API, ChatGPT", "We found the cause.",
			"<b>Außerdem seit der letzten Nachricht</b> (1 früheres Update, das neueste zuerst):", "Wird untersucht — We are looking into it.",
			">Störung ansehen</a>"},
		"maintenance": {"🛠 <b>Geplante Wartung</b>", "Status: Läuft", "Zeitfenster: ", "Komponenten: API", "Work has begun."},
		"reminder":    {"⏰ <b>Die Wartung beginnt in 2 Stunden</b>", "<b>Database upgrade</b>", "Zeitfenster: ", ">Wartung ansehen</a>"},
	}
	english := []string{"Incident update", "Component status changed", "Scheduled maintenance", "Impact:", "Window:", "Components:",
		"Also since the last message", "View incident", "View maintenance", "Open status page", "Maintenance starts", "Identified", "Partial Outage"}
	for name, e := range noticeEvents() {
		got := message.NotificationOf(de, e, time.UTC)
		for _, w := range want[name] {
			require.Contains(t, got, w, name)
		}
		for _, w := range english {
			require.NotContains(t, got, w, name)
		}
		require.Equal(t, message.NotificationIn(e, time.UTC), message.NotificationOf(i18n.Of("en"), e, time.UTC), name)
	}
}

// TestNotificationEveryLanguage: every catalog renders every kind of
// notice whole: no marker or message id left, within Telegram's limit,
// and not the English text.
func TestNotificationEveryLanguage(t *testing.T) {
	for _, l := range i18n.Languages {
		c := i18n.Of(l.Tag)
		for name, e := range noticeEvents() {
			got := message.NotificationOf(c, e, time.UTC)
			require.NotContains(t, got, "\x00", l.Tag+" "+name)
			require.NotContains(t, got, "notice.", l.Tag+" "+name)
			require.LessOrEqual(t, message.VisibleLength(got), message.MaxLength)
			if l.Tag != i18n.Default {
				require.NotEqual(t, message.Notification(e), got, l.Tag+" "+name)
			}
		}
	}
}

// TestReminderLeadCounts: the lead is counted in each language's plural
// forms (Russian: 1 минуту, 2 минуты, 5 минут, 21 минуту; hours when
// whole).
func TestReminderLeadCounts(t *testing.T) {
	ru := i18n.Of("ru")
	e := noticeEvents()["reminder"]
	for lead, want := range map[time.Duration]string{
		time.Minute:      "через 1 минуту",
		2 * time.Minute:  "через 2 минуты",
		5 * time.Minute:  "через 5 минут",
		21 * time.Minute: "через 21 минуту",
		time.Hour:        "через 1 час",
		3 * time.Hour:    "через 3 часа",
		90 * time.Minute: "через 90 минут",
	} {
		e.Reminder = &event.Reminder{Start: *e.WindowStart, Lead: lead}
		require.Contains(t, message.NotificationOf(ru, e, time.UTC), want, lead.String())
	}
}

// TestNotificationHugeInAnotherLanguage: the caps hold in any language:
// a notice with huge fields stays within the limit, its frame whole.
func TestNotificationHugeInAnotherLanguage(t *testing.T) {
	e := incidentEvent("monitoring", "u1", strings.Repeat("body ", 2000), t0)
	e.IncidentName = strings.Repeat("N", 3000)
	e.UpdateStatus = strings.Repeat("s", 3000)
	e.ComponentNames = []string{strings.Repeat("C", 3000)}
	for _, tag := range []string{"de", "ja", "fa"} {
		got := message.NotificationOf(i18n.Of(tag), e, time.UTC)
		require.LessOrEqual(t, message.VisibleLength(got), message.MaxLength, tag)
		require.Contains(t, got, i18n.Of(tag).T("notice.incident"), tag)
	}
}

// TestCardReplyEarlierInTheChatsLanguage: the lines of the earlier steps
// under a card's reply speak the chat's language too.
func TestCardReplyEarlierInTheChatsLanguage(t *testing.T) {
	e := noticeEvents()["incident"]
	got := message.CardReplyIn(i18n.Of("de"), e, false)
	require.Contains(t, got, "<b>Außerdem seit der letzten Nachricht</b>")
	require.NotContains(t, got, "Also since the last message")
	require.Equal(t, message.CardReply(e, false), message.CardReplyIn(i18n.Of("en"), e, false))
}
