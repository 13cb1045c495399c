package commands

import (
	"context"
	"errors"
	"strconv"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// A channel is configured from a private chat with the bot, so that its
// readers see none of it: "/settings @name" (or the channel's ID) opens
// the keyboard here, "/settings @name quiet 22:00-07:00" sets one value,
// "/info @name" shows the settings. Who asks must be an administrator of
// the channel, and the bot must be in it; both are checked with
// getChatMember on every command and every tap.

// channelRef is the channel a command typed in a private chat is about.
type channelRef struct {
	id    int64
	typed string // how to name it in a command: "@name" or the ID
	title string // how to show it
}

// parseChannelRef reads a channel named at the start of a private chat's
// arguments: "@username" (5 to 32 letters, digits or underscores) or a
// channel's ID (-100…). ok is false when the arguments name none.
func parseChannelRef(args string) (ref, rest string, ok bool) {
	first, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	if name, isName := strings.CutPrefix(first, "@"); isName {
		if len(name) < 5 || len(name) > 32 {
			return "", "", false
		}
		for _, c := range name {
			if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return "", "", false
			}
		}
		return first, rest, true
	}
	if id, err := strconv.ParseInt(first, 10, 64); err == nil && strings.HasPrefix(first, "-100") && id < -1000000000000 {
		return first, rest, true
	}
	return "", "", false
}

// aboutChannel lets a command typed in a private chat name a channel
// first: the channel is checked (it exists, the bot is in it, the sender
// administers it) and becomes what the command reads and changes; the
// replies stay in the private chat. Anywhere else, and without a
// channel named, the command runs as typed.
func aboutChannel(next commandFunc) commandFunc {
	return func(h *handler, ctx context.Context, r *request) {
		ref, rest, ok := parseChannelRef(r.cmd.Args)
		if !r.private || !ok || r.msg.From == nil {
			next(h, ctx, r)
			return
		}
		// Said in the sender's language: the chat's own may not be read yet.
		ch, refusal := h.checkChannel(ctx, i18n.Of(userLanguage(r.msg)), ref, r.msg.From.ID)
		if refusal != "" {
			h.reply(ctx, r, refusal)
			return
		}
		r.about, r.cmd.Args = ch, rest
		next(h, ctx, r)
	}
}

// checkChannel finds the channel ref names and checks that the bot is in
// it and that user administers it; refusal says why not.
func (h *handler) checkChannel(ctx context.Context, c i18n.Catalog, ref string, user int64) (*channelRef, string) {
	shown := message.Escape(ref)
	var chatID any = ref
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		chatID = id
	}
	chat, err := h.api.GetChat(ctx, &tgbot.GetChatParams{ChatID: chatID})
	switch {
	case err != nil && strings.Contains(err.Error(), "chat not found"):
		return nil, c.T("chan.unknown", "Name", shown)
	case err != nil:
		h.log.Warn("getChat", "err", h.redact(err.Error()))
		return nil, c.T("chan.checkFailed")
	case chat.Type != models.ChatTypeChannel:
		return nil, c.T("chan.notChannel", "Name", shown)
	}
	ch := &channelRef{id: chat.ID, typed: strconv.FormatInt(chat.ID, 10), title: chat.Title}
	if chat.Username != "" {
		ch.typed = "@" + chat.Username
		ch.title = "@" + chat.Username
	}
	if ch.title == "" {
		ch.title = ch.typed
	}
	shown = message.Escape(ch.title)
	bot, err := h.member(ctx, chat.ID, h.botID)
	switch {
	case err != nil && (isForbidden(err) || strings.Contains(err.Error(), "chat not found")):
		return nil, c.T("chan.botNotIn", "Name", shown, "Ref", message.Escape(ch.typed))
	case err != nil:
		return nil, c.T("chan.checkFailed")
	case !isAdmin(bot):
		// In a channel only administrators post: the bot must be one.
		return nil, c.T("chan.botNotIn", "Name", shown, "Ref", message.Escape(ch.typed))
	}
	you, err := h.member(ctx, chat.ID, user)
	switch {
	case err != nil:
		return nil, c.T("chan.checkFailed")
	case !isAdmin(you):
		return nil, c.T("chan.notAdmin", "Name", shown)
	}
	h.channels.Store(ch.id, *ch)
	if err := h.st.RememberChannel(ctx, store.ManagedChannel{UserID: user, ChatID: ch.id, Typed: ch.typed, Title: ch.title, At: h.now()}); err != nil {
		h.log.Warn("remember a user's channel", "err", err)
	}
	return ch, ""
}

