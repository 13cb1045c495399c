package telegram

import (
	"context"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/metrics"
)

// refusedForEntities reports whether Telegram refused a text for its
// entities: "can't parse entities: ..." (a malformed tag or date-time
// format), or ENTITY_DATE_INVALID (a date-time too far ahead).
func refusedForEntities(err error) bool {
	if err == nil {
		return false
	}
	low := strings.ToLower(err.Error())
	return strings.Contains(low, "can't parse entities") || strings.Contains(low, "entity_date_invalid")
}

// htmlOrPlain makes a call that posts or edits text as HTML; refused for
// its entities, it is made once more with the text as the plain text it
// shows (tags dropped, a date-time as its text in the chat's zone) and no
// parse mode, so that a notice is never lost to its formatting.
func (s *Sender) htmlOrPlain(ctx context.Context, chatID int64, text string, paid bool, call func(text string, mode models.ParseMode) error) (wait *SendError, err error) {
	wait, err = s.pacedAs(ctx, chatID, paid, func() error { return call(text, models.ParseModeHTML) })
	if wait != nil || !refusedForEntities(err) {
		return wait, err
	}
	metrics.TelegramSend("entities_refused", 0)
	if _, ok := ctx.Value(turnKey{}).(Turn); ok {
		// The refused call posted nothing: the plain one takes its turn
		// (a second turn would come only after the chat's interval, and
		// the chain would start over with the refused text), but a slot
		// of the bot's budget of its own: Telegram counts every call.
		if slot, ok := ctx.Value(slotKey{}).(Slot); ok {
			if err := slot(ctx); err != nil {
				return &SendError{Outcome: Transient, Description: "waiting for a Telegram send slot: " + err.Error()}, nil
			}
		}
		return nil, call(message.Plain(text), "")
	}
	return s.pacedAs(ctx, chatID, paid, func() error { return call(message.Plain(text), "") })
}

// RefusedForEntities is refusedForEntities for the command bot's replies,
// which retry as plain text the same way.
func RefusedForEntities(err error) bool { return refusedForEntities(err) }
