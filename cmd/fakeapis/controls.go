package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/fakes"
)

// telegramControls act, on the fake Bot API, as the people and chats the
// bot meets: someone writing in a private chat, a group or a forum topic,
// a member or an admin, a tap on a button, a channel's post, the bot
// added to or removed from a chat, a group moved to a supergroup. Each
// queues the update Telegram would deliver (GET /control/... lists).
type telegramControls struct {
	tg      *fakes.Telegram
	updates *fakes.Updates
	msgID   atomic.Int64
	mu      sync.Mutex // chats' first use
}

// defaultUser acts in groups when a control names no user (the bot is
// 1000).
const defaultUser = 1001

// botUser is the fake's getMe user.
var botUser = models.User{ID: 1000, IsBot: true, FirstName: "Status", Username: "openai_status_test_bot"}

func telegramMux(tg *fakes.Telegram, updates *fakes.Updates) http.Handler {
	c := &telegramControls{tg: tg, updates: updates}
	mux := http.NewServeMux()
	mux.HandleFunc("/control/messages", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, tg.Messages()) })
	mux.HandleFunc("/control/answers", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, tg.Answers()) })
	mux.HandleFunc("/control/user", c.control(c.user))
	mux.HandleFunc("/control/member", c.control(c.member))
	mux.HandleFunc("/control/tap", c.control(c.tap))
	mux.HandleFunc("/control/channel", c.control(c.channel))
	mux.HandleFunc("/control/bot", c.control(c.bot))
	mux.HandleFunc("/control/migrate", c.control(c.migrate))
	mux.Handle("/", tg)
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// badRequest is a control's refusal: how to call it.
type badRequest string

func (b badRequest) Error() string { return string(b) }

// control answers a control's result as JSON, or 400 with its usage.
func (c *telegramControls) control(f func(q map[string]string) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := map[string]string{}
		for k, v := range r.URL.Query() {
			q[k] = v[0]
		}
		out, err := f(q)
		var bad badRequest
		switch {
		case errors.As(err, &bad):
			http.Error(w, err.Error(), http.StatusBadRequest)
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		default:
			writeJSON(w, out)
		}
	}
}

func id64(q map[string]string, key string) (int64, bool) {
	v, err := strconv.ParseInt(q[key], 10, 64)
	return v, err == nil && v != 0
}

// known makes the fake know chat id (the bot in it) on first use: a
// private chat for a positive ID, else a group of kind ("group",
// "supergroup" by default, "channel").
func (c *telegramControls) known(id int64, kind string) fakes.Chat {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.tg.KnownChat(id); ok {
		return ch
	}
	ch := fakes.Chat{ID: id, Type: "private", BotIn: true, Members: map[int64]string{}}
	switch {
	case id > 0:
	case kind == "group" || kind == "channel":
		ch.Type, ch.Title = kind, "Test "+kind
	default:
		ch.Type, ch.Title = "supergroup", "Test group"
	}
	c.tg.AddChat(ch)
	return ch
}

func chatOf(ch fakes.Chat, thread int) models.Chat {
	mc := models.Chat{ID: ch.ID, Type: models.ChatType(ch.Type), Title: ch.Title, Username: ch.Username}
	if ch.Type == "private" {
		mc.FirstName = "Tester"
	}
	mc.IsForum = thread != 0
	return mc
}

// withCommand marks a leading /command as Telegram does.
func withCommand(m *models.Message) {
	if !strings.HasPrefix(m.Text, "/") {
		return
	}
	end := len(m.Text)
	if i := strings.IndexByte(m.Text, ' '); i >= 0 {
		end = i
	}
	m.Entities = []models.MessageEntity{{Type: models.MessageEntityTypeBotCommand, Offset: 0, Length: end}}
}

