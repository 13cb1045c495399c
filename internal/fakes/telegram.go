// Package fakes holds local stand-ins for the Telegram Bot API and a
// Statuspage, speaking their real HTTP APIs, for tests and benchmarks.
package fakes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// APIError is a Telegram error answer.
type APIError struct {
	Code        int
	Description string
	RetryAfter  int
	MigrateTo   int64
}

// Common Telegram errors, with their real descriptions.
var (
	ErrBlocked      = &APIError{Code: 403, Description: "Forbidden: bot was blocked by the user"}
	ErrKicked       = &APIError{Code: 403, Description: "Forbidden: bot was kicked from the supergroup chat"}
	ErrChatNotFound = &APIError{Code: 400, Description: "Bad Request: chat not found"}
	ErrTooLong      = &APIError{Code: 400, Description: "Bad Request: message is too long"}
	ErrParse        = &APIError{Code: 400, Description: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"}
	ErrInternal     = &APIError{Code: 500, Description: "Internal Server Error"}
)

// TooMany is a 429 with retry_after.
func TooMany(seconds int) *APIError {
	return &APIError{Code: 429, Description: fmt.Sprintf("Too Many Requests: retry after %d", seconds), RetryAfter: seconds}
}

// Upgraded is the 400 Telegram answers for a group that became a supergroup.
func Upgraded(newChatID int64) *APIError {
	return &APIError{Code: 400, Description: "Bad Request: group chat was upgraded to a supergroup chat", MigrateTo: newChatID}
}

// Message is one sendMessage the fake accepted.
type Message struct {
	ChatID    int64
	ThreadID  int
	Text      string
	ParseMode string
	NoPreview bool
	At        time.Time
	// ID is the message_id the fake gave it.
	ID int
	// ReplyMarkup is the reply_markup JSON as sent (and as last edited).
	ReplyMarkup string
	// Silent: sent with disable_notification.
	Silent bool
	// Edits counts editMessageText/editMessageReplyMarkup calls that
	// changed it.
	Edits int
	// Deleted: gone (DeleteMessage), so edits fail.
	Deleted bool
	// ReplyTo is the message it replies to (0: none).
	ReplyTo int
	// Times are its date-time entities (as last edited).
	Times []DateTime
	// Paid: sent with allow_paid_broadcast (a paid broadcast).
	Paid bool
}

// Params are a request's parameters, whatever the encoding.
type Params map[string]string

func (p Params) Int64(k string) int64 { n, _ := strconv.ParseInt(p[k], 10, 64); return n }

// Handler answers one Bot API method: a result, or an error.
type Handler func(p Params) (any, *APIError)

// Telegram is a fake Bot API server.
type Telegram struct {
	Server *httptest.Server
	Token  string

	mu        sync.Mutex
	handlers  map[string]Handler
	messages  []Message
	failures  map[int64]func(attempt int) *APIError
	attempts  map[int64]int
	calls     map[string]int
	answered  map[string]int
	nextMsgID int
	// Rate limits like Telegram's: 0 disables (the default; RealLimits
	// sets Telegram's). Violations get 429 with retry_after. They count
	// sendMessage, edit (editMessageText, editMessageReplyMarkup), pin and
	// unpin calls of the token, whoever makes them (worker or bot): see telegram_limits.go.
	GlobalPerSecond int // messages and edits per second, any chats
	// PaidPerSecond is the overall limit for a sendMessage with
	// allow_paid_broadcast (Telegram's paid broadcasts: up to 1000 a
	// second); 0 holds those to GlobalPerSecond like any other call.
	// Edits, pins and unpins have no such parameter: they stay within
	// GlobalPerSecond, counted among every call of the last second.
	PaidPerSecond     int
	PerChatInterval   time.Duration // between two messages or edits in one chat
	PerGroupPerMinute int           // messages and edits per minute in one group (negative chat ID)
	lastPerChat       map[int64]time.Time
	perGroup          map[int64][]time.Time
	window            []time.Time
	counted           []time.Time // every call the limits let through
	tooMany           int
	hang              time.Duration
	edits             []Edit
	kb                *keyboardState
	answerDelay       time.Duration
	outage            *APIError
	cardState         *cardState      // telegram_cards.go
	deletions         []Deletion      // telegram_delete.go
	chats             map[int64]*Chat // telegram_chats.go
	refusedEntities   int             // telegram_entities.go
}

// RealLimits makes the fake enforce Telegram's documented limits for one
// token: about 30 messages a second overall (up to 1000 for messages sent
// with allow_paid_broadcast), one a second per chat, 20 a minute per group,
// edits and pins counted like messages. Call it before traffic starts.
func (t *Telegram) RealLimits() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.GlobalPerSecond, t.PerChatInterval, t.PerGroupPerMinute = 30, time.Second, 20
	t.PaidPerSecond = 1000
}

