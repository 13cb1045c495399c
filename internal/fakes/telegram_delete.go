package fakes

import "time"

// deleteMessage as the Bot API answers it: true, or 400 "message to
// delete not found" for a message already deleted. The fake only knows
// the messages it accepted from the bot; a message it never saw (a
// user's post, which arrived as an update) is taken as existing: its
// deletion succeeds and is recorded (DeletedByBot).

// ErrDeleteNotFound is the answer for a message that is gone.
var ErrDeleteNotFound = &APIError{Code: 400, Description: "Bad Request: message to delete not found"}

// Deletion is one deleteMessage the fake accepted.
type Deletion struct {
	ChatID    int64
	MessageID int
	At        time.Time // when the fake accepted it
}

func (t *Telegram) installDeletes() {
	t.handlers["deleteMessage"] = func(p Params) (any, *APIError) {
		chatID, id := p.Int64("chat_id"), int(p.Int64("message_id"))
		t.mu.Lock()
		defer t.mu.Unlock()
		if i := t.find(chatID, id); i >= 0 {
			if t.messages[i].Deleted {
				return nil, ErrDeleteNotFound
			}
			t.messages[i].Deleted = true
		}
		for _, d := range t.deletions {
			if d.ChatID == chatID && d.MessageID == id {
				return nil, ErrDeleteNotFound
			}
		}
		t.deletions = append(t.deletions, Deletion{ChatID: chatID, MessageID: id, At: time.Now()})
		return true, nil
	}
}

// DeletedByBot returns the deleteMessage calls accepted, in order.
func (t *Telegram) DeletedByBot() []Deletion {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Deletion(nil), t.deletions...)
}
