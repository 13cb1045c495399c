// Package telegram sends notifications through the Bot API and sorts its
// failures into what the delivery workflow does about them.
package telegram

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/metrics"
)

// Outcome says what a failed send means for the subscriber.
type Outcome string

const (
	// Transient: retry with backoff (network, 5xx, timeouts).
	Transient Outcome = "transient"
	// RateLimited: wait exactly RetryAfter, then retry.
	RateLimited Outcome = "rate_limited"
	// Terminal: the chat is gone for us; remove the subscriber.
	Terminal Outcome = "terminal"
	// Migrated: the group became a supergroup; send to MigrateTo.
	Migrated Outcome = "migrated"
	// Permanent: this message can never be sent; fail it visibly.
	Permanent Outcome = "permanent"
)

// SendError is a classified send failure; its text never holds the token.
type SendError struct {
	Outcome     Outcome
	Description string
	RetryAfter  time.Duration
	MigrateTo   int64
	RetryAt     time.Time // NotYet: when the chat's turn comes
}

func (e *SendError) Error() string { return string(e.Outcome) + ": " + e.Description }

// Classify sorts an error from go-telegram/bot. token is redacted.
func Classify(err error, token string) *SendError {
	desc := Redact(err.Error(), token)
	var tm *tgbot.TooManyRequestsError
	if errors.As(err, &tm) {
		ra := time.Duration(tm.RetryAfter) * time.Second
		if ra <= 0 {
			ra = time.Second
		}
		return &SendError{Outcome: RateLimited, Description: desc, RetryAfter: ra}
	}
	var mg *tgbot.MigrateError
	if errors.As(err, &mg) {
		return &SendError{Outcome: Migrated, Description: desc, MigrateTo: int64(mg.MigrateToChatID)}
	}
	low := strings.ToLower(desc)
	switch {
	case errors.Is(err, tgbot.ErrorForbidden):
		return &SendError{Outcome: Terminal, Description: desc}
	case errors.Is(err, tgbot.ErrorBadRequest):
		for _, s := range terminalBadRequests {
			if strings.Contains(low, s) {
				return &SendError{Outcome: Terminal, Description: desc}
			}
		}
		// Any other 400 is about this message (too long, can't parse
		// entities, missing rights): retrying cannot help.
		return &SendError{Outcome: Permanent, Description: desc}
	case errors.Is(err, tgbot.ErrorUnauthorized), errors.Is(err, tgbot.ErrorNotFound):
		// A revoked token or wrong API URL: every send fails until an
		// operator fixes it, so keep retrying and stay visible.
		return &SendError{Outcome: Transient, Description: desc}
	}
	return &SendError{Outcome: Transient, Description: desc}
}

var terminalBadRequests = []string{
	"chat not found", "message thread not found", "message thread is closed", "topic_closed",
	"bot was kicked", "bot is not a member", "user is deactivated", "peer_id_invalid",
}

// Missing rights to send (a muted bot, a channel post right taken away) can
// be temporary: the message fails visibly, the subscription stays.

// Redact removes the bot token from text (transport errors embed the URL).
func Redact(s, token string) string {
	if token == "" {
		return s
	}
	s = strings.ReplaceAll(s, token, "<redacted>")
	// The numeric bot ID before the colon is public; the secret half is not.
	if i := strings.IndexByte(token, ':'); i >= 0 && len(token) > i+1 {
		s = strings.ReplaceAll(s, token[i+1:], "<redacted>")
	}
	return s
}

// Sender sends HTML messages with link previews off. Its calls that post
// or change messages (sends, edits, pins) are paced in this process: one
// call at a time per chat, a second apart, and at most the rate given with
// CallsPerSecond overall (pace.go).
type Sender struct {
	bot   *tgbot.Bot
	token string
	pace  *pacer
	rate  float64
	// paid: notices go out as paid broadcasts (PaidBroadcast); free
	// spaces the calls that cannot be paid (edits, pins) within
	// Telegram's free rate meanwhile.
	paid bool
	free *spacer
}

// Option configures a Sender.
type Option func(*Sender)

// CallsPerSecond limits the Bot API calls that post or change messages
// (sendMessage, editMessageText, pinChatMessage, unpinChatMessage) to
// perSecond across every chat, evenly spaced; 0 leaves them unlimited
// (but for the one-a-second spacing per chat).
func CallsPerSecond(perSecond float64) Option { return func(s *Sender) { s.rate = perSecond } }

