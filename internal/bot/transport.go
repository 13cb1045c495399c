package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/metrics"
)

// The transport: Bot API calls with JSON bodies and the long poll, which
// knows updates, their IDs and the offset; it hands each update to the
// dispatcher and learns from the tracker what was handled.

// rawAPI calls Bot API methods with JSON bodies. It serves getUpdates
// (go-telegram/bot has no public call for it) and the start-up calls,
// whose answers must be read exactly (an empty body is not an error of the
// method). Its errors never hold the token.
type rawAPI struct {
	base   string // {api}/bot{token}/
	client *http.Client
	redact func(string) string
}

// maxAnswerBody bounds an answer (getUpdates: 100 updates).
const maxAnswerBody = 32 << 20

// errEmptyAnswer is an answer without a body.
var errEmptyAnswer = errors.New("empty answer")

// call posts params as JSON and decodes the result into dest. client nil
// means the default client.
func (a *rawAPI) call(ctx context.Context, client *http.Client, method string, params, dest any) error {
	if client == nil {
		client = a.client
	}
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+method, bytes.NewReader(body))
	if err != nil {
		return errors.New(a.redact(err.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return errors.New(a.redact(err.Error()))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody))
	if err != nil {
		return errors.New(a.redact(err.Error()))
	}
	notAPI := func(what string) error {
		// A 401 or 404 page that is not a Bot API answer: the URL or the
		// token is wrong, and retrying will not help.
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusNotFound {
			return &apiError{method: method, code: resp.StatusCode, desc: http.StatusText(resp.StatusCode) + " (" + what + ")"}
		}
		return nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		if err := notAPI("empty answer"); err != nil {
			return err
		}
		return fmt.Errorf("telegram %s: HTTP %d: %w", method, resp.StatusCode, errEmptyAnswer)
	}
	var r struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		if err := notAPI("not a Bot API answer"); err != nil {
			return err
		}
		return fmt.Errorf("telegram %s: HTTP %d, undecodable answer: %w", method, resp.StatusCode, err)
	}
	if !r.OK {
		code := r.ErrorCode
		if code == 0 {
			code = resp.StatusCode
		}
		return &apiError{method: method, code: code, desc: a.redact(r.Description), retryAfter: r.Parameters.RetryAfter}
	}
	if dest != nil && len(r.Result) > 0 {
		if err := json.Unmarshal(r.Result, dest); err != nil {
			return fmt.Errorf("telegram %s: undecodable result: %w", method, err)
		}
	}
	return nil
}

// poller is the long-poll loop.
type poller struct {
	api        *rawAPI
	client     *http.Client // with the long-poll timeout
	redact     func(string) string
	timeout    time.Duration
	silence    time.Duration
	stallAfter time.Duration
	now        func() time.Time
	log        *slog.Logger

	tracker  *tracker
	disp     *dispatch.Dispatcher
	handle   func(upd *models.Update, gen int, release func())
	flood    func(*models.Update) // answers a flooding sender once
	dropTap  func(*models.CallbackQuery)
	saveSoon func() // asks for the watermark to be saved
	// urgent tells an admin's command; expect holds a group's casual
	// replies back from its receipt until it is handled (pace.go).
	urgent func(*models.Update) bool
	expect func(chatID int64) (release func())

	lastRound atomic.Int64 // UnixNano of the last successful getUpdates
	lastErr   atomic.Pointer[string]
	// waiting is the UnixNano when updates arrived that are not all
	// handled yet (0: none since the last one was handled).
	waiting atomic.Int64
}

// healthy is the "long-poll loop alive and handling" check.
func (p *poller) healthy(context.Context) error {
	now := p.now()
	if since := p.waiting.Load(); since != 0 && p.stallAfter > 0 {
		if age := now.Sub(time.Unix(0, since)); age > p.stallAfter {
			return fmt.Errorf("updates arrived %s ago but none was handled since", age.Round(time.Second))
		}
	}
	age := now.Sub(time.Unix(0, p.lastRound.Load()))
	if age <= p.silence {
		return nil
	}
	msg := fmt.Sprintf("no successful getUpdates for %s", age.Round(time.Second))
	if e := p.lastErr.Load(); e != nil {
		msg += " (last error: " + *e + ")"
	}
	return errors.New(msg)
}

