package fakes

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
)

// Inline keyboards: callback queries pushed through the updates fake,
// answerCallbackQuery with Telegram's rules (each query answered once,
// within about 15 seconds), and setMyCommands recorded per scope.

// ErrQueryTooOld is the answer to a late, repeated or unknown query.
var ErrQueryTooOld = &APIError{Code: 400, Description: "Bad Request: query is too old and response timeout expired or query ID is invalid"}

// QueryTimeout is how long Telegram waits for answerCallbackQuery.
const QueryTimeout = 15 * time.Second

// CallbackAnswer is one answerCallbackQuery the fake accepted.
type CallbackAnswer struct {
	QueryID   string
	Text      string
	ShowAlert bool
	// At is when the fake accepted it.
	At time.Time
}

type keyboardState struct {
	mu       sync.Mutex
	queries  map[string]time.Time // open queries: ID -> when pushed
	answers  []CallbackAnswer
	commands map[string][]models.BotCommand // scope type -> commands
	nextID   int
}

func (t *Telegram) installKeyboard() {
	t.kb = &keyboardState{queries: map[string]time.Time{}, commands: map[string][]models.BotCommand{}}
	t.handlers["answerCallbackQuery"] = t.answerCallbackQuery
	t.handlers["setMyCommands"] = t.setMyCommands
}

// Tap pushes a callback query: user fromID pressed the button with data
// on the bot's message msg. It returns the query's ID.
func (t *Telegram) Tap(u *Updates, msg Message, chatType models.ChatType, fromID int64, data string) string {
	t.kb.mu.Lock()
	t.kb.nextID++
	id := "q" + strconv.Itoa(t.kb.nextID)
	t.kb.queries[id] = time.Now()
	t.kb.mu.Unlock()
	m := &models.Message{ID: msg.ID, Date: int(msg.At.Unix()), Text: msg.Text,
		Chat: models.Chat{ID: msg.ChatID, Type: chatType},
		From: &models.User{ID: 1000, IsBot: true, FirstName: "Status"}}
	if msg.ThreadID != 0 {
		m.MessageThreadID, m.IsTopicMessage = msg.ThreadID, true
		m.Chat.IsForum = true
	}
	if msg.ReplyTo != 0 {
		// Telegram sends the message replied to along (without its own
		// reply_to_message).
		m.ReplyToMessage = &models.Message{ID: msg.ReplyTo, Chat: m.Chat}
	}
	u.Push(models.Update{CallbackQuery: &models.CallbackQuery{ID: id,
		From:         models.User{ID: fromID, FirstName: "User"},
		Message:      models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage, Message: m},
		ChatInstance: "ci" + strconv.FormatInt(msg.ChatID, 10), Data: data}})
	return id
}

func (t *Telegram) answerCallbackQuery(p Params) (any, *APIError) {
	k := t.kb
	k.mu.Lock()
	defer k.mu.Unlock()
	id := p["callback_query_id"]
	at, ok := k.queries[id]
	if !ok || time.Since(at) > QueryTimeout {
		return nil, ErrQueryTooOld
	}
	delete(k.queries, id)
	k.answers = append(k.answers, CallbackAnswer{QueryID: id, Text: p["text"], ShowAlert: p["show_alert"] == "true", At: time.Now()})
	return true, nil
}

// Answers returns the accepted answerCallbackQuery calls.
func (t *Telegram) Answers() []CallbackAnswer {
	t.kb.mu.Lock()
	defer t.kb.mu.Unlock()
	return append([]CallbackAnswer(nil), t.kb.answers...)
}

// Answer returns the answer to one query, if any.
func (t *Telegram) Answer(queryID string) (CallbackAnswer, bool) {
	for _, a := range t.Answers() {
		if a.QueryID == queryID {
			return a, true
		}
	}
	return CallbackAnswer{}, false
}

func (t *Telegram) setMyCommands(p Params) (any, *APIError) {
	var cmds []models.BotCommand
	if err := json.Unmarshal([]byte(p["commands"]), &cmds); err != nil {
		return nil, &APIError{Code: 400, Description: "Bad Request: can't parse commands JSON object"}
	}
	var scope struct {
		Type string `json:"type"`
	}
	scope.Type = "default"
	if p["scope"] != "" {
		if err := json.Unmarshal([]byte(p["scope"]), &scope); err != nil {
			return nil, &APIError{Code: 400, Description: "Bad Request: can't parse BotCommandScope JSON object"}
		}
	}
	t.kb.mu.Lock()
	defer t.kb.mu.Unlock()
	// Telegram keeps one menu per scope and language_code ("": users
	// whose language has no menu of its own).
	t.kb.commands[scope.Type+"/"+p["language_code"]] = cmds
	return true, nil
}

// CommandMenu returns the commands set for a scope type ("default",
// "all_private_chats", "all_group_chats", "all_chat_administrators")
// without a language_code.
func (t *Telegram) CommandMenu(scope string) []models.BotCommand {
	return t.CommandMenuIn(scope, "")
}

// CommandMenuIn returns the commands set for a scope type and a
// language_code ("de").
func (t *Telegram) CommandMenuIn(scope, lang string) []models.BotCommand {
	t.kb.mu.Lock()
	defer t.kb.mu.Unlock()
	return t.kb.commands[scope+"/"+lang]
}
