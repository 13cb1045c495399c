// Package bot is the long-poll process that answers Telegram commands and
// manages subscriptions (`statusbot bot`).
//
// Start-up: deleteWebhook with drop_pending_updates=false (an empty or
// unclear answer is confirmed with getWebhookInfo), getMe with retries
// (the username is needed for "/cmd@bot"), setMyCommands, then long
// polling from the offset stored in MongoDB. Transient failures are
// retried with backoff; 401/404 end Run with an error (token redacted).
//
// Long polling is this package's own loop, not go-telegram/bot's Start:
// that loop acknowledges a batch to Telegram (by asking for the next one)
// before its updates are handled, drops the updates still buffered when
// its context ends and hands handlers the cancelled context, so a restart
// could lose updates. Here every getUpdates asks for the offset after the
// watermark, the last update up to which everything was handled, so
// Telegram keeps an update until it was handled; updates already
// dispatched are skipped when Telegram sends them again. The watermark is
// saved after each handled update and at shutdown. A graceful restart
// replays nothing and loses nothing. A crash loses nothing and replays
// only what was handled after the saved watermark: the updates in flight
// at that moment (and, when a slow update held the watermark back, the
// ones after it that had finished); with one command at a time that is at
// most one.
//
// Updates are handled concurrently with a bound, each chat's in order, so
// a slow status page or a slow chat never stalls other users. A chat with
// more than a few commands waiting is flooding: its waiting and further
// commands are dropped (answered once) until it is quiet, since getUpdates
// returns at most 100 updates after the oldest unfinished one and a long
// queue would hold every other chat's updates unfetched. When Telegram
// restarts its update IDs below the watermark (after a week without
// updates, or for a new token) the bot follows the new IDs. Replies go
// out at most BOT_REPLY_RATE a second, the bot's share of the token's
// rate. Health fails when getUpdates stops succeeding, or when updates
// arrive and none is handled for a minute. getUpdates,
// deleteWebhook, getWebhookInfo and getMe are plain JSON calls (rawAPI:
// go-telegram/bot has no public getUpdates, and its parameterless calls
// send an empty multipart body); every other call goes through
// go-telegram/bot.
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
	"net/url"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/health"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// AllowedUpdates are the update types the bot asks Telegram for.
var AllowedUpdates = []string{
	models.AllowedUpdateMessage,
	models.AllowedUpdateChannelPost,
	models.AllowedUpdateMyChatMember,
	models.AllowedUpdateCallbackQuery,
}

// tuning holds the knobs tests shorten.
type tuning struct {
	pollTimeout     time.Duration // long-poll timeout asked of Telegram
	maxPending      int           // updates queued or being handled
	maxRunning      int           // updates being handled at once
	handlerTimeout  time.Duration // one update's handling
	shutdownTimeout time.Duration // waiting for in-flight handlers
	retryMin        time.Duration // start-up and poll error backoff
	retryMax        time.Duration
	maxReplyWait    time.Duration // longest 429 wait before a reply
	flood           floodRule     // what one sender in one chat may ask
	groupPace       paceRule      // the bot's own budget in each group
	stallAfter      time.Duration // updates unhandled this long make health fail
	now             func() time.Time
}

// tokenBudget is the messages per second the worker and the bot may send
// together on one token: Telegram allows about 30, and the worker's limit
// (Temporal's task-queue rate limiter) was measured overshooting its rate
// by up to 4 in a second (internal/bot TestCommandBurstDuringFanOutCausesNo429).
const tokenBudget = 24

// defaultFlood lets a sender send a few commands in a row, then one every
// two seconds; more is a flood, dropped and noted once a minute.
var defaultFlood = floodRule{burst: 3, refill: 2 * time.Second, maxLoad: 3, noteEvery: time.Minute}

func defaultTuning(cfg *config.Config) tuning {
	return tuning{
		pollTimeout:     30 * time.Second,
		maxPending:      256,
		maxRunning:      16,
		handlerTimeout:  3*cfg.HTTPTimeout + 15*time.Second,
		shutdownTimeout: 20 * time.Second,
		retryMin:        time.Second,
		retryMax:        30 * time.Second,
		maxReplyWait:    10 * time.Second,
		flood:           defaultFlood,
		groupPace:       groupPace,
		stallAfter:      time.Minute,
		now:             time.Now,
	}
}

// Run answers commands until ctx is cancelled, then stops polling, lets
// in-flight handlers finish, saves the offset and returns nil. It returns
// an error (token redacted) only for a start-up failure retries cannot
// fix, such as a rejected token.
func Run(ctx context.Context, cfg *config.Config, st *store.Store, hs *health.Server, log *slog.Logger) error {
	return run(ctx, cfg, st, hs, log, defaultTuning(cfg))
}

