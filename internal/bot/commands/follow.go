package commands

import (
	"context"
	"errors"
	"strings"

	"github.com/openai-status-bot/statusbot/internal/i18n"
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
		h.reply(ctx, r, UnsubscribeUsageIn(h.lang(ctx, r), h.offer))
		return
	}
	h.changePages(ctx, r, name, false)
}

// UnsubscribeUsage is UnsubscribeUsageIn in English.
func UnsubscribeUsage(o pages.Offer) string { return UnsubscribeUsageIn(en, o) }

// UnsubscribeUsageIn answers /unsubscribe without "page <name>".
func UnsubscribeUsageIn(c i18n.Catalog, o pages.Offer) string {
	return c.T("follow.unsubscribeUsage", "Pages", message.Escape(o.NameList()))
}

// changePages follows (on) or leaves a page the chat typed.
func (h *handler) changePages(ctx context.Context, r *request, typed string, on bool) {
	c := h.lang(ctx, r)
	if typed == "" {
		sub, err := h.subscription(ctx, r)
		if err != nil {
			h.storeFailed(ctx, r, err)
			return
		}
		h.reply(ctx, r, PagesReplyIn(c, h.offer, sub))
		return
	}
	page, err := h.offer.Lookup(typed)
	if err != nil {
		// typed is not empty here: the one error is a name not on offer.
		h.reply(ctx, r, c.T("follow.noSuchPage", "Query", message.Escape(pages.CutName(typed)), "Pages", message.Escape(h.offer.NameList())))
		return
	}
	if !h.allowed(ctx, r) {
		return
	}
	ep := h.offer.EventPage(page.Name)
	list, changed, err := h.st.ChangeFollow(ctx, r.key(), ep, on, h.offer)
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, NotSubscribedIn(c, r.topic(), r.channel))
	case errors.Is(err, pages.ErrLastPage):
		h.reply(ctx, r, c.T("follow.lastPage."+placeKey(r.topic(), r.channel), "Name", message.Escape(page.Name)))
	case err != nil:
		h.storeFailed(ctx, r, err)
	default:
		h.reply(ctx, r, FollowReplyIn(c, h.offer, page.Name, list, on, changed, r.topic(), r.channel))
	}
}

// FollowReply is FollowReplyIn in English.
func FollowReply(o pages.Offer, name string, list []string, on, changed, topic, channel bool) string {
	return FollowReplyIn(en, o, name, list, on, changed, topic, channel)
}

// FollowReplyIn says what a page command did and what the chat (topic,
// channel) follows now, in c's language: a sentence per place, since
// "this chat", "this topic" and "this channel" inflect differently.
func FollowReplyIn(c i18n.Catalog, o pages.Offer, name string, list []string, on, changed, topic, channel bool) string {
	var id string
	switch {
	case on && changed:
		id = "follow.now."
	case on:
		id = "follow.already."
	case changed:
		id = "follow.left."
	default:
		id = "follow.notFollowing."
	}
	s := c.T(id+placeKey(topic, channel), "Name", message.Escape(name))
	followed := o.LiveNames(list)
	id = "follow.followed"
	if len(followed) > 1 {
		id = "follow.followedSeveral" // and each notice names its page
	}
	return s + "\n" + c.T(id, "Pages", message.Escape(strings.Join(followed, ", ")))
}

// PagesReply is PagesReplyIn in English.
func PagesReply(o pages.Offer, sub *store.Subscriber) string { return PagesReplyIn(en, o, sub) }

// PagesReplyIn answers "/subscribe page" without a name: the pages on
// offer, those followed marked.
func PagesReplyIn(c i18n.Catalog, o pages.Offer, sub *store.Subscriber) string {
	var followed []string
	if sub != nil {
		followed = pages.Followed(sub.Pages)
	}
	lines := []string{c.T("follow.offerTitle")}
	for _, p := range o.List {
		mark := "▫️"
		if sub != nil && pages.Follows(followed, o.EventPage(p.Name)) {
			mark = "✅"
		}
		lines = append(lines, mark+" "+message.Escape(p.Name))
	}
	lines = append(lines, "", c.T("follow.offerFoot"))
	return strings.Join(lines, "\n")
}

// pagesHelpIn is /subscribe's usage for the pages, when several are
// offered, in c's language.
func pagesHelpIn(c i18n.Catalog, o pages.Offer) string {
	if len(o.List) < 2 {
		return ""
	}
	return "\n" + c.T("follow.help", "Pages", message.Escape(o.NameList()))
}
