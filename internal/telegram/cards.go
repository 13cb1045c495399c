package telegram

import (
	"context"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/metrics"
)

// Gone: the message to edit no longer exists (deleted by users) or can no
// longer be edited; the caller sends a fresh one.
const Gone Outcome = "gone"

var goneBadRequests = []string{"message to edit not found", "message can't be edited", "message_id_invalid"}

// Edit replaces the text of a message the bot sent. Editing to the same
// text succeeds ("message is not modified"): a retried edit is harmless.
// Failures are *SendError; Outcome Gone when the message is not there.
func (s *Sender) Edit(ctx context.Context, chatID int64, messageID int, text string) error {
	disabled := true
	wait, err := s.htmlOrPlain(ctx, chatID, text, false, func(text string, mode models.ParseMode) error {
		_, err := s.bot.EditMessageText(ctx, &tgbot.EditMessageTextParams{
			ChatID:             chatID,
			MessageID:          messageID,
			Text:               text,
			ParseMode:          mode,
			LinkPreviewOptions: &models.LinkPreviewOptions{IsDisabled: &disabled},
		})
		return err
	})
	if wait != nil {
		return wait
	}
	if err == nil {
		metrics.TelegramSend("edited", 0)
		return nil
	}
	se := classifyEdit(err, s.token)
	if se == nil {
		metrics.TelegramSend("edited", 0)
		return nil
	}
	metrics.TelegramSend(string(se.Outcome), se.RetryAfter)
	return se
}

// classifyEdit is Classify for an edit: nil when the message already has
// the text, Gone when it is not there any more.
func classifyEdit(err error, token string) *SendError {
	se := Classify(err, token)
	if se.Outcome != Permanent {
		return se
	}
	low := strings.ToLower(se.Description)
	if strings.Contains(low, "message is not modified") {
		return nil
	}
	for _, s := range goneBadRequests {
		if strings.Contains(low, s) {
			se.Outcome = Gone
		}
	}
	return se
}

// Pin pins a message silently. Errors (most often missing rights) are the
// caller's to ignore: a card that is not pinned is still delivered.
func (s *Sender) Pin(ctx context.Context, chatID int64, messageID int) error {
	wait, err := s.pacedAs(ctx, chatID, false, func() error {
		_, err := s.bot.PinChatMessage(ctx, &tgbot.PinChatMessageParams{ChatID: chatID, MessageID: messageID, DisableNotification: true})
		return err
	})
	if wait != nil {
		return wait
	}
	if err != nil {
		return Classify(err, s.token)
	}
	return nil
}

// Unpin unpins one message; errors as for Pin.
func (s *Sender) Unpin(ctx context.Context, chatID int64, messageID int) error {
	wait, err := s.pacedAs(ctx, chatID, false, func() error {
		_, err := s.bot.UnpinChatMessage(ctx, &tgbot.UnpinChatMessageParams{ChatID: chatID, MessageID: messageID})
		return err
	})
	if wait != nil {
		return wait
	}
	if err != nil {
		return Classify(err, s.token)
	}
	return nil
}
