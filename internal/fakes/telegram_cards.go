package fakes

import (
	"encoding/json"
	"strconv"
	"time"
)

// Pinning and replies, for incident cards (editing is in telegram_edit.go).
var (
	ErrNoPinRights = &APIError{Code: 400, Description: "Bad Request: not enough rights to manage pinned messages in the chat"}
)

// cardState is what the fake knows beyond sent messages: deleted and
// pinned messages, chats where the bot may not pin, edits made.
type cardState struct {
	pinned    map[int]bool
	noPinning map[int64]bool
}

// cards is the card state; callers hold t.mu.
func (t *Telegram) cards() *cardState {
	if t.cardState == nil {
		t.cardState = &cardState{pinned: map[int]bool{}, noPinning: map[int64]bool{}}
	}
	return t.cardState
}

func (t *Telegram) cardHandlers() {
	t.handlers["pinChatMessage"] = func(p Params) (any, *APIError) { return t.setPinned(p, true) }
	t.handlers["unpinChatMessage"] = func(p Params) (any, *APIError) { return t.setPinned(p, false) }
}

// replyTo reads reply_parameters (or the older reply_to_message_id).
func replyTo(p Params) int {
	if raw := p["reply_parameters"]; raw != "" {
		var rp struct {
			MessageID int `json:"message_id"`
		}
		if json.Unmarshal([]byte(raw), &rp) == nil {
			return rp.MessageID
		}
	}
	n, _ := strconv.Atoi(p["reply_to_message_id"])
	return n
}

func (t *Telegram) setPinned(p Params, pin bool) (any, *APIError) {
	chatID, id := p.Int64("chat_id"), int(p.Int64("message_id"))
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.failures[chatID]; f != nil { // FailChat covers pins too: a moved group answers every call "migrated"
		t.attempts[chatID]++
		if e := f(t.attempts[chatID]); e != nil {
			return nil, e
		}
	}
	c := t.cards()
	if c.noPinning[chatID] {
		return nil, ErrNoPinRights
	}
	if i := t.find(chatID, id); i < 0 || t.messages[i].Deleted {
		return nil, &APIError{Code: 400, Description: "Bad Request: message to pin not found"}
	}
	if e := t.admit(chatID, time.Now()); e != nil { // a pin posts a service message
		return nil, e
	}
	c.pinned[id] = pin
	return true, nil
}

// DenyPinning takes the right to pin messages in a chat away from the bot.
func (t *Telegram) DenyPinning(chatID int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cards().noPinning[chatID] = true
}

// Pinned reports whether a message is pinned.
func (t *Telegram) Pinned(messageID int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cards().pinned[messageID]
}

// EditCount counts the accepted edits of a message (any method).
func (t *Telegram) EditCount(messageID int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, e := range t.edits {
		if e.MessageID == messageID {
			n++
		}
	}
	return n
}
