package activities

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
)

// The English a delivery stores beside a reason's code is the English
// /why said before the codes, to the byte; a German chat reads the code.
func TestReasonsKeepTheirEnglish(t *testing.T) {
	why := func(code string, n int, args ...string) string { s, _ := because(code, n, args...); return s }
	for _, c := range [][2]string{
		{why("behindEarlier", 0), "behind an earlier update of the same story"},
		{why("unreachable", 0), "could not reach Telegram or MongoDB; retrying"},
		{why("rateLimited", 0, "Seconds", "30"), "Telegram asked to wait (retry_after 30 s)"},
		{why("refused", 0, "Detail", "Bad Request: <x>"), "Telegram refused it: Bad Request: <x>"},
		{why("telegramFailed", 0, "Detail", "502 & co"), "Telegram failed (502 & co); retrying"},
		{why("operatorGaveUp", 0), "given up by an operator (the delivery's give-up in the Temporal Web UI)"},
		{why("operatorSkipped", 0), "skipped by an operator (the delivery's skip-subscriber in the Temporal Web UI)"},
		{droppedBy("k", notice.WhyKinds).Why, "not sent: the chat's settings changed before its retry (notice-types)"},
		{droppedBy("k", notice.WhyFilter).Why, "not sent: the chat's settings changed before its retry (component-filter)"},
		{droppedBy("k", notice.WhySeverity).Why, "not sent: the chat's settings changed before its retry (severity)"},
		{droppedBy("k", notice.WhyNeverTold).Why, "not sent: the chat's settings changed before its retry (never-told)"},
		{droppedBy("k", notice.WhyPage).Why, "not sent: the chat's settings changed before its retry (page)"},
		{notice.ReasonIn(i18n.Of("en"), *burstsSpent("gave up after 12 bursts: 502: {x}")), "gave up after 12 bursts: 502: {x}"},
		{notice.ReasonIn(i18n.Of("de"), *droppedBy("k", notice.WhyPage).reason), "nicht gesendet: Die Einstellungen des Chats haben sich vor dem erneuten Versuch geändert (page)"},
	} {
		if got, want := c[0], c[1]; got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
	if r := burstsSpent("Telegram failed (502); retrying"); r != nil {
		t.Errorf("not a give-up: %+v", r)
	}
}