// user: someone writes text in chat (a private chat's ID is its user's;
// negative: a group, a forum topic with thread). In a group the first
// user to write becomes its creator, anyone after a plain member, until
// /control/member says otherwise. type=group makes a new group a basic
// group (for /control/migrate).
func (c *telegramControls) user(q map[string]string) (any, error) {
	chat, ok := id64(q, "chat")
	if !ok || q["text"] == "" {
		return nil, badRequest("want chat=<id> and text=<message>, optional thread=<topic id>, user=<id> (in groups) and type=group")
	}
	user, given := id64(q, "user")
	switch {
	case chat > 0 && given && user != chat:
		return nil, badRequest("in a private chat the chat's ID is its user's: leave user out")
	case chat > 0:
		user = chat
	case !given:
		user = defaultUser
	}
	thread, _ := strconv.Atoi(q["thread"])
	ch := c.known(chat, q["type"])
	if ch.Type == "channel" {
		return nil, badRequest("chat is a channel: post with /control/channel")
	}
	if chat < 0 && ch.Members[user] == "" {
		status := "member"
		if !hasCreator(ch) {
			status = "creator"
		}
		c.tg.SetMember(chat, user, status)
	}
	m := &models.Message{ID: int(c.msgID.Add(1)), Date: int(time.Now().Unix()), Chat: chatOf(ch, thread), Text: q["text"],
		From: &models.User{ID: user, FirstName: "Tester"}}
	if thread != 0 {
		m.MessageThreadID, m.IsTopicMessage = thread, true
	}
	withCommand(m)
	return map[string]int64{"update_id": c.updates.Push(models.Update{Message: m})}, nil
}

func hasCreator(ch fakes.Chat) bool {
	for _, s := range ch.Members {
		if s == "creator" {
			return true
		}
	}
	return false
}

// member sets a user's status in a group or channel.
func (c *telegramControls) member(q map[string]string) (any, error) {
	chat, ok1 := id64(q, "chat")
	user, ok2 := id64(q, "user")
	switch q["status"] {
	case "creator", "administrator", "member", "restricted", "left", "kicked":
	default:
		ok1 = false
	}
	if !ok1 || !ok2 || chat > 0 {
		return nil, badRequest("want chat=<group or channel id>, user=<id> and status=creator|administrator|member|restricted|left|kicked")
	}
	c.known(chat, "")
	c.tg.SetMember(chat, user, q["status"])
	return map[string]string{"status": q["status"]}, nil
}

// tap: user presses the button whose text contains button on the bot's
// message (message=<id>; left out: the newest message in chat with such
// a button).
func (c *telegramControls) tap(q map[string]string) (any, error) {
	chat, ok := id64(q, "chat")
	if !ok || q["button"] == "" {
		return nil, badRequest("want chat=<id> and button=<text on it>, optional message=<id> and user=<id>")
	}
	ch := c.known(chat, "")
	user, given := id64(q, "user")
	if !given {
		user = defaultUser
		if chat > 0 {
			user = chat
		}
	}
	msgID, _ := strconv.Atoi(q["message"])
	msgs := c.tg.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.ChatID != chat || (msgID != 0 && m.ID != msgID) || m.Deleted {
			continue
		}
		if data, found := buttonData(m.ReplyMarkup, q["button"]); found {
			id := c.tg.Tap(c.updates, m, models.ChatType(ch.Type), user, data)
			return map[string]any{"query_id": id, "message": m.ID, "callback_data": data}, nil
		}
	}
	return nil, badRequest("no message of the bot in that chat has a button with that text")
}

// buttonData is the callback_data of the first button whose text contains
// label (case-insensitive).
func buttonData(markup, label string) (string, bool) {
	var kb models.InlineKeyboardMarkup
	if markup == "" || json.Unmarshal([]byte(markup), &kb) != nil {
		return "", false
	}
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			if b.CallbackData != "" && strings.Contains(strings.ToLower(b.Text), strings.ToLower(label)) {
				return b.CallbackData, true
			}
		}
	}
	return "", false
}

