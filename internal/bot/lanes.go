package bot

import (
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
)

// laneOf is the lane of an update: its sender in its chat, taps apart.
func laneOf(u *models.Update) dispatch.Lane {
	l := dispatch.Lane{Chat: chatOf(u)}
	switch {
	case u.Message != nil:
		l.Sender = senderOf(u.Message)
	case u.ChannelPost != nil:
		l.Sender = senderOf(u.ChannelPost)
	case u.CallbackQuery != nil:
		l.Sender, l.Taps = u.CallbackQuery.From.ID, true
	case u.EditedMessage != nil:
		l.Sender = senderOf(u.EditedMessage)
	case u.MyChatMember != nil:
		l.Sender = u.MyChatMember.From.ID
	}
	return l
}

func senderOf(m *models.Message) int64 {
	switch {
	case m.SenderChat != nil:
		return m.SenderChat.ID
	case m.From != nil:
		return m.From.ID
	}
	return 0
}
