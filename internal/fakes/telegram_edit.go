package fakes

import (
	"strconv"
	"time"
)

// Editing messages: editMessageText and editMessageReplyMarkup with
// Telegram's error answers. Shared by the settings keyboard and the
// incident cards.

// Real descriptions of edit failures.
var (
	ErrNotModified = &APIError{Code: 400, Description: "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}
	ErrEditGone    = &APIError{Code: 400, Description: "Bad Request: message to edit not found"}
)

// Edit is one accepted edit.
type Edit struct {
	Method      string
	ChatID      int64
	MessageID   int
	Text        string
	ReplyMarkup string
	At          time.Time
}

func (t *Telegram) installEdits() {
	t.handlers["editMessageText"] = func(p Params) (any, *APIError) {
		return t.edit("editMessageText", p, true)
	}
	t.handlers["editMessageReplyMarkup"] = func(p Params) (any, *APIError) {
		return t.edit("editMessageReplyMarkup", p, false)
	}
}

func (t *Telegram) edit(method string, p Params, text bool) (any, *APIError) {
	chatID := p.Int64("chat_id")
	id, _ := strconv.Atoi(p["message_id"])
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
	var times []DateTime
	if text {
		var perr *APIError
		times, perr = checkEntities(p, time.Now())
		t.refusedEntities += countRefused(perr)
		if perr != nil {
			return nil, perr
		}
	}
	if e := t.admit(chatID, time.Now()); e != nil { // edits count like messages
		return nil, e
	}
	i := t.find(chatID, id)
	if i < 0 || t.messages[i].Deleted {
		return nil, ErrEditGone
	}
	m := &t.messages[i]
	newText, markup := m.Text, p["reply_markup"]
	if text {
		newText = p["text"]
		if newText == "" {
			return nil, &APIError{Code: 400, Description: "Bad Request: message text is empty"}
		}
	}
	if newText == m.Text && markup == m.ReplyMarkup {
		return nil, ErrNotModified
	}
	m.Text, m.ReplyMarkup = newText, markup
	if text {
		m.ParseMode, m.Times = p["parse_mode"], times
	}
	m.Edits++
	t.edits = append(t.edits, Edit{Method: method, ChatID: chatID, MessageID: id, Text: newText, ReplyMarkup: markup, At: time.Now()})
	msg := map[string]any{"message_id": id, "date": m.At.Unix(), "edit_date": time.Now().Unix(),
		"chat": map[string]any{"id": chatID, "type": "private"}, "text": newText}
	if m.ThreadID != 0 {
		msg["message_thread_id"] = m.ThreadID
	}
	return msg, nil
}

// find is the index of a message; the caller holds t.mu.
func (t *Telegram) find(chatID int64, id int) int {
	for i := range t.messages {
		if t.messages[i].ChatID == chatID && t.messages[i].ID == id {
			return i
		}
	}
	return -1
}

// Message returns one message by chat and ID (as last edited).
func (t *Telegram) Message(chatID int64, id int) (Message, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := t.find(chatID, id); i >= 0 {
		return t.messages[i], true
	}
	return Message{}, false
}

// DeleteMessage marks a message deleted, as a user deleting it does:
// later edits answer "message to edit not found".
func (t *Telegram) DeleteMessage(chatID int64, id int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := t.find(chatID, id); i >= 0 {
		t.messages[i].Deleted = true
	}
}

// Edits returns the accepted edits so far.
func (t *Telegram) Edits() []Edit {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Edit(nil), t.edits...)
}