func run(ctx context.Context, cfg *config.Config, st *store.Store, hs *health.Server, log *slog.Logger, tn tuning) error {
	token := cfg.TelegramBotToken
	redact := func(s string) string { return telegram.Redact(s, token) }
	log = log.With("component", "bot")
	apiURL := strings.TrimRight(cfg.TelegramAPIURL, "/")

	raw := &rawAPI{base: apiURL + "/bot" + token + "/", redact: redact, client: &http.Client{Timeout: cfg.HTTPTimeout}}
	p := &poller{
		api:        raw,
		client:     &http.Client{Timeout: tn.pollTimeout + cfg.HTTPTimeout},
		redact:     redact,
		timeout:    tn.pollTimeout,
		silence:    2*tn.pollTimeout + cfg.HTTPTimeout + 10*time.Second,
		stallAfter: tn.stallAfter,
		now:        tn.now,
	}
	p.lastRound.Store(tn.now().UnixNano())
	if hs != nil {
		hs.AddCheck("mongodb", st.Ping)
		hs.AddCheck("telegram_long_poll", p.healthy)
	}

	opts := []tgbot.Option{
		tgbot.WithServerURL(apiURL),
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(tn.pollTimeout, &http.Client{Timeout: cfg.HTTPTimeout}),
		tgbot.WithErrorsHandler(func(err error) { log.Warn("telegram client", "err", redact(err.Error())) }),
		tgbot.WithDebugHandler(func(format string, args ...any) {
			log.Debug("telegram client", "msg", redact(fmt.Sprintf(format, args...)))
		}),
	}
	if log.Enabled(ctx, slog.LevelDebug) {
		opts = append(opts, tgbot.WithDebug())
	}
	api, err := tgbot.New(token, opts...)
	if err != nil {
		return errors.New("telegram: " + redact(err.Error()))
	}

	s := &starter{log: log, redact: redact, tn: tn, apiHost: hostOf(apiURL)}
	// Start-up. A cancelled ctx here is a normal shutdown.
	if err := s.retry(ctx, "deleteWebhook", 0, func(ctx context.Context) error { return deleteWebhook(ctx, raw, log) }); err != nil {
		return s.fatal(ctx, err)
	}
	var me models.User
	if err := s.retry(ctx, "getMe", 0, func(ctx context.Context) error {
		return raw.call(ctx, nil, "getMe", map[string]any{}, &me)
	}); err != nil {
		return s.fatal(ctx, err)
	}
	if me.Username == "" {
		log.Warn("getMe returned no username: commands addressed as /cmd@bot will be ignored")
	}
	if err := s.retry(ctx, "setMyCommands", 3, func(ctx context.Context) error {
		return setMenus(ctx, api)
	}); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		log.Warn("setMyCommands failed; the command menu may be outdated", "err", redact(err.Error()))
	}
	var last int64
	if err := s.retry(ctx, "load update offset", 0, func(ctx context.Context) error {
		var err error
		last, _, err = st.LastUpdateID(ctx)
		return err
	}); err != nil {
		return s.fatal(ctx, err)
	}

	// One client for live fetches: its connections and conditional-request
	// cache are reused.
	pageClient, err := statuspage.New(cfg.StatuspageProvider, cfg.StatuspageURL, cfg.HTTPTimeout)
	if err != nil {
		return s.fatal(ctx, err)
	}
	native := statuspage.NewIncidentIO(cfg.StatuspageURL, cfg.HTTPTimeout)
	h := &handler{
		uptimes: &pageUptimes{fetch: native.Uptimes, cacheFor: 5 * time.Minute, failFor: time.Minute,
			wait: 3 * time.Second, timeout: 2*cfg.HTTPTimeout + 5*time.Second},
		api:      api,
		st:       st,
		username: me.Username,
		log:      log,
		redact:   redact,
		now:      tn.now,
		maxWait:  tn.maxReplyWait,
		rate:     newSendRate(cfg.BotReplyRate, tn.now),
		pace:     newChatPacer(tn.groupPace, casualMaxWait, tn.now),
		pages: &pageSource{
			snapshots: st.LatestSnapshot,
			fetch: func(ctx context.Context) (*statuspage.Page, error) {
				pg, _, err := pageClient.Fetch(ctx)
				return pg, err
			},
			maxAge:   2 * cfg.PollInterval,
			cacheFor: cfg.PollInterval,
			timeout:  2*cfg.HTTPTimeout + 5*time.Second,
			now:      tn.now,
			log:      log,
		},
	}
	h.editor = newKeyboardEditor(h, tn.handlerTimeout)
	p.tracker = newTracker(last)
	p.disp = newDispatcher(tn.maxPending, tn.maxRunning, tn.flood, tn.now)
	p.log = log
	per := &persister{st: st, tr: p.tracker, log: log, saved: last, now: tn.now, sig: make(chan struct{}, 1)}

	// Handlers outlive ctx: on shutdown they finish, up to shutdownTimeout.
	hctx, hcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hcancel()
	p.handle = func(upd *models.Update, gen int) {
		defer func() {
			if hctx.Err() != nil {
				// Cut short at shutdown: leave it unhandled, so the
				// offset stays before it and it is fetched again.
				return
			}
			p.finished(upd.ID, gen)
		}()
		metrics.UpdateReceived(upd)
		safely(log, redact, upd.ID, func() {
			uctx, cancel := context.WithTimeout(hctx, tn.handlerTimeout)
			defer cancel()
			h.handle(uctx, upd)
		})
	}
	p.flood = func(upd *models.Update) {
		safely(log, redact, upd.ID, func() {
			uctx, cancel := context.WithTimeout(hctx, tn.handlerTimeout)
			defer cancel()
			h.floodNote(uctx, upd)
		})
	}
	p.dropTap = func(q *models.CallbackQuery) {
		// Not queued behind anything: a tap is answered within seconds
		// or the client spins ("query is too old" after that).
		go safely(log, redact, 0, func() {
			actx, cancel := context.WithTimeout(hctx, tapAnswerTimeout)
			defer cancel()
			h.answerTap(actx, &tap{q: q, answer: ansTooManyTaps})
		})
	}
	p.saveSoon = per.signal

	perStop := make(chan struct{})
	perDone := make(chan struct{})
	go func() {
		defer close(perDone)
		per.loop(hctx, perStop)
	}()

	if sum := cfg.TelegramRateLimit + cfg.BotReplyRate; sum > tokenBudget {
		log.Warn("TELEGRAM_RATE_LIMIT + BOT_REPLY_RATE exceed what one token can send without 429s (about 30 messages a second, less the worker's rate limiter overshoot)",
			"sum", sum, "recommended_max", tokenBudget)
	}
	log.Info("command bot started", "username", me.Username, "offset", last+1, "reply_rate", cfg.BotReplyRate)
	if hs != nil {
		hs.SetReady()
	}
	p.loop(ctx)

	// Shutdown: polling has stopped; let in-flight handlers finish.
	wctx, wcancel := context.WithTimeout(context.Background(), tn.shutdownTimeout)
	if !p.disp.wait(wctx) {
		log.Warn("handlers still running at shutdown; cancelling them (their updates will be fetched again)")
		hcancel()
		w2, c2 := context.WithTimeout(context.Background(), 5*time.Second)
		p.disp.wait(w2)
		c2()
	}
	wcancel()
	close(perStop)
	<-perDone
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	per.save(sctx)
	log.Info("command bot stopped", "last_update_id", per.saved)
	return nil
}

