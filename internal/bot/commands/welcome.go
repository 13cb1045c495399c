package commands

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// What a newcomer sees: /start, the greeting when the bot joins a group,
// the answer to plain text, and /stop keeping the settings.

// ReplyPlainText answers text that is no command in a private chat (in
// English; the catalogs have it in every language).
var ReplyPlainText = en.T("reply.plainText")

// GroupGreeting is posted when the bot is added to a group.
var GroupGreeting = en.T("greeting.one")

// keptDays is store.KeepFor in days, for replies.
var keptDays = strconv.Itoa(int(store.KeepFor.Hours() / 24))

func (h *handler) cmdStart(ctx context.Context, r *request) {
	created, restored, err := h.st.Restart(ctx, r.chatID, r.thread, h.now())
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	sub, err := h.subscription(ctx, r)
	if err != nil || sub == nil {
		h.storeFailed(ctx, r, errors.Join(err, store.ErrNotSubscribed))
		return
	}
	if created && restored == nil {
		h.startLanguage(ctx, r, sub)
	} else {
		// Resolved before the subscription was back: again, with the
		// language it kept (a chosen one stays).
		r.langDone = false
	}
	lang := h.lang(ctx, r)
	var parts []pageset.Part
	if pv, ok := h.pages.Stored(ctx, Covered(h.offer, sub, ""), pageset.Components); ok {
		parts = pv.Parts
	}
	text := StartReplyIn(lang, created, restored, r.topic(), r.channel, parts, h.offer, pages.Followed(sub.Pages))
	if r.channel {
		h.reply(ctx, r, text) // no buttons for every reader to see
		return
	}
	kb := screens.New(sub, nil)
	h.replyMarkup(ctx, r, text, &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{
		{kb.Button(lang.T("btn.settings"), "m"), kb.Button(lang.T("btn.components"), "g", "0")},
	}})
}

// StartReply answers /start with one page on offer: what the chat gets,
// the status now (page nil: not known), and where to go next.
func StartReply(created bool, restored *store.Kept, topic, channel bool, page *statuspage.Page) string {
	var parts []pageset.Part
	if page != nil {
		parts = []pageset.Part{{Name: page.Name, Page: page}}
	}
	return StartReplyFor(created, restored, topic, channel, parts, pages.Offer{}, nil)
}

// StartReplyFor is StartReplyIn in English.
func StartReplyFor(created bool, restored *store.Kept, topic, channel bool, parts []pageset.Part, offer pages.Offer, followed []string) string {
	return StartReplyIn(en, created, restored, topic, channel, parts, offer, followed)
}

// StartReplyIn is StartReply for the pages the chat follows (parts: as
// read, nil when not known), in the chat's language: each page's status
// on a line of its own under its name, never a merged "Unknown", and the
// pages also on offer.
func StartReplyIn(c i18n.Catalog, created bool, restored *store.Kept, topic, channel bool, parts []pageset.Part, offer pages.Offer, followed []string) string {
	where := placeKey(topic, channel)
	var b strings.Builder
	switch {
	case !created:
		b.WriteString(c.T("start.already." + where))
	case restored != nil:
		b.WriteString(c.T("start.again."+where, "When", message.Escape(notice.FormatTimeIn(c, restored.StoppedAt, notice.Zone(restored.Settings)))))
	case len(offer.List) > 1:
		b.WriteString(c.T("start.newMany."+where, "Pages", message.Escape(strings.Join(offer.Names(followed), ", "))))
	default:
		page := "OpenAI"
		if len(parts) == 1 && strings.TrimSpace(parts[0].Page.Name) != "" {
			page = screens.EscName(parts[0].Page.Name)
		}
		b.WriteString(c.T("start.new."+where, "Page", page))
	}
	switch {
	case len(parts) == 1:
		b.WriteString("\n\n" + c.T("start.statusNow", "Status", statusDetail(c, parts[0].Page)))
	case len(parts) > 1:
		b.WriteString("\n\n" + c.T("start.statusNowAll"))
		for _, p := range parts {
			b.WriteString("\n📄 <b>" + message.Escape(p.Name) + "</b>: " + statusDetail(c, p.Page))
		}
	}
	if more := alsoOnOffer(offer, followed); more != "" {
		b.WriteString("\n\n" + c.T("start.alsoOnOffer", "Pages", message.Escape(more)))
	}
	b.WriteString("\n\n" + c.T("start.choose."+where))
	return b.String()
}