// maxListedChannels bounds "/settings channels".
const maxListedChannels = 20

// listChannels answers "/settings channels" in a private chat: the
// channels the user changed from here, a button each that opens the
// channel's keyboard in place (rights checked again on the tap).
func (h *handler) listChannels(ctx context.Context, r *request) {
	if r.msg.From == nil {
		return
	}
	list, err := h.st.ManagedChannels(ctx, r.msg.From.ID, maxListedChannels)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	if len(list) == 0 {
		h.reply(ctx, r, h.lang(ctx, r).T("chan.none"))
		return
	}
	var rows [][]models.InlineKeyboardButton
	for _, c := range list {
		h.channels.Store(c.ChatID, channelRef{id: c.ChatID, typed: c.Typed, title: c.Title})
		data := screens.Callback{Chat: c.ChatID, Op: "m", Tok: "0"}.Encode()
		rows = append(rows, []models.InlineKeyboardButton{{Text: screens.CutButton("⚙️ " + c.Title), CallbackData: data}})
	}
	h.replyMarkup(ctx, r, h.lang(ctx, r).T("chan.list"), &models.InlineKeyboardMarkup{InlineKeyboard: rows})
}

// knownChannel is how a channel checked before is named (a tap carries
// only its ID): from memory, else from the user's list.
func (h *handler) knownChannel(ctx context.Context, user, id int64) channelRef {
	if v, ok := h.channels.Load(id); ok {
		return v.(channelRef)
	}
	if list, err := h.st.ManagedChannels(ctx, user, maxListedChannels); err == nil {
		for _, c := range list {
			if c.ChatID == id {
				ref := channelRef{id: id, typed: c.Typed, title: c.Title}
				h.channels.Store(id, ref)
				return ref
			}
		}
	}
	return unnamedChannel(id)
}

// unnamedChannel is a channel known by its ID only, named by it as a
// channel without a title is: its title goes into sentences of every
// language, so no words of one language wrap it.
func unnamedChannel(id int64) channelRef {
	s := strconv.FormatInt(id, 10)
	return channelRef{id: id, typed: s, title: s}
}

// member is getChatMember, logged when it fails.
func (h *handler) member(ctx context.Context, chatID, userID int64) (*models.ChatMember, error) {
	cm, err := h.api.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: chatID, UserID: userID})
	if err != nil {
		h.log.Info("getChatMember", "chat_id", chatID, "err", h.redact(err.Error()))
	}
	return cm, err
}

func isAdmin(cm *models.ChatMember) bool {
	return cm != nil && (cm.Type == models.ChatMemberTypeOwner || cm.Type == models.ChatMemberTypeAdministrator)
}

func isForbidden(err error) bool {
	return errors.Is(err, tgbot.ErrorForbidden) || strings.Contains(err.Error(), "Forbidden")
}

// channelNotSubscribedIn says, in c's language, that the channel named is
// not subscribed and how to subscribe it.
func channelNotSubscribedIn(c i18n.Catalog, ch *channelRef) string {
	return c.T("chan.notSubscribed", "Name", message.Escape(ch.title), "Ref", message.Escape(ch.typed))
}

// aboutKey is the subscription a tap on a keyboard changes.
func aboutKey(chatID int64) string { return store.SubscriberKey(chatID, 0) }
