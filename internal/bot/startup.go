package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
)

// Start-up steps: retried with backoff; a rejected token or a URL that
// does not serve the Bot API ends Run with an error naming the setting.

// starter retries start-up steps.
type starter struct {
	log     *slog.Logger
	redact  func(string) string
	tn      tuning
	apiHost string // TELEGRAM_API_URL's scheme and host, for errors
}

// fatal turns a start-up error into Run's result: nil for a shutdown. A
// rejected token or a URL that does not serve the Bot API names the
// setting to fix.
func (s *starter) fatal(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	msg := "telegram bot start-up: " + s.redact(err.Error())
	var ae *apiError
	switch {
	case errors.As(err, &ae) && ae.code == http.StatusUnauthorized:
		msg += ": Telegram rejected TELEGRAM_BOT_TOKEN; check it with @BotFather (/token) and set it again"
	case errors.As(err, &ae) && ae.code == http.StatusNotFound:
		msg += fmt.Sprintf(": TELEGRAM_API_URL (%s) does not serve the Bot API at /bot<token>/, or TELEGRAM_BOT_TOKEN is malformed", s.apiHost)
	}
	return errors.New(msg)
}

// hostOf is a URL's scheme and host, without credentials or path.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "value not shown"
	}
	return u.Scheme + "://" + u.Host
}

// permanent reports errors retrying cannot fix: a rejected token, or an
// API URL that does not serve the Bot API.
func permanent(err error) bool {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.code == http.StatusUnauthorized || ae.code == http.StatusNotFound
	}
	return errors.Is(err, tgbot.ErrorUnauthorized) || errors.Is(err, tgbot.ErrorNotFound)
}

// retry runs fn until it succeeds, fails permanently, ctx ends or
// (attempts > 0) attempts are used up, backing off between tries and
// honouring 429's retry_after.
func (s *starter) retry(ctx context.Context, what string, attempts int, fn func(context.Context) error) error {
	delay := s.tn.retryMin
	for i := 1; ; i++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if permanent(err) || (attempts > 0 && i >= attempts) {
			return fmt.Errorf("%s: %w", what, err)
		}
		wait := delay
		var tm *tgbot.TooManyRequestsError
		var ae *apiError
		if errors.As(err, &tm) && tm.RetryAfter > 0 {
			wait = time.Duration(tm.RetryAfter) * time.Second
		} else if errors.As(err, &ae) && ae.retryAfter > 0 {
			wait = time.Duration(ae.retryAfter) * time.Second
		}
		s.log.Warn("start-up step failed; retrying", "step", what, "attempt", i, "retry_in", wait, "err", s.redact(err.Error()))
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
		delay = min(2*delay, s.tn.retryMax)
	}
}

// sleep is dispatch.Sleep.
var sleep = dispatch.Sleep

// deleteWebhook removes any webhook, keeping pending updates
// (drop_pending_updates=false). Some servers answer with an empty body or
// no result: then getWebhookInfo must confirm that no URL is set.
func deleteWebhook(ctx context.Context, api *rawAPI, log *slog.Logger) error {
	var ok bool
	err := api.call(ctx, nil, "deleteWebhook", map[string]any{"drop_pending_updates": false}, &ok)
	if err == nil && ok {
		return nil
	}
	var ae *apiError
	if err != nil && (errors.As(err, &ae) || ctx.Err() != nil) {
		return err // Telegram said no, or we are shutting down
	}
	var info models.WebhookInfo
	if ierr := api.call(ctx, nil, "getWebhookInfo", map[string]any{}, &info); ierr != nil {
		if err != nil {
			return err
		}
		return ierr
	}
	if info.URL != "" {
		// The URL itself may hold the token; do not show it.
		return errors.New("deleteWebhook: a webhook is still set")
	}
	reason := "result not true"
	if err != nil {
		reason = err.Error()
	}
	log.Info("deleteWebhook gave no clear answer; getWebhookInfo confirms no webhook is set", "answer", reason)
	return nil
}