// arrived notes updates returned by getUpdates at t; the oldest
// arrival not followed by a handled update counts.
func (p *poller) arrived(t time.Time) { p.waiting.CompareAndSwap(0, t.UnixNano()) }

// handled notes progress: an update was handled (or deliberately skipped).
func (p *poller) handled() { p.waiting.Store(0) }

// finished records an update as handled.
func (p *poller) finished(id int64, gen int) {
	p.tracker.done(id, gen)
	p.handled()
	p.saveSoon()
}

// loop polls until ctx ends.
func (p *poller) loop(ctx context.Context) {
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		offset := p.tracker.watermark() + 1
		upds, err := p.getUpdates(ctx, offset)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			msg := p.redact(err.Error())
			p.lastErr.Store(&msg)
			backoff = nextBackoff(backoff)
			wait := backoff
			var ae *apiError
			if errors.As(err, &ae) && ae.retryAfter > 0 {
				wait = time.Duration(ae.retryAfter) * time.Second
			}
			if errors.As(err, &ae) && ae.code == http.StatusConflict {
				p.log.Warn("getUpdates conflict: another instance is polling or a webhook is set", "err", msg, "retry_in", wait)
			} else {
				p.log.Warn("getUpdates failed", "err", msg, "retry_in", wait)
			}
			if !sleep(ctx, wait) {
				return
			}
			continue
		}
		backoff = 0
		p.lastRound.Store(p.now().UnixNano())
		metrics.LongPollSucceeded()
		if len(upds) == 0 {
			continue
		}
		p.arrived(p.now())
		p.followRestartedIDs(offset, upds)
		fresh, ok := p.dispatch(ctx, upds)
		if !ok {
			return
		}
		if fresh == 0 {
			// Everything returned is in flight: wait for progress rather
			// than asking again at once, but not long: Telegram returns
			// the in-flight updates at once, so new ones (a tap to answer
			// within seconds) are only seen by asking again.
			t := time.NewTimer(busyPoll)
			select {
			case <-ctx.Done():
			case <-p.tracker.changed:
			case <-t.C:
			}
			t.Stop()
		}
	}
}

// followRestartedIDs detects Telegram restarting its update IDs: asked
// for updates from offset, it returned lower ones, which it only does in
// a new ID space (after a week without updates the next ID is random; a
// new token starts its own). The bot then follows the new IDs; updates
// still in flight from the old space finish on their own.
func (p *poller) followRestartedIDs(offset int64, upds []polled) {
	lowest := upds[0].ID
	for _, u := range upds[1:] {
		lowest = min(lowest, u.ID)
	}
	if lowest >= offset {
		return
	}
	p.log.Warn("Telegram restarted its update IDs below the stored offset; following the new IDs",
		"offset", offset, "first_update_id", lowest)
	p.tracker.rebase(lowest - 1)
	p.saveSoon()
}

// dispatch hands the new updates to the dispatcher; fresh counts them, ok
// is false when ctx ended.
func (p *poller) dispatch(ctx context.Context, upds []polled) (fresh int, ok bool) {
	for _, u := range upds {
		if !p.tracker.isNew(u.ID) {
			continue // still being handled: Telegram sent it again
		}
		fresh++
		gen := p.tracker.start(u.ID)
		if u.bad {
			p.log.Warn("skipping an update that could not be decoded", "update_id", u.ID, "err", u.err)
			p.finished(u.ID, gen)
			continue
		}
		upd, id := u.upd, u.ID
		release := func() {}
		if p.urgent != nil && p.expect != nil && p.urgent(upd) {
			release = p.expect(chatOf(upd))
		}
		j := dispatch.Job{Run: func() { defer release(); p.handle(upd, gen, release) }}
		if droppable(upd) {
			j.Drop = func() {
				defer release()
				if upd.CallbackQuery != nil && p.dropTap != nil {
					p.dropTap(upd.CallbackQuery)
				}
				p.finished(id, gen)
			}
		}
		from := laneOf(upd)
		a, ok := p.disp.Submit(ctx, from, j)
		if !ok {
			release()
			p.tracker.abort(u.ID, gen)
			return fresh, false
		}
		if a == dispatch.FloodStarted {
			p.log.Warn("a sender is flooding the bot: their commands are dropped beyond their budget", "chat_id", from.Chat)
			if _, ok := p.disp.Submit(ctx, from, dispatch.Job{Run: func() { p.flood(upd) }}); !ok {
				return fresh, false
			}
		}
	}
	return fresh, true
}

