package commands

import (
	"context"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
)

// keyboardEditor redraws keyboard messages. Edits count against a chat's
// message budget like sends, so quick taps on one keyboard are drawn as
// one edit with the latest screen: while an edit waits for its slot, a
// newer screen for the same message replaces it. Each message's edits run
// in order, outside the tap's lane, so the taps (and the tapper's next
// command) never wait behind them.
type keyboardEditor struct {
	h       *handler
	timeout time.Duration // one message's waiting and editing

	mu      sync.Mutex
	pending map[[2]int64]*screens.Screen // chat, message -> screen still to draw
}

func newKeyboardEditor(h *handler, timeout time.Duration) *keyboardEditor {
	return &keyboardEditor{h: h, timeout: timeout, pending: map[[2]int64]*screens.Screen{}}
}

// redraw asks for message msgID in chatID to show s.
func (e *keyboardEditor) redraw(chatID int64, msgID int, s screens.Screen) {
	key := [2]int64{chatID, int64(msgID)}
	e.mu.Lock()
	_, running := e.pending[key]
	e.pending[key] = &s
	e.mu.Unlock()
	if !running {
		go e.run(key)
	}
}

// run draws the message's latest screen until none is left.
func (e *keyboardEditor) run(key [2]int64) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	h := e.h
	for {
		paced := h.pace(ctx, key[0], 0, true)
		ok := paced && h.rate(ctx)
		e.mu.Lock()
		s := e.pending[key]
		e.pending[key] = nil
		e.mu.Unlock()
		if ok && s != nil {
			h.editScreen(ctx, key[0], int(key[1]), *s)
		}
		if paced {
			h.sent(key[0])
		}
		e.mu.Lock()
		if e.pending[key] == nil || !ok {
			delete(e.pending, key)
			e.mu.Unlock()
			return
		}
		e.mu.Unlock()
	}
}

// editScreen redraws one message. "Not modified" is success; a message
// that is gone or can no longer be edited stays as it is (the tap was
// answered already).
func (h *handler) editScreen(ctx context.Context, chatID int64, msgID int, s screens.Screen) {
	p := &tgbot.EditMessageTextParams{
		ChatID: chatID, MessageID: msgID, Text: s.Text, ParseMode: models.ParseModeHTML,
		LinkPreviewOptions: &models.LinkPreviewOptions{IsDisabled: tgbot.True()},
	}
	if s.Rows != nil {
		p.ReplyMarkup = s.Markup()
	}
	_, err := h.api.EditMessageText(ctx, p)
	switch {
	case err == nil, strings.Contains(err.Error(), "message is not modified"):
	case strings.Contains(err.Error(), "message to edit not found"), strings.Contains(err.Error(), "message can't be edited"):
		h.log.Info("keyboard message can no longer be edited", "chat_id", chatID)
	default:
		h.log.Warn("editMessageText", "chat_id", chatID, "err", h.redact(err.Error()))
	}
}
