package bot

import (
	"context"

	"github.com/openai-status-bot/statusbot/internal/notice"
)

// cmdWhy answers /why: what became of this chat's last notices (the rule
// is notice.Explain's; the records are the delivery's, store.Fate).
func (h *handler) cmdWhy(ctx context.Context, r *request) {
	sub, ok := h.subscribed(ctx, r)
	if !ok {
		return
	}
	text, err := notice.WhyAnswer(ctx, h.st, sub.Key, notice.Zone(sub.Settings))
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	h.reply(ctx, r, text)
}
