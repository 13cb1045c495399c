package commands

import (
	"context"
	"errors"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// outgoing is one message the bot sends.
type outgoing struct {
	chatID int64
	thread int // forum topic (0: none)
	text   string
	markup models.ReplyMarkup
	// replyTo threads the message to the command it answers (0: not),
	// so that in a busy group it is clear who was answered.
	replyTo int
	class   sendClass
	// sender is whose command the message answers (0: none): casual
	// replies are shared per sender.
	sender int64
	silent bool
}

// answer is the reply to r's command: into its topic, threaded to the
// command in groups, and silent in channels (whose readers did not ask).
func (r *request) answer(text string) outgoing {
	o := outgoing{chatID: r.chatID, thread: r.thread, text: text, class: r.class, sender: senderOf(r.msg), silent: r.channel}
	if r.group && r.msg != nil {
		o.replyTo = r.msg.ID
	}
	if r.cleanup > 0 && r.msg != nil {
		o.text += "\n\n" + cleanupNote(r.catalog(), r.msg.Chat, r.cleanup)
	}
	return o
}

func (h *handler) reply(ctx context.Context, r *request, text string) {
	h.send(ctx, r, r.answer(text))
}

// replyMarkup is reply with an inline keyboard.
func (h *handler) replyMarkup(ctx context.Context, r *request, text string, markup models.ReplyMarkup) {
	o := r.answer(text)
	o.markup = markup
	h.send(ctx, r, o)
}

// senderOf is who sent m: its user, or the chat posting as itself.
func senderOf(m *models.Message) int64 {
	switch {
	case m == nil:
		return 0
	case m.SenderChat != nil:
		return m.SenderChat.ID
	case m.From != nil:
		return m.From.ID
	}
	return 0
}

// send posts one of r's replies and notes it (a channel's are deleted
// later). A casual reply ends the hold its command put on the chat's
// casual replies: it must not wait for itself.
func (h *handler) send(ctx context.Context, r *request, o outgoing) {
	if o.class == casual {
		releaseHold(ctx)
	}
	if sent := h.post(ctx, o); sent != nil {
		r.sent = append(r.sent, sent.ID)
	}
}

// post sends an HTML message with link previews off. It keeps to the
// chat's pace and the bot's share of the token's rate, waits out a short
// 429 and follows a group's move to a supergroup; a text refused for its
// entities (a date-time Telegram finds invalid: ENTITY_DATE_INVALID) is
// sent once more as the plain text it shows, as the worker's notices are
// (telegram.htmlOrPlain); other failures are logged (the chat may be
// gone). It returns the message sent (nil: none).
func (h *handler) post(ctx context.Context, o outgoing) *models.Message {
	if screens.UTF16Len(o.text) > message.MaxLength {
		o.text = message.Truncate(o.text, message.MaxLength)
	}
	mode := models.ParseModeHTML
	for attempt := 1; attempt <= 3; attempt++ {
		if !h.pace(ctx, o.chatID, o.sender, o.class == urgent) {
			h.log.Warn("reply dropped: the chat's message budget is spent", "chat_id", o.chatID)
			return nil
		}
		if !h.rate(ctx) {
			h.sent(o.chatID)
			h.log.Warn("reply dropped: no time left to send it within the bot's rate", "chat_id", o.chatID)
			return nil
		}
		p := &tgbot.SendMessageParams{
			ChatID:              o.chatID,
			MessageThreadID:     o.thread,
			Text:                o.text,
			ParseMode:           mode,
			LinkPreviewOptions:  &models.LinkPreviewOptions{IsDisabled: tgbot.True()},
			ReplyMarkup:         o.markup,
			DisableNotification: o.silent,
		}
		if o.replyTo != 0 {
			p.ReplyParameters = &models.ReplyParameters{MessageID: o.replyTo, AllowSendingWithoutReply: true}
		}
		sent, err := h.api.SendMessage(ctx, p)
		h.sent(o.chatID)
		if err == nil {
			return sent
		}
		var tm *tgbot.TooManyRequestsError
		var mg *tgbot.MigrateError
		switch {
		case mode != "" && telegram.RefusedForEntities(err):
			h.log.Info("reply refused for its entities; sending it as plain text", "chat_id", o.chatID, "err", h.redact(err.Error()))
			o.text, mode = message.Plain(o.text), ""
		case errors.As(err, &tm):
			wait := time.Duration(tm.RetryAfter) * time.Second
			if wait <= 0 {
				wait = time.Second
			}
			if wait > h.maxWait || !sleep(ctx, wait) {
				h.log.Warn("reply dropped: rate limited", "chat_id", o.chatID, "retry_after", tm.RetryAfter)
				return nil
			}
		case errors.As(err, &mg) && mg.MigrateToChatID != 0:
			h.migrate(ctx, o.chatID, int64(mg.MigrateToChatID))
			o.chatID, o.thread, o.replyTo = int64(mg.MigrateToChatID), 0, 0
		default:
			h.log.Warn("reply failed", "chat_id", o.chatID, "err", h.redact(err.Error()))
			return nil
		}
	}
	return nil
}
