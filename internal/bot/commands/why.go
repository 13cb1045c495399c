package commands

import (
	"context"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// cmdWhy answers /why: what became of this chat's last notices (the rule
// is notice.Explain's; the records are the delivery's, store.Fate).
func (h *handler) cmdWhy(ctx context.Context, r *request) {
	sub, ok := h.subscribed(ctx, r)
	if !ok {
		return
	}
	label := func(event string) string {
		page, _ := pages.Unscope(event)
		return h.offer.Label(sub.Pages, page)
	}
	text, err := notice.WhyAnswerIn(ctx, h.lang(ctx, r), h.st, sub.Key, notice.Zone(sub.Settings), label)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	h.reply(ctx, r, text)
}

// lastFate is /info's line on the chat's last notice, in c's language
// ("" when there is none, or the store cannot tell: /info answers all the
// same).
func (h *handler) lastFate(ctx context.Context, c i18n.Catalog, sub *store.Subscriber) string {
	if sub == nil {
		return ""
	}
	fates, err := h.st.LastFates(ctx, sub.Key, 1)
	if err != nil || len(fates) == 0 {
		return ""
	}
	return "\n" + c.T("info.lastNotice", "Fate", notice.FateIn(c, fates[0], notice.Zone(sub.Settings)))
}