// safely runs one update's handling; a panic is logged (token redacted)
// and the update counts as handled: no input can crash the process or
// block the offset.
func safely(log *slog.Logger, redact func(string) string, updateID int64, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("panic while handling an update", "update_id", updateID,
				"panic", redact(fmt.Sprint(r)), "stack", redact(string(debug.Stack())))
		}
	}()
	fn()
}

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

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

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
	disp     *dispatcher
	handle   func(upd *models.Update, gen int)
	flood    func(*models.Update) // answers a flooding sender once
	dropTap  func(*models.CallbackQuery)
	saveSoon func() // asks for the watermark to be saved

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
		j := job{run: func() { p.handle(upd, gen) }}
		if droppable(upd) {
			j.drop = func() {
				if upd.CallbackQuery != nil && p.dropTap != nil {
					p.dropTap(upd.CallbackQuery)
				}
				p.finished(id, gen)
			}
		}
		from := laneOf(upd)
		a, ok := p.disp.submit(ctx, from, j)
		if !ok {
			p.tracker.abort(u.ID, gen)
			return fresh, false
		}
		if a == floodStarted {
			p.log.Warn("a sender is flooding the bot: their commands are dropped beyond their budget", "chat_id", from.chat)
			if _, ok := p.disp.submit(ctx, from, job{run: func() { p.flood(upd) }}); !ok {
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

// casualMaxWait: a casual reply in a busy group that would wait longer
// for the group's budget is dropped rather than hold its sender's lane
// (and the update offset).
const casualMaxWait = 1500 * time.Millisecond

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

// persister saves the watermark after updates are handled.
type persister struct {
	st    *store.Store
	tr    *tracker
	log   *slog.Logger
	now   func() time.Time
	sig   chan struct{}
	saved int64
}

func (p *persister) signal() {
	select {
	case p.sig <- struct{}{}:
	default:
	}
}

func (p *persister) loop(ctx context.Context, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-p.sig:
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			p.save(sctx)
			cancel()
		}
	}
}

func (p *persister) save(ctx context.Context) {
	w := p.tr.watermark()
	if w == p.saved {
		return
	}
	if err := p.st.SaveLastUpdateID(ctx, w, p.now()); err != nil {
		p.log.Warn("save update offset", "err", err)
		return
	}
	p.saved = w
}