// PaidBroadcast sends every message with allow_paid_broadcast
// (TELEGRAM_PAID_BROADCAST): Telegram then lets the bot send up to 1000 a
// second, for a fee in Stars per message above the free 30. Only
// sendMessage takes the parameter: edits, pins and unpins stay within the
// free rate, spaced by this process at FreeCallsPerSecond. The worker's
// sender sends notices only; the command bot's replies never go paid.
func PaidBroadcast(on bool) Option { return func(s *Sender) { s.paid = on } }

// FreeCallsPerSecond is this process's pace for the calls a paid broadcast
// does not cover (edits, pins): below Telegram's free 30 a second.
const FreeCallsPerSecond = 25

// NewSender builds a sender for {apiURL}/bot{token}/{method}.
func NewSender(apiURL, token string, timeout time.Duration, opts ...Option) (*Sender, error) {
	b, err := tgbot.New(token, tgbot.WithServerURL(strings.TrimRight(apiURL, "/")), tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(timeout, &http.Client{Timeout: timeout}))
	if err != nil {
		return nil, errors.New(Redact(err.Error(), token))
	}
	s := &Sender{bot: b, token: token}
	for _, o := range opts {
		o(s)
	}
	s.pace = newPacer(time.Second, s.rate)
	if s.paid {
		s.free = newSpacer(time.Duration(float64(time.Second) / FreeCallsPerSecond))
	}
	return s, nil
}

// pacedAs runs call when the pacing lets a call to chatID start and
// returns its error; a call that a paid broadcast does not cover (paid
// false: an edit, a pin) also waits for this process's free pace. A wait
// cut short by ctx makes no call: wait is then a Transient *SendError, for
// the caller to return as it is.
func (s *Sender) pacedAs(ctx context.Context, chatID int64, paid bool, call func() error) (wait *SendError, err error) {
	if !paid && s.free != nil {
		if err := s.free.wait(ctx); err != nil {
			return &SendError{Outcome: Transient, Description: "waiting for a Telegram send slot: " + err.Error()}, nil
		}
	}
	if turn, ok := ctx.Value(turnKey{}).(Turn); ok {
		return s.inTurn(ctx, turn, call)
	}
	done, werr := s.pace.wait(ctx, chatID)
	if werr != nil {
		return &SendError{Outcome: Transient, Description: "waiting for a Telegram send slot: " + werr.Error()}, nil
	}
	defer done()
	return nil, call()
}

// SendOptions are per-message choices.
type SendOptions struct {
	// Silent sends with disable_notification (quiet hours).
	Silent bool
	// ReplyTo makes the message a reply to that message (incident cards).
	ReplyTo int
}

// Send delivers text to a chat or topic. Failures are *SendError.
func (s *Sender) Send(ctx context.Context, chatID int64, threadID int, text string) error {
	return s.SendWith(ctx, chatID, threadID, text, SendOptions{})
}

// SendWith is Send with options.
func (s *Sender) SendWith(ctx context.Context, chatID int64, threadID int, text string, opts SendOptions) error {
	_, err := s.SendMessage(ctx, chatID, threadID, text, opts)
	return err
}

// SendMessage delivers text to a chat or topic, silently or as a reply to
// opts.ReplyTo when set (sent all the same when that message is gone), and
// returns the new message's ID. Failures are *SendError.
func (s *Sender) SendMessage(ctx context.Context, chatID int64, threadID int, text string, opts SendOptions) (int, error) {
	disabled := true
	params := &tgbot.SendMessageParams{
		ChatID:              chatID,
		MessageThreadID:     threadID,
		Text:                text,
		ParseMode:           models.ParseModeHTML,
		LinkPreviewOptions:  &models.LinkPreviewOptions{IsDisabled: &disabled},
		DisableNotification: opts.Silent,
		AllowPaidBroadcast:  s.paid,
	}
	if opts.ReplyTo != 0 {
		params.ReplyParameters = &models.ReplyParameters{MessageID: opts.ReplyTo, AllowSendingWithoutReply: true}
	}
	var msg *models.Message
	wait, err := s.htmlOrPlain(ctx, chatID, text, true, func(text string, mode models.ParseMode) (err error) {
		params.Text, params.ParseMode = text, mode
		msg, err = s.bot.SendMessage(ctx, params)
		return err
	})
	if wait != nil {
		return 0, wait
	}
	if err != nil {
		se := Classify(err, s.token)
		metrics.TelegramSend(string(se.Outcome), se.RetryAfter)
		return 0, se
	}
	metrics.TelegramSend("sent", 0)
	return msg.ID, nil
}
