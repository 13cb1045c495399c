package commands

import (
	"context"
	"errors"
	"strings"

	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// /subscribe page <name> and /unsubscribe page <name>: which of the pages
// on offer the chat follows (docs/pages.md). The Pages screen of /settings
// does the same with buttons.

func (h *handler) cmdUnsubscribe(ctx context.Context, r *request) {
	name, ok := ParsePageArg(r.cmd.Args)
	if !ok {
		h.reply(ctx, r, UnsubscribeUsage(h.offer))
		return
	}
	h.changePages(ctx, r, name, false)
}

// UnsubscribeUsage answers /unsubscribe without "page <name>".
func UnsubscribeUsage(o pages.Offer) string {
	return "/unsubscribe page &lt;name&gt; stops following one status page (" + message.Escape(o.OnOffer()) + "). " +
		"To stop every notice in this chat, use /stop."
}

// changePages follows (on) or leaves a page the chat typed.
func (h *handler) changePages(ctx context.Context, r *request, typed string, on bool) {
	if typed == "" {
		sub, err := h.subscription(ctx, r)
		if err != nil {
			h.storeFailed(ctx, r, err)
			return
		}
		h.reply(ctx, r, PagesReply(h.offer, sub))
		return
	}
	page, err := h.offer.Lookup(typed)
	if err != nil {
		h.reply(ctx, r, capitalize(message.Escape(err.Error()))+".")
		return
	}
	if !h.allowed(ctx, r) {
		return
	}
	ep := h.offer.EventPage(page.Name)
	var list []string
	var changed bool
	if on {
		list, changed, err = h.st.ChangeFollow(ctx, r.key(), ep, true, h.offer)
	} else {
		list, changed, err = h.st.ChangeFollow(ctx, r.key(), ep, false, h.offer)
	}
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
	case errors.Is(err, pages.ErrLastPage):
		h.reply(ctx, r, "<b>"+message.Escape(page.Name)+"</b> is the only page "+place(r.topic(), r.channel)+" follows. "+
			"Follow another first (/subscribe page &lt;name&gt;), or use /stop to stop every notice.")
	case err != nil:
		h.storeFailed(ctx, r, err)
	default:
		h.reply(ctx, r, FollowReply(h.offer, page.Name, list, on, changed, place(r.topic(), r.channel)))
	}
}

// FollowReply says what a page command did and what the chat follows now.
func FollowReply(o pages.Offer, name string, list []string, on, changed bool, where string) string {
	b := "<b>" + message.Escape(name) + "</b>"
	var s string
	switch {
	case on && changed:
		s = capitalize(where) + " now follows " + b + "."
	case on:
		s = capitalize(where) + " already follows " + b + "."
	case changed:
		s = capitalize(where) + " no longer follows " + b + "; its components left the component filter."
	default:
		s = capitalize(where) + " does not follow " + b + "."
	}
	followed := o.LiveNames(list)
	s += "\nPages followed: " + message.Escape(strings.Join(followed, ", ")) + "."
	if len(followed) > 1 {
		s += " Each notice names its page."
	}
	return s
}

// PagesReply answers "/subscribe page" without a name: the pages on offer,
// those followed marked.
func PagesReply(o pages.Offer, sub *store.Subscriber) string {
	var followed []string
	if sub != nil {
		followed = pages.Followed(sub.Pages)
	}
	lines := []string{"<b>Pages on offer</b>"}
	for _, p := range o.List {
		mark := "▫️"
		if sub != nil && pages.Follows(followed, o.EventPage(p.Name)) {
			mark = "✅"
		}
		lines = append(lines, mark+" "+message.Escape(p.Name))
	}
	lines = append(lines, "", "/subscribe page &lt;name&gt; follows one, /unsubscribe page &lt;name&gt; stops.")
	return strings.Join(lines, "\n")
}

// pagesHelp is /subscribe's usage for the pages, when several are offered.
func pagesHelp(o pages.Offer) string {
	if len(o.List) < 2 {
		return ""
	}
	return "\n/subscribe page &lt;name&gt; — follow one more status page (" + message.Escape(o.OnOffer()) + ")" +
		"\n/unsubscribe page &lt;name&gt; — stop following one" +
		"\n/status, /components, /history, /uptime take a page's name first (/status github); without one they cover this chat's pages"
}