// NewTelegram starts a fake for the given token; close it with Close.
func NewTelegram(token string) *Telegram {
	t := &Telegram{Token: token, handlers: map[string]Handler{}, failures: map[int64]func(int) *APIError{},
		attempts: map[int64]int{}, calls: map[string]int{}, answered: map[string]int{}, lastPerChat: map[int64]time.Time{}, perGroup: map[int64][]time.Time{}}
	t.handlers["getMe"] = func(Params) (any, *APIError) {
		return map[string]any{"id": botID, "is_bot": true, "first_name": "Status", "username": "openai_status_test_bot"}, nil
	}
	for _, m := range []string{"deleteWebhook", "setMyCommands"} {
		t.handlers[m] = func(Params) (any, *APIError) { return true, nil }
	}
	t.installKeyboard()
	t.installEdits()
	t.installDeletes()
	t.handlers["getWebhookInfo"] = func(Params) (any, *APIError) {
		return map[string]any{"url": "", "has_custom_certificate": false, "pending_update_count": 0}, nil
	}
	t.cardHandlers()
	t.Server = httptest.NewServer(http.HandlerFunc(t.serve))
	return t
}

// ServeHTTP makes the fake usable behind any server (cmd/fakeapis).
func (t *Telegram) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.serve(w, r) }

// URL is the value for TELEGRAM_API_URL.
func (t *Telegram) URL() string { return t.Server.URL }

// Close stops the server.
func (t *Telegram) Close() { t.Server.Close() }

// Handle sets the answer for a method.
func (t *Telegram) Handle(method string, h Handler) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.handlers[method] = h
}

// FailChat makes sendMessage to chatID answer f(attempt) (attempt counts
// from 1), and its edits, pins and unpins too, as Telegram answers every
// call to a group that moved; a nil answer lets the call through.
func (t *Telegram) FailChat(chatID int64, f func(attempt int) *APIError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failures[chatID] = f
}

// Outage makes every sendMessage fail with e, for every chat, until
// called with nil.
func (t *Telegram) Outage(e *APIError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outage = e
}

// AnswerDelay makes every sendMessage accept the message at once and
// answer d later (0 to stop): a client that gives up meanwhile does not
// know the message was sent.
func (t *Telegram) AnswerDelay(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answerDelay = d
}

// Hang makes every sendMessage wait d before answering (0 to stop).
func (t *Telegram) Hang(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hang = d
}

// Messages returns the accepted messages so far.
func (t *Telegram) Messages() []Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Message(nil), t.messages...)
}

// MessageCount is len(Messages()) without the copy (benchmarks poll it).
func (t *Telegram) MessageCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.messages)
}

// MessagesTo returns the messages accepted for one chat (and thread).
func (t *Telegram) MessagesTo(chatID int64, threadID int) []Message {
	var out []Message
	for _, m := range t.Messages() {
		if m.ChatID == chatID && m.ThreadID == threadID {
			out = append(out, m)
		}
	}
	return out
}

// Calls counts requests per method, accepted or not.
func (t *Telegram) Calls(method string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[method]
}

// Answered counts requests per method the fake has finished answering
// (Calls counts them as they arrive).
func (t *Telegram) Answered(method string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.answered[method]
}

