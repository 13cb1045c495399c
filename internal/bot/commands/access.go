package commands

import (
	"context"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// allowed reports whether the sender may change the chat's subscription:
// anyone in a private chat or channel (only admins post there), and in
// groups the creator and administrators, including an anonymous admin
// posting as the group itself. Otherwise it replies with the refusal.
//
// Allowed, the command is one the chat's admins wait for: its replies
// from here on are urgent (take the chat's next free second).
func (h *handler) allowed(ctx context.Context, r *request) bool {
	if !r.group {
		r.class = urgent
		return true
	}
	refuse := func(id string) bool {
		r.class = casual // anyone can make the bot refuse
		releaseHold(ctx) // the refusal must not wait for its own command
		h.reply(ctx, r, h.lang(ctx, r).T(id))
		return false
	}
	m := r.msg
	if m.SenderChat != nil {
		if m.SenderChat.ID == m.Chat.ID {
			r.class = urgent
			return true
		}
		return refuse("reply.notAdmin")
	}
	if m.From == nil {
		return refuse("reply.notAdmin")
	}
	cm, err := h.api.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: m.Chat.ID, UserID: m.From.ID})
	if err != nil {
		h.log.Warn("getChatMember", "chat_id", m.Chat.ID, "err", h.redact(err.Error()))
		return refuse("reply.adminError")
	}
	if cm.Type == models.ChatMemberTypeOwner || cm.Type == models.ChatMemberTypeAdministrator {
		r.class = urgent
		return true
	}
	return refuse("reply.notAdmin")
}

// mayChange reports whether the user may change the chat's settings:
// anyone in a private chat; in groups and channels (whose subscribers can
// tap buttons too) the creator and administrators, anonymous ones
// included (Telegram names the real user in a callback query).
func (h *handler) mayChange(ctx context.Context, chat models.Chat, from models.User) (bool, error) {
	if chat.Type == models.ChatTypePrivate {
		return from.ID == chat.ID, nil
	}
	cm, err := h.api.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: chat.ID, UserID: from.ID})
	if err != nil {
		h.log.Warn("getChatMember", "chat_id", chat.ID, "err", h.redact(err.Error()))
		return false, err
	}
	return cm.Type == models.ChatMemberTypeOwner || cm.Type == models.ChatMemberTypeAdministrator, nil
}
