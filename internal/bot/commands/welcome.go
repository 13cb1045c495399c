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
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// What a newcomer sees: /start, the greeting when the bot joins a group,
// the answer to plain text, and /stop keeping the settings.

// ReplyPlainText answers text that is no command in a private chat.
const ReplyPlainText = "I answer commands only. /start subscribes this chat to OpenAI status notices, " +
	"/status shows the status now, /help lists everything."

// GroupGreeting is posted when the bot is added to a group.
const GroupGreeting = "<b>Hello!</b> I post OpenAI's status here: incidents, component outages and maintenance, as they happen.\n" +
	"An administrator can /start to subscribe this group (or a forum topic), then choose what to hear with /settings.\n" +
	"Anyone can ask /status, /components, /history or /uptime; /help lists everything."

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
	var parts []pageset.Part
	if pv, ok := h.pages.Stored(ctx, Covered(h.offer, sub, ""), pageset.Components); ok {
		parts = pv.Parts
	}
	text := StartReplyFor(created, restored, r.topic(), r.channel, parts, h.offer, pages.Followed(sub.Pages))
	if r.channel {
		h.reply(ctx, r, text) // no buttons for every reader to see
		return
	}
	kb := screens.New(sub, nil)
	h.replyMarkup(ctx, r, text, &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{
		{kb.Button("⚙️ Settings", "m"), kb.Button("Components", "g", "0")},
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

// StartReplyFor is StartReply for the pages the chat follows (parts: as
// read, nil when not known): each page's status on a line of its own
// under its name, never a merged "Unknown", and the pages also on offer.
func StartReplyFor(created bool, restored *store.Kept, topic, channel bool, parts []pageset.Part, offer pages.Offer, followed []string) string {
	where := place(topic, channel)
	var b strings.Builder
	what := "OpenAI status notices"
	if len(offer.List) > 1 {
		what = "status notices of " + message.Escape(strings.Join(offer.Names(followed), ", "))
	} else if len(parts) == 1 && strings.TrimSpace(parts[0].Page.Name) != "" {
		what = screens.EscName(parts[0].Page.Name) + " status notices"
	}
	switch {
	case !created:
		b.WriteString(capitalize(where) + " is already subscribed; the settings are unchanged.")
	case restored != nil:
		b.WriteString("Subscribed " + where + " again, with the settings it had before /stop (" +
			message.Escape(notice.FormatTime(restored.StoppedAt, notice.Zone(restored.Settings))) + ").")
	default:
		b.WriteString("Subscribed " + where + " to " + what + ": incidents, component changes and maintenance, as they happen.")
	}
	switch {
	case len(parts) == 1:
		b.WriteString("\n\n" + statusLine(parts[0].Page))
	case len(parts) > 1:
		b.WriteString("\n\n<b>Status now</b>")
		for _, p := range parts {
			b.WriteString("\n📄 <b>" + message.Escape(p.Name) + "</b>: " + strings.TrimPrefix(statusLine(p.Page), "<b>Status now:</b> "))
		}
	}
	if more := alsoOnOffer(offer, followed); more != "" {
		b.WriteString("\n\nAlso on offer: " + message.Escape(more) + ". /subscribe page &lt;name&gt; follows one more.")
	}
	b.WriteString("\n\nChoose what " + where + " hears with /settings: notice types, components, severity, quiet hours, time zone, cards. " +
		"/status shows the status now, /help lists every command, /stop unsubscribes.")
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

// Greeting is posted when the bot is added to a group: GroupGreeting,
// naming the pages when several are on offer.
func Greeting(offer pages.Offer) string {
	if len(offer.List) < 2 {
		return GroupGreeting
	}
	names := make([]string, len(offer.List))
	for i, p := range offer.List {
		names[i] = p.Name
	}
	return "<b>Hello!</b> I post status pages here: incidents, component outages and maintenance, as they happen. " +
		"On offer: " + message.Escape(strings.Join(names, ", ")) + " (a new subscription follows " + message.Escape(offer.Default().Name) + "; /subscribe page &lt;name&gt; adds one).\n" +
		"An administrator can /start to subscribe this group (or a forum topic), then choose what to hear with /settings.\n" +
		"Anyone can ask /status, /components, /history or /uptime; /help lists everything."
}

// statusLine is the page's status in one line, for /start.
func statusLine(p *statuspage.Page) string {
	desc := p.Description
	if strings.TrimSpace(desc) == "" {
		desc = statuspage.Label(p.Indicator)
	}
	line := "<b>Status now:</b> " + screens.EscName(desc)
	if p.ComponentsErr != "" {
		return line
	}
	comps := screens.Components(p)
	names := screens.ComponentNames(comps)
	var down []string
	for _, c := range comps {
		if c.Status != "operational" {
			down = append(down, screens.EscName(names[c.ID]))
		}
	}
	switch {
	case len(down) == 0:
		return line + "; every component is operational."
	case len(down) > 3:
		return line + "; " + strconv.Itoa(len(down)) + " components are not operational: " + strings.Join(down[:3], ", ") + " and more."
	case len(down) == 1:
		return line + "; not operational: " + down[0] + "."
	}
	return line + "; not operational: " + strings.Join(down, ", ") + "."
}

func (h *handler) cmdStop(ctx context.Context, r *request) {
	err := h.st.StopSubscription(ctx, r.key(), h.now())
	if err != nil && !errors.Is(err, store.ErrNotSubscribed) {
		h.storeFailed(ctx, r, err)
		return
	}
	h.reply(ctx, r, StopReply(err == nil, r.topic(), r.channel))
}

func StopReply(removed, topic, channel bool) string {
	if !removed {
		return capitalize(place(topic, channel)) + " was not subscribed. Use /start to subscribe."
	}
	return "Unsubscribed " + place(topic, channel) + ". Its settings are kept for " + keptDays +
		" days: /start within that time subscribes it again with them."
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
		h.post(ctx, outgoing{chatID: u.Chat.ID, text: Greeting(h.offer), class: urgent})
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
