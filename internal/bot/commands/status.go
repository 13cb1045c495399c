package commands

import (
	"context"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/notice"
)

func (h *handler) cmdStatus(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	var text string
	if q := r.cmd.Args; q == "" {
		text = statusOverview(pv.Page)
	} else if pv.Page.ComponentsErr != "" {
		text = "Component statuses are unavailable right now. Please try again later."
	} else {
		comps := screens.Components(pv.Page)
		res := ResolveComponent(comps, q)
		switch {
		case res.Match != nil:
			c := *res.Match
			c.Name = screens.ComponentNames(comps)[c.ID] // as /components shows it
			text = componentStatusIn(c, h.zone(ctx, r))
		case len(res.Ambiguous) > 0:
			h.askWhich(ctx, r, q, res.Ambiguous, pv, opViewComponent)
			return
		default:
			text = notFoundReply(q)
		}
	}
	h.reply(ctx, r, h.withStale(ctx, r, text, pv))
}

func (h *handler) cmdComponents(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	h.reply(ctx, r, h.withStale(ctx, r, componentsList(pv.Page), pv))
}

func (h *handler) cmdHistory(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needIncidents)
	if !ok {
		return
	}
	h.reply(ctx, r, h.withStale(ctx, r, historyReplyIn(pv.Page, parseHistoryCount(r.cmd.Args), h.zone(ctx, r)), pv))
}

func (h *handler) cmdUptime(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	if pv.Page.ComponentsErr != "" {
		h.reply(ctx, r, "Component statuses are unavailable right now. Please try again later.")
		return
	}
	now := h.now()
	comps := screens.Components(pv.Page)
	ids := make([]string, 0, len(comps))
	for _, c := range comps {
		if !c.Group {
			ids = append(ids, c.ID)
		}
	}
	// Only the longest window and each component's status when it opened.
	longest := uptimeWindows[len(uptimeWindows)-1].D
	hist, err := h.st.UptimeHistory(ctx, now.Add(-longest), ids)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	ups := ComputeUptime(comps, hist, now)
	if figs, ok := h.uptimes.get(ctx, pv.Page, now); ok {
		ups = PageUptime(ups, figs)
	}
	h.reply(ctx, r, h.withStale(ctx, r, uptimeReply(ups), pv))
}

func (h *handler) cmdInfo(ctx context.Context, r *request) {
	sub, err := h.subscription(ctx, r)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	if r.about != nil {
		if sub == nil {
			h.reply(ctx, r, fmtRef(replyChannelNotSubscribed, esc(r.about.title), esc(r.about.typed)))
			return
		}
		h.reply(ctx, r, "<b>"+esc(r.about.title)+"</b>\n"+infoReply(r.about.id, 0, sub, h.names(ctx, sub))+h.lastFate(ctx, sub))
		return
	}
	h.reply(ctx, r, infoReply(r.chatID, r.thread, sub, h.names(ctx, sub))+h.lastFate(ctx, sub))
}

// zone is the chat's time zone for the times a reply shows (UTC when the
// chat is not subscribed or the store cannot be read).
func (h *handler) zone(ctx context.Context, r *request) *time.Location {
	sub, err := h.subscription(ctx, r)
	if err != nil || sub == nil {
		return time.UTC
	}
	return notice.Zone(sub.Settings)
}

// page gets the page for a command, replying itself when it cannot.
func (h *handler) page(ctx context.Context, r *request, n need) (pageView, bool) {
	pv, err := h.pages.get(ctx, n)
	if err != nil {
		h.reply(ctx, r, ReplyNoPage)
		return pv, false
	}
	return pv, true
}

// withStale adds, when the page is an old snapshot, when it was read,
// in the chat's zone.
func (h *handler) withStale(ctx context.Context, r *request, text string, pv pageView) string {
	if !pv.Stale {
		return text
	}
	return text + "\n\n" + staleNote(pv.FetchedAt, h.zone(ctx, r))
}