// alsoOnOffer names the offered pages a chat does not follow ("" with one
// page on offer).
func alsoOnOffer(offer pages.Offer, followed []string) string {
	if len(offer.List) < 2 {
		return ""
	}
	var out []string
	for _, p := range offer.List {
		if !slices.Contains(followed, offer.EventPage(p.Name)) {
			out = append(out, p.Name)
		}
	}
	return strings.Join(out, ", ")
}

// Greeting is GreetingIn in English.
func Greeting(offer pages.Offer) string { return GreetingIn(en, offer) }

// GreetingIn is posted when the bot is added to a group: GroupGreeting,
// naming the pages when several are on offer.
func GreetingIn(c i18n.Catalog, offer pages.Offer) string {
	if len(offer.List) < 2 {
		return c.T("greeting.one")
	}
	names := make([]string, len(offer.List))
	for i, p := range offer.List {
		names[i] = p.Name
	}
	return c.T("greeting.many", "Pages", message.Escape(strings.Join(names, ", ")), "Default", message.Escape(offer.Default().Name))
}

// statusDetail is the page's status in one line, for /start: its
// description, and which components are not operational.
func statusDetail(c i18n.Catalog, p *statuspage.Page) string {
	desc := p.Description
	if strings.TrimSpace(desc) == "" {
		desc = statuspage.Label(p.Indicator)
	}
	status := screens.EscName(desc)
	if p.ComponentsErr != "" {
		return status
	}
	comps := screens.Components(p)
	names := screens.ComponentNames(comps)
	var down []string
	for _, comp := range comps {
		if comp.Status != "operational" {
			down = append(down, screens.EscName(names[comp.ID]))
		}
	}
	switch {
	case len(down) == 0:
		return c.T("status.allOperational", "Status", status)
	case len(down) > 3:
		return c.N("status.manyDown", len(down), "Status", status, "Down", strings.Join(down[:3], ", "))
	}
	return c.T("status.notOperational", "Status", status, "Down", strings.Join(down, ", "))
}

func (h *handler) cmdStop(ctx context.Context, r *request) {
	err := h.st.StopSubscription(ctx, r.key(), h.now())
	if err != nil && !errors.Is(err, store.ErrNotSubscribed) {
		h.storeFailed(ctx, r, err)
		return
	}
	h.reply(ctx, r, StopReplyIn(h.lang(ctx, r), err == nil, r.topic(), r.channel))
}

// StopReply is StopReplyIn in English.
func StopReply(removed, topic, channel bool) string { return StopReplyIn(en, removed, topic, channel) }

// StopReplyIn answers /stop: unsubscribed (removed) or was not.
func StopReplyIn(c i18n.Catalog, removed, topic, channel bool) string {
	if !removed {
		return c.T("stop.not." + placeKey(topic, channel))
	}
	return c.T("stop.done."+placeKey(topic, channel), "Days", keptDays)
}

// onMyChatMember follows the bot's own membership: removed from a chat,
// it stops the chat's subscriptions (keeping their settings, as /stop
// does); added to a group, it says what it does.
func (h *handler) onMyChatMember(ctx context.Context, u *models.ChatMemberUpdated) {
	switch {
	case isGone(u.NewChatMember):
		n, err := h.st.StopChat(ctx, u.Chat.ID, h.now())
		if err != nil {
			h.log.Warn("stop subscriptions of a chat the bot left", "chat_id", u.Chat.ID, "err", err)
			return
		}
		h.log.Info("bot removed from chat; subscriptions stopped, settings kept", "chat_id", u.Chat.ID, "status", u.NewChatMember.Type, "stopped", n)
	case isGone(u.OldChatMember) && (u.Chat.Type == models.ChatTypeGroup || u.Chat.Type == models.ChatTypeSupergroup):
		// Channels get no greeting: it would go to every reader. Nor does
		// the supergroup a group became: Telegram adds the bot to it anew.
		if moved, err := h.st.MovedInto(ctx, u.Chat.ID); err != nil || moved {
			return
		}
		// In the language of whoever added the bot: likely its admin.
		h.post(ctx, outgoing{chatID: u.Chat.ID, text: GreetingIn(i18n.Of(i18n.Match(u.From.LanguageCode)), h.offer), class: urgent})
	}
}

// isGone reports whether a membership is out of the chat.
func isGone(m models.ChatMember) bool {
	switch m.Type {
	case models.ChatMemberTypeLeft, models.ChatMemberTypeBanned:
		return true
	case models.ChatMemberTypeRestricted:
		return m.Restricted != nil && !m.Restricted.IsMember
	}
	return false
}
