package commands

import (
	"context"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func (h *handler) cmdStatus(ctx context.Context, r *request) {
	typed, q := SplitPageArg(h.offer, r.cmd.Args)
	pv, ok := h.page(ctx, r, h.cover(ctx, r, typed), pageset.Components)
	if !ok {
		return
	}
	var text string
	c := h.lang(ctx, r)
	if q == "" {
		text = sections(pv.Parts, func(p pageset.Part) string { return statusOverviewIn(c, titled(p, len(pv.Parts))) }, false)
	} else if pv.Page.ComponentsErr != "" {
		text = c.T("reply.componentsDown")
	} else {
		comps := screens.Components(pv.Page)
		res := ResolveIn(comps, pv.Parts, q)
		switch {
		case res.Match != nil:
			comp := *res.Match
			comp.Name = screens.ComponentNames(comps)[comp.ID] // as /components shows it
			text = componentStatusIn(c, comp, h.zone(ctx, r))
		case len(res.Ambiguous) > 0:
			h.askWhich(ctx, r, q, res.Ambiguous, pv, opViewComponent)
			return
		default:
			text = notFoundReplyIn(c, q)
		}
	}
	h.reply(ctx, r, h.withStale(ctx, r, text, pv))
}

func (h *handler) cmdComponents(ctx context.Context, r *request) {
	typed, _ := SplitPageArg(h.offer, r.cmd.Args)
	pv, ok := h.page(ctx, r, h.cover(ctx, r, typed), pageset.Components)
	if !ok {
		return
	}
	h.reply(ctx, r, h.withStale(ctx, r, sections(pv.Parts, func(p pageset.Part) string { return componentsListIn(h.lang(ctx, r), p.Page) }, true), pv))
}

func (h *handler) cmdHistory(ctx context.Context, r *request) {
	typed, rest := SplitPageArg(h.offer, r.cmd.Args)
	pv, ok := h.page(ctx, r, h.cover(ctx, r, typed), pageset.Incidents)
	if !ok {
		return
	}
	n, loc, c := parseHistoryCount(rest), h.zone(ctx, r), h.lang(ctx, r)
	h.reply(ctx, r, h.withStale(ctx, r, sections(pv.Parts, func(p pageset.Part) string { return historyReplyIn(c, p.Page, n, loc) }, true), pv))
}

func (h *handler) cmdUptime(ctx context.Context, r *request) {
	typed, _ := SplitPageArg(h.offer, r.cmd.Args)
	pv, ok := h.page(ctx, r, h.cover(ctx, r, typed), pageset.Components)
	if !ok {
		return
	}
	if pv.Page.ComponentsErr != "" {
		h.reply(ctx, r, h.lang(ctx, r).T("reply.componentsDown"))
		return
	}
	now := h.now()
	// The merged page's IDs are those component history keeps (scoped).
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
	// The page's own figures name its bare IDs: the legacy page alone.
	if len(pv.Parts) == 1 && pv.Parts[0].EventPage == "" {
		if figs, ok := h.pages.Uptimes(pv.Parts[0].Name).Get(ctx, pv.Page, now); ok {
			ups = PageUptime(ups, figs)
		}
	}
	h.reply(ctx, r, h.withStale(ctx, r, UptimeByPageIn(h.lang(ctx, r), ups, pv.Parts), pv))
}

func (h *handler) cmdInfo(ctx context.Context, r *request) {
	sub, err := h.subscription(ctx, r)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	if r.about != nil {
		if sub == nil {
			h.reply(ctx, r, channelNotSubscribedIn(h.lang(ctx, r), r.about))
			return
		}
		h.reply(ctx, r, "<b>"+message.Escape(r.about.title)+"</b>\n"+infoReplyIn(h.lang(ctx, r), r.about.id, 0, sub, h.names(ctx, sub))+h.pagesLine(h.lang(ctx, r), sub)+h.lastFate(ctx, h.lang(ctx, r), sub))
		return
	}
	h.reply(ctx, r, infoReplyIn(h.lang(ctx, r), r.chatID, r.thread, sub, h.names(ctx, sub))+h.pagesLine(h.lang(ctx, r), sub)+h.lastFate(ctx, h.lang(ctx, r), sub))
}

// zone is the chat's time zone for the times a reply shows (UTC when the
// chat is not subscribed or the store cannot be read).
func (h *handler) zone(ctx context.Context, r *request) *time.Location {
	sub, err := h.readOnce(ctx, r)
	if err != nil || sub == nil {
		return time.UTC
	}
	return notice.Zone(sub.Settings)
}

// readOnce is the subscription for the reads of a command that changes
// nothing (/status, /history, ...): its page, its zone, a stale note's
// zone come from one read of the store.
func (h *handler) readOnce(ctx context.Context, r *request) (*store.Subscriber, error) {
	if !r.read.done {
		r.read.sub, r.read.err = h.subscription(ctx, r)
		r.read.done = true
	}
	return r.read.sub, r.read.err
}

// page gets the covered pages for a command, replying itself when it
// cannot read any.
func (h *handler) page(ctx context.Context, r *request, cover []string, n pageset.Need) (pageset.View, bool) {
	pv, err := h.pages.Get(ctx, cover, n)
	if err != nil {
		h.reply(ctx, r, h.lang(ctx, r).T("reply.noPage"))
		return pv, false
	}
	return pv, true
}

// cover is what a command covers (Covered): the page typed, else the
// chat's pages.
func (h *handler) cover(ctx context.Context, r *request, typed string) []string {
	if typed != "" {
		return []string{typed}
	}
	sub, err := h.readOnce(ctx, r)
	if err != nil {
		sub = nil // the default page, rather than no answer
	}
	r.noPage = sub != nil && len(h.offer.Live(sub.Pages)) == 0
	return Covered(h.offer, sub, "")
}

// withStale adds, when the page is an old snapshot, when it was read,
// in the chat's zone, and which of the covered pages could not be read.
func (h *handler) withStale(ctx context.Context, r *request, text string, pv pageset.View) string {
	c := h.lang(ctx, r)
	if r.noPage {
		text = NotFollowedNoteIn(c, h.offer) + "\n\n" + text
	}
	if len(pv.Missing) > 0 {
		text += "\n\n" + c.T("reply.missing", "Pages", message.Escape(strings.Join(pv.Missing, ", ")))
	}
	if !pv.Stale {
		return text
	}
	return text + "\n\n" + staleNoteIn(c, pv.FetchedAt, h.zone(ctx, r))
}

// sections shows each covered page's reply one after the other, each
// under its name when named (or when there are several) and cut to its
// share of the reply budget; one page's reply alone as it always was.
func sections(parts []pageset.Part, render func(pageset.Part) string, named bool) string {
	if len(parts) == 1 {
		return render(parts[0])
	}
	out := make([]string, len(parts))
	share := screens.ReplyBudget/len(parts) - 40
	for i, p := range parts {
		s := render(p)
		if named {
			s = "📄 <b>" + message.Escape(p.Name) + "</b>\n" + s
		}
		if screens.UTF16Len(s) > share {
			s = message.Truncate(s, share)
		}
		out[i] = s
	}
	return strings.Join(out, "\n\n")
}

// titled is the part's page with a title for its overview: among several,
// one the page does not name itself is called by its short name (alone it
// keeps the overview's own default).
func titled(p pageset.Part, parts int) *statuspage.Page {
	if parts < 2 || strings.TrimSpace(p.Page.Name) != "" {
		return p.Page
	}
	c := *p.Page
	c.Name = p.Name
	return &c
}

// pagesLine names the pages a subscription follows, when several are on
// offer ("" otherwise, and for a chat not subscribed).
func (h *handler) pagesLine(c i18n.Catalog, sub *store.Subscriber) string {
	if sub == nil {
		return ""
	}
	if l := screens.PagesLineIn(c, sub.Pages, h.offer); l != "" {
		return "\n" + l
	}
	return ""
}

// NotFollowedNote heads a reply about the default page to a chat that
// follows no page the bot still watches: the page shown is not followed.
func NotFollowedNote(o pages.Offer) string { return NotFollowedNoteIn(en, o) }

// NotFollowedNoteIn is NotFollowedNote in c's language.
func NotFollowedNoteIn(c i18n.Catalog, o pages.Offer) string {
	return c.T("reply.notFollowed", "Page", message.Escape(o.Default().Name))
}
