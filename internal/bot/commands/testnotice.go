package commands

import (
	"context"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// testEvent is the sample a test notice shows, in c's language: an
// incident, the kind every chat gets unless it turned incidents off, at
// the severity that passes every threshold.
func testEvent(c i18n.Catalog, now time.Time) event.Event {
	return event.Event{
		Key: "test", Kind: event.KindIncident, At: now, Notify: true,
		IncidentID: "test", IncidentName: c.T("misc.testName"), Impact: "major",
		UpdateStatus: "investigating", Body: c.T("misc.testBody"),
	}
}

// testNoticeNote says, in c's language, how the test went out, as a real
// notice would.
func testNoticeNote(c i18n.Catalog, s store.Settings, kinds []event.Kind, silent bool) string {
	note := c.T("misc.testLoud")
	if silent {
		note = c.T("misc.testQuiet", "Start", s.QuietStart, "End", s.QuietEnd, "Zone", screens.ZoneName(s))
	}
	wants := len(kinds) == 0
	for _, k := range kinds {
		wants = wants || k == event.KindIncident
	}
	if !wants {
		note += " " + c.T("misc.testNoIncidents")
	}
	return "<i>" + message.Escape(note) + "</i>"
}

// sendTestNotice sends the sample notice where and how a real one would
// go: into the subscription's topic, silent in quiet hours. In a channel
// it is one of the command's replies: removed with the command (its
// readers did not ask for a test).
func (h *handler) sendTestNotice(ctx context.Context, r *request, sub *store.Subscriber) {
	now, c := h.now(), h.lang(ctx, r)
	e := testEvent(c, now)
	// A major incident passes every severity threshold and is no
	// resolution: quiet hours alone decide whether it rings.
	silent := notice.InQuietHours(sub.Settings, now)
	text := message.NotificationOf(c, e, notice.Zone(sub.Settings)) + "\n\n" + testNoticeNote(c, sub.Settings, sub.Kinds, silent)
	if r.cleanup > 0 && r.msg != nil && sub.ChatID == r.chatID {
		text += "\n\n" + cleanupNote(c, r.msg.Chat, r.cleanup)
	}
	if sent := h.post(ctx, outgoing{chatID: sub.ChatID, thread: sub.ThreadID, text: text, class: urgent, silent: silent}); sent != nil && sub.ChatID == r.chatID {
		r.sent = append(r.sent, sent.ID)
	}
}