// channel: a post in a channel (the bot an administrator there); title and
// username name a new channel.
func (c *telegramControls) channel(q map[string]string) (any, error) {
	chat, ok := id64(q, "chat")
	if !ok || chat > 0 || q["text"] == "" {
		return nil, badRequest("want chat=<negative channel id> and text=<post>, optional title and username (for a new channel)")
	}
	c.mu.Lock()
	if _, known := c.tg.KnownChat(chat); !known {
		title := q["title"]
		if title == "" {
			title = "Test channel"
		}
		c.tg.AddChat(fakes.Chat{ID: chat, Type: "channel", Title: title, Username: strings.TrimPrefix(q["username"], "@"), BotIn: true,
			Members: map[int64]string{botUser.ID: "administrator"}})
	}
	c.mu.Unlock()
	ch, _ := c.tg.KnownChat(chat)
	if ch.Type != "channel" {
		return nil, badRequest("chat is not a channel")
	}
	mc := chatOf(ch, 0)
	m := &models.Message{ID: int(c.msgID.Add(1)), Date: int(time.Now().Unix()), Chat: mc, SenderChat: &mc, Text: q["text"]}
	withCommand(m)
	return map[string]int64{"update_id": c.updates.Push(models.Update{ChannelPost: m})}, nil
}

// bot: the bot added to a chat (status=member or administrator) or
// removed (left, kicked) by user.
func (c *telegramControls) bot(q map[string]string) (any, error) {
	chat, ok := id64(q, "chat")
	status := models.ChatMemberType(q["status"])
	switch status {
	case models.ChatMemberTypeMember, models.ChatMemberTypeAdministrator, models.ChatMemberTypeLeft, models.ChatMemberTypeBanned:
	default:
		ok = false
	}
	if !ok {
		return nil, badRequest("want chat=<id> and status=member|administrator|left|kicked, optional user=<id> and type=group|supergroup|channel")
	}
	user, given := id64(q, "user")
	if !given {
		user = defaultUser
	}
	ch := c.known(chat, q["type"])
	in := status == models.ChatMemberTypeMember || status == models.ChatMemberTypeAdministrator
	out := func(t models.ChatMemberType) models.ChatMember {
		b := botUser
		switch t {
		case models.ChatMemberTypeLeft:
			return models.ChatMember{Type: t, Left: &models.ChatMemberLeft{User: &b}}
		case models.ChatMemberTypeBanned:
			return models.ChatMember{Type: t, Banned: &models.ChatMemberBanned{User: &b}}
		case models.ChatMemberTypeAdministrator:
			return models.ChatMember{Type: t, Administrator: &models.ChatMemberAdministrator{User: b}}
		}
		return models.ChatMember{Type: t, Member: &models.ChatMemberMember{User: &b}}
	}
	old := models.ChatMemberTypeMember
	if in {
		old = models.ChatMemberTypeLeft
	}
	c.tg.SetBotIn(chat, in)
	u := models.Update{MyChatMember: &models.ChatMemberUpdated{Chat: chatOf(ch, 0), From: models.User{ID: user, FirstName: "Tester"},
		Date: int(time.Now().Unix()), OldChatMember: out(old), NewChatMember: out(status)}}
	return map[string]int64{"update_id": c.updates.Push(u)}, nil
}

// migrate: a group becomes a supergroup with a new ID (to), as Telegram
// does when a group gets a public link or a forum: the service messages
// in both chats, and sends to the old ID refused with migrate_to_chat_id.
func (c *telegramControls) migrate(q map[string]string) (any, error) {
	from, ok1 := id64(q, "chat")
	to, ok2 := id64(q, "to")
	if !ok1 || !ok2 || from > 0 || to > 0 || from == to {
		return nil, badRequest("want chat=<group id> and to=<new supergroup id>, both negative")
	}
	old := c.known(from, "group")
	c.tg.AddChat(fakes.Chat{ID: to, Type: "supergroup", Title: old.Title, BotIn: true, Members: old.Members})
	c.tg.FailChat(from, func(int) *fakes.APIError { return fakes.Upgraded(to) })
	now := int(time.Now().Unix())
	oldChat := chatOf(old, 0)
	newChat := models.Chat{ID: to, Type: models.ChatTypeSupergroup, Title: old.Title}
	a := c.updates.Push(models.Update{Message: &models.Message{ID: int(c.msgID.Add(1)), Date: now, Chat: oldChat,
		From: &models.User{ID: defaultUser, FirstName: "Tester"}, MigrateToChatID: to}})
	b := c.updates.Push(models.Update{Message: &models.Message{ID: int(c.msgID.Add(1)), Date: now, Chat: newChat,
		SenderChat: &oldChat, MigrateFromChatID: from}})
	return map[string]int64{"update_id": a, "then": b}, nil
}
