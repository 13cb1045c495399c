package bot

import (
	"testing"
)

// TELEGRAM_PAID_BROADCAST pays for notices, never for command replies:
// the bot's answers go without allow_paid_broadcast.
func TestCommandRepliesAreNeverPaidBroadcasts(t *testing.T) {
	h := newHarness(t)
	h.cfg.TelegramPaidBroadcast, h.cfg.TelegramRateLimit = true, 500
	h.start()
	got := h.exchange(7, 0, private(7, "/start"))
	if len(got) == 0 {
		t.Fatal("no reply to /start")
	}
	for _, m := range h.tg.MessagesTo(7, 0) {
		if m.Paid {
			t.Fatalf("a command reply went as a paid broadcast: %q", m.Text)
		}
	}
}
