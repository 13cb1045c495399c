package fakes

import (
	"encoding/json"
	"strconv"
)

// Telegram's answers about editing and pinning, with their real descriptions.
var (
	ErrMessageToEditNotFound = &APIError{Code: 400, Description: "Bad Request: message to edit not found"}
	ErrMessageNotModified    = &APIError{Code: 400, Description: "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}
	ErrNoPinRights           = &APIError{Code: 400, Description: "Bad Request: not enough rights to manage pinned messages in the chat"}
)

// cardState is what the fake knows beyond sent messages: deleted and
// pinned messages, chats where the bot may not pin, edits made.
type cardState struct {
	deleted   map[int]bool
	pinned    map[int]bool
	noPinning map[int64]bool
	edits     map[int]int
}

// cards is the card state; callers hold t.mu.
func (t *Telegram) cards() *cardState {
	if t.cardState == nil {
		t.cardState = &cardState{deleted: map[int]bool{}, pinned: map[int]bool{}, noPinning: map[int64]bool{}, edits: map[int]int{}}
	}
	return t.cardState
}

func (t *Telegram) cardHandlers() {
	t.handlers["editMessageText"] = t.editMessageText
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

// find returns the index of a live message of the chat, or -1.
func (t *Telegram) find(chatID int64, messageID int) int {
	for i, m := range t.messages {
		if m.ID == messageID && m.ChatID == chatID && !t.cards().deleted[messageID] {
			return i
		}
	}
	return -1
}

func (t *Telegram) editMessageText(p Params) (any, *APIError) {
	chatID, id := p.Int64("chat_id"), int(p.Int64("message_id"))
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.outage != nil {
		return nil, t.outage
	}
	if f := t.failures[chatID]; f != nil { // FailChat covers edits too
		t.attempts[chatID]++
		if e := f(t.attempts[chatID]); e != nil {
			return nil, e
		}
	}
	i := t.find(chatID, id)
	if i < 0 {
		return nil, ErrMessageToEditNotFound
	}
	if t.messages[i].Text == p["text"] {
		return nil, ErrMessageNotModified
	}
	t.messages[i].Text = p["text"]
	t.cards().edits[id]++
	return map[string]any{"message_id": id, "date": t.messages[i].At.Unix(), "chat": map[string]any{"id": chatID, "type": "private"}, "text": p["text"]}, nil
}

func (t *Telegram) setPinned(p Params, pin bool) (any, *APIError) {
	chatID, id := p.Int64("chat_id"), int(p.Int64("message_id"))
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.cards()
	if c.noPinning[chatID] {
		return nil, ErrNoPinRights
	}
	if t.find(chatID, id) < 0 {
		return nil, &APIError{Code: 400, Description: "Bad Request: message to pin not found"}
	}
	c.pinned[id] = pin
	return true, nil
}

// DeleteMessage deletes a message as a user would: edits of it fail.
func (t *Telegram) DeleteMessage(messageID int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cards().deleted[messageID] = true
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

// Edits counts the edits of a message.
func (t *Telegram) Edits(messageID int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cards().edits[messageID]
}