// droppable reports whether a flood may drop the update: commands and
// button presses may be, not what keeps subscriptions right (the bot
// removed from a chat, a group moved to a supergroup).
func droppable(u *models.Update) bool {
	switch {
	case u.Message != nil:
		return u.Message.MigrateToChatID == 0 && u.Message.MigrateFromChatID == 0
	case u.ChannelPost != nil:
		return u.ChannelPost.MigrateToChatID == 0 && u.ChannelPost.MigrateFromChatID == 0
	case u.CallbackQuery != nil, u.EditedMessage != nil:
		return true
	}
	return false
}

// busyPoll is the pause between two getUpdates while every update they
// return is still being handled.
const busyPoll = 50 * time.Millisecond

func nextBackoff(d time.Duration) time.Duration {
	if d == 0 {
		return 100 * time.Millisecond
	}
	return min(2*d, 5*time.Second)
}

// chatOf is the key that orders an update's handling: its chat.
func chatOf(u *models.Update) int64 {
	switch {
	case u.Message != nil:
		return u.Message.Chat.ID
	case u.ChannelPost != nil:
		return u.ChannelPost.Chat.ID
	case u.MyChatMember != nil:
		return u.MyChatMember.Chat.ID
	case u.CallbackQuery != nil:
		if m := u.CallbackQuery.Message.Message; m != nil {
			return m.Chat.ID
		}
		if m := u.CallbackQuery.Message.InaccessibleMessage; m != nil {
			return m.Chat.ID
		}
		return u.CallbackQuery.From.ID
	case u.EditedMessage != nil:
		return u.EditedMessage.Chat.ID
	}
	return 0
}

// apiError is a Bot API error answer.
type apiError struct {
	method     string
	code       int
	desc       string
	retryAfter int
}

func (e *apiError) Error() string { return fmt.Sprintf("telegram %s: %d %s", e.method, e.code, e.desc) }

type polled struct {
	ID  int64
	upd *models.Update
	bad bool
	err string
}

func (p *poller) getUpdates(ctx context.Context, offset int64) ([]polled, error) {
	var items []json.RawMessage
	err := p.api.call(ctx, p.client, "getUpdates", map[string]any{
		"offset":          offset,
		"timeout":         int(p.timeout / time.Second),
		"allowed_updates": AllowedUpdates,
	}, &items)
	if err != nil {
		return nil, err
	}
	return decodeUpdates(items), nil
}

// decodeUpdates reads getUpdates' result. An update that does not decode
// is returned as bad (with its ID) so the offset can move past it: one
// malformed update must not block every later one.
func decodeUpdates(items []json.RawMessage) []polled {
	out := make([]polled, 0, len(items))
	for _, item := range items {
		var u models.Update
		if err := json.Unmarshal(item, &u); err != nil {
			var idOnly struct {
				ID *int64 `json:"update_id"`
			}
			if json.Unmarshal(item, &idOnly) != nil || idOnly.ID == nil {
				continue // no ID: nothing to skip past
			}
			out = append(out, polled{ID: *idOnly.ID, bad: true, err: err.Error()})
			continue
		}
		out = append(out, polled{ID: u.ID, upd: &u})
	}
	return out
}
