package fakes

import (
	"strconv"
	"strings"
)

// Chats the fake knows, for getChat and getChatMember as the Bot API
// answers them:
//   - getChat takes a numeric ID or "@username". An unknown chat is 400
//     "Bad Request: chat not found"; so is a chat without a username
//     (private) that the bot is not in: the bot cannot see it. A public
//     chat is found by its username whether or not the bot is in it.
//   - getChatMember in a channel the bot is not in is 403 "Forbidden: bot
//     is not a member of the channel chat" (in a group: "...of the group
//     chat"); in an unknown chat 400 "chat not found". A user the table
//     does not list has status "left" in a channel, "member" in a group.
//
// AddChat installs both methods (replacing ChatMembers' getChatMember).

// Chat is one chat the fake knows.
type Chat struct {
	ID       int64
	Type     string // "channel", "supergroup", "group", "private"
	Title    string
	Username string // without "@"; empty: a private chat
	// BotIn: the bot is a member (in a channel: an administrator).
	BotIn bool
	// Members maps user IDs to their status ("creator", "administrator",
	// "member", ...).
	Members map[int64]string
}

// botID is getMe's id.
const botID = 1000

// AddChat makes the fake know c (replacing a chat with the same ID).
func (t *Telegram) AddChat(c Chat) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.chats == nil {
		t.chats = map[int64]*Chat{}
		t.handlers["getChat"] = t.getChat
		t.handlers["getChatMember"] = t.getChatMember
	}
	cc := c
	t.chats[c.ID] = &cc
}

// SetMember changes a user's status in a known chat.
func (t *Telegram) SetMember(chatID, userID int64, status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.chats[chatID]; c != nil {
		if c.Members == nil {
			c.Members = map[int64]string{}
		}
		c.Members[userID] = status
	}
}

// lookup finds a chat by "@username" or ID; the caller holds t.mu.
func (t *Telegram) lookup(ref string) *Chat {
	if name, ok := strings.CutPrefix(ref, "@"); ok {
		for _, c := range t.chats {
			if c.Username != "" && strings.EqualFold(c.Username, name) {
				return c
			}
		}
		return nil
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return nil
	}
	return t.chats[id]
}

func (t *Telegram) getChat(p Params) (any, *APIError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.lookup(p["chat_id"])
	if c == nil || (c.Username == "" && !c.BotIn) {
		return nil, ErrChatNotFound
	}
	out := map[string]any{"id": c.ID, "type": c.Type, "title": c.Title, "accent_color_id": 0, "max_reaction_count": 11}
	if c.Username != "" {
		out["username"] = c.Username
	}
	return out, nil
}

func (t *Telegram) getChatMember(p Params) (any, *APIError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.lookup(p["chat_id"])
	if c == nil || (c.Username == "" && !c.BotIn) {
		return nil, ErrChatNotFound
	}
	if !c.BotIn {
		kind := "group"
		if c.Type == "channel" {
			kind = "channel"
		}
		return nil, &APIError{Code: 403, Description: "Forbidden: bot is not a member of the " + kind + " chat"}
	}
	user := p.Int64("user_id")
	s := c.Members[user]
	switch {
	case user == botID:
		s = "administrator"
	case s == "" && c.Type == "channel":
		s = "left"
	case s == "":
		s = "member"
	}
	m := map[string]any{"status": s, "user": map[string]any{"id": user, "is_bot": user == botID, "first_name": "U"}}
	switch s {
	case "creator":
		m["is_anonymous"] = false
	case "administrator":
		m["can_be_edited"], m["is_anonymous"], m["can_manage_chat"] = false, false, true
		m["can_post_messages"], m["can_edit_messages"], m["can_delete_messages"] = true, true, true
	case "restricted":
		m["is_member"], m["until_date"] = true, 0
	case "kicked":
		m["until_date"] = 0
	}
	return m, nil
}

// KnownChat is the chat with id as the fake knows it (AddChat).
func (t *Telegram) KnownChat(id int64) (Chat, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.chats[id]
	if c == nil {
		return Chat{}, false
	}
	cc := *c
	cc.Members = make(map[int64]string, len(c.Members))
	for u, s := range c.Members {
		cc.Members[u] = s
	}
	return cc, true
}

// SetBotIn records whether the bot is in a known chat (added or removed).
func (t *Telegram) SetBotIn(chatID int64, in bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.chats[chatID]; c != nil {
		c.BotIn = in
	}
}