// TooManyCount is how many 429s the rate limits produced.
func (t *Telegram) TooManyCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tooMany
}

func (t *Telegram) serve(w http.ResponseWriter, r *http.Request) {
	prefix := "/bot" + t.Token + "/"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		writeJSON(w, 401, map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	method := strings.TrimPrefix(r.URL.Path, prefix)
	p, err := parseParams(r)
	if err != nil {
		writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: " + err.Error()})
		return
	}
	t.mu.Lock()
	t.calls[method]++
	h := t.handlers[method]
	hang, answerDelay := t.hang, t.answerDelay
	t.mu.Unlock()

	var res any
	var apiErr *APIError
	defer func() {
		t.mu.Lock()
		t.answered[method]++
		t.mu.Unlock()
	}()
	switch {
	case method == "sendMessage" && h == nil:
		if hang > 0 {
			select {
			case <-time.After(hang):
			case <-r.Context().Done():
				return
			}
		}
		res, apiErr = t.sendMessage(p)
		if answerDelay > 0 {
			select {
			case <-time.After(answerDelay):
			case <-r.Context().Done():
				return
			}
		}
	case h != nil:
		res, apiErr = h(p)
	default:
		apiErr = &APIError{Code: 404, Description: "Not Found: method not found"}
	}
	if apiErr != nil {
		body := map[string]any{"ok": false, "error_code": apiErr.Code, "description": apiErr.Description}
		params := map[string]any{}
		if apiErr.RetryAfter > 0 {
			params["retry_after"] = apiErr.RetryAfter
		}
		if apiErr.MigrateTo != 0 {
			params["migrate_to_chat_id"] = apiErr.MigrateTo
		}
		if len(params) > 0 {
			body["parameters"] = params
		}
		writeJSON(w, apiErr.Code, body)
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "result": res})
}

func (t *Telegram) sendMessage(p Params) (any, *APIError) {
	chatID := p.Int64("chat_id")
	thread, _ := strconv.Atoi(p["message_thread_id"])
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.outage != nil {
		return nil, t.outage
	}
	if f := t.failures[chatID]; f != nil {
		t.attempts[chatID]++
		if e := f(t.attempts[chatID]); e != nil {
			return nil, e
		}
	}
	times, perr := checkEntities(p, now)
	t.refusedEntities += countRefused(perr)
	if perr != nil {
		return nil, perr
	}
	if e := t.admitPaid(chatID, now, p["allow_paid_broadcast"] == "true"); e != nil {
		return nil, e
	}
	noPreview := strings.Contains(p["link_preview_options"], `"is_disabled":true`) || p["disable_web_page_preview"] == "true"
	t.nextMsgID++
	t.messages = append(t.messages, Message{ChatID: chatID, ThreadID: thread, Text: p["text"], ParseMode: p["parse_mode"],
		NoPreview: noPreview, At: now, ID: t.nextMsgID, ReplyMarkup: p["reply_markup"], Silent: p["disable_notification"] == "true",
		ReplyTo: replyTo(p), Times: times, Paid: p["allow_paid_broadcast"] == "true"})
	msg := map[string]any{"message_id": t.nextMsgID, "date": now.Unix(), "chat": map[string]any{"id": chatID, "type": "private"}, "text": p["text"]}
	if thread != 0 {
		msg["message_thread_id"] = thread
	}
	return msg, nil
}

func parseParams(r *http.Request) (Params, error) {
	p := Params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				// go-telegram/bot sends an empty body for calls without parameters.
				break
			}
			if err != nil {
				return nil, err
			}
			b, _ := io.ReadAll(part)
			p[part.FormName()] = string(b)
		}
	case "application/json":
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			return nil, err
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				p[k] = s
			} else {
				b, _ := json.Marshal(v)
				p[k] = string(b)
			}
		}
	case "application/x-www-form-urlencoded":
		b, _ := io.ReadAll(r.Body)
		v, err := url.ParseQuery(string(b))
		if err != nil {
			return nil, err
		}
		for k := range v {
			p[k] = v.Get(k)
		}
	}
	return p, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
