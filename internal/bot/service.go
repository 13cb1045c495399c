package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/health"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// service is the running bot: the long poll (transport), the dispatcher
// (lanes and budgets), the handler (commands and screens) and the
// offset's persister. run is construct, start, serve, stop.
type service struct {
	cfg    *config.Config
	st     *store.Store
	hs     *health.Server
	log    *slog.Logger
	tn     tuning
	redact func(string) string

	pacer   *chatPacer // each group's message budget
	raw     *rawAPI
	api     *tgbot.Bot
	poll    *poller
	handler *commands.Handler
	saver   *persister

	// Handlers outlive the serving ctx: on shutdown they finish, up to
	// shutdownTimeout, then hcancel cuts them short.
	hctx      context.Context
	hcancel   context.CancelFunc
	saverOK   chan struct{} // closed when the persister's loop returned
	sweepOK   chan struct{} // closed when the channel sweeper returned
	stopSaver chan struct{}
}

func run(ctx context.Context, cfg *config.Config, st *store.Store, hs *health.Server, log *slog.Logger, tn tuning) error {
	s, err := construct(cfg, st, hs, log, tn)
	if err != nil {
		return err
	}
	defer s.hcancel()
	if started, err := s.start(ctx); !started {
		return err
	}
	s.serve(ctx)
	s.stop()
	s.hcancel()
	<-s.sweepOK
	return nil
}

// construct builds the pieces; nothing is called yet.
func construct(cfg *config.Config, st *store.Store, hs *health.Server, log *slog.Logger, tn tuning) (*service, error) {
	token := cfg.TelegramBotToken
	s := &service{cfg: cfg, st: st, hs: hs, log: log.With("component", "bot"), tn: tn,
		redact: func(v string) string { return telegram.Redact(v, token) }}
	apiURL := strings.TrimRight(cfg.TelegramAPIURL, "/")
	s.raw = &rawAPI{base: apiURL + "/bot" + token + "/", redact: s.redact, client: &http.Client{Timeout: cfg.HTTPTimeout}}
	s.poll = &poller{
		api:        s.raw,
		client:     &http.Client{Timeout: tn.pollTimeout + cfg.HTTPTimeout},
		redact:     s.redact,
		timeout:    tn.pollTimeout,
		silence:    2*tn.pollTimeout + cfg.HTTPTimeout + 10*time.Second,
		stallAfter: tn.stallAfter,
		now:        tn.now,
		log:        s.log,
		disp:       dispatch.New(tn.maxPending, tn.maxRunning, tn.flood, tn.now),
	}
	s.poll.disp.SetTapRule(tn.taps)
	s.pacer = newChatPacer(tn.groupPace, casualMaxWait, tn.now)
	s.poll.expect = s.pacer.expect
	s.poll.lastRound.Store(tn.now().UnixNano())
	if hs != nil {
		hs.AddCheck("mongodb", st.Ping)
		hs.AddCheck("telegram_long_poll", s.poll.healthy)
	}
	opts := []tgbot.Option{
		tgbot.WithServerURL(apiURL),
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(tn.pollTimeout, &http.Client{Timeout: cfg.HTTPTimeout}),
		tgbot.WithErrorsHandler(func(err error) { s.log.Warn("telegram client", "err", s.redact(err.Error())) }),
		tgbot.WithDebugHandler(func(format string, args ...any) {
			s.log.Debug("telegram client", "msg", s.redact(fmt.Sprintf(format, args...)))
		}),
	}
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		opts = append(opts, tgbot.WithDebug())
	}
	api, err := tgbot.New(token, opts...)
	if err != nil {
		return nil, errors.New("telegram: " + s.redact(err.Error()))
	}
	s.api = api
	s.hctx, s.hcancel = context.WithCancel(context.Background())
	return s, nil
}

// start runs the start-up steps (deleteWebhook, getMe, setMyCommands, the
// stored offset) and wires the handler to the poll. started is false
// when Run must return err at once: nil for a shutdown during start-up.
func (s *service) start(ctx context.Context) (started bool, err error) {
	st := &starter{log: s.log, redact: s.redact, tn: s.tn, apiHost: hostOf(s.cfg.TelegramAPIURL)}
	if err := st.retry(ctx, "deleteWebhook", 0, func(ctx context.Context) error { return deleteWebhook(ctx, s.raw, s.log) }); err != nil {
		return false, st.fatal(ctx, err)
	}
	var me models.User
	if err := st.retry(ctx, "getMe", 0, func(ctx context.Context) error {
		return s.raw.call(ctx, nil, "getMe", map[string]any{}, &me)
	}); err != nil {
		return false, st.fatal(ctx, err)
	}
	if me.Username == "" {
		s.log.Warn("getMe returned no username: commands addressed as /cmd@bot will be ignored")
	}
	if err := st.retry(ctx, "setMyCommands", 3, func(ctx context.Context) error {
		return commands.SetMenus(ctx, s.api)
	}); err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		s.log.Warn("setMyCommands failed; the command menu may be outdated", "err", s.redact(err.Error()))
	}
	var last int64
	if err := st.retry(ctx, "load update offset", 0, func(ctx context.Context) error {
		var err error
		last, _, err = s.st.LastUpdateID(ctx)
		return err
	}); err != nil {
		return false, st.fatal(ctx, err)
	}
	// Which page is legacy is the store's record (store.Offer), as the
	// worker reads it: the bot and the worker name a page's chats alike.
	var offer pages.Offer
	if len(s.cfg.Pages) > 0 {
		if err := st.retry(ctx, "read the pages on offer", 0, func(ctx context.Context) error {
			var err error
			offer, err = s.st.Offer(ctx, s.cfg.Pages, time.Now())
			return err
		}); err != nil {
			return false, st.fatal(ctx, err)
		}
	}
	h, err := s.newHandler(me, offer)
	if err != nil {
		return false, st.fatal(ctx, err)
	}
	s.handler = h
	s.poll.urgent = func(u *models.Update) bool { return commands.Urgent(u, me.Username) }
	s.poll.tracker = newTracker(last)
	s.saver = &persister{st: s.st, tr: s.poll.tracker, log: s.log, saved: last, now: s.tn.now, sig: make(chan struct{}, 1)}
	s.wire()
	s.log.Info("command bot started", "username", me.Username, "offset", last+1, "reply_rate", s.cfg.BotReplyRate)
	return true, nil
}

// newHandler builds the commands' handler, sending within the chat's
// pace and the bot's share of the token's rate.
func (s *service) newHandler(me models.User, offer pages.Offer) (*commands.Handler, error) {
	cfg, tn := s.cfg, s.tn
	pace := s.pacer
	rate := &replySlots{cap: newSendRate(cfg.BotReplyRate, tn.now), log: s.log}
	if cfg.TelegramRateLimit > 0 {
		rate.budget = s.st.NewSendBudget(cfg.TelegramRateLimit, time.Now)
	}
	// The workers' budget of each group too (turns.go), where the bot
	// paces itself.
	var turns *sharedTurns
	if tn.groupPace.interval > 0 {
		turns = newSharedTurns(s.st, tn.now, casualMaxWait, s.log)
	}
	return commands.New(commands.Deps{
		API: s.api, Store: s.st, Config: cfg, Offer: offer, Username: me.Username, BotID: me.ID,
		ChannelCleanup: tn.channelCleanup, KeyboardCleanup: tn.keyboardCleanup, TapAnswerWithin: tn.tapAnswerWithin,
		Log: s.log, Redact: s.redact, Now: tn.now,
		MaxReplyWait: tn.maxReplyWait, EditTimeout: tn.handlerTimeout,
		Pace: func(ctx context.Context, chatID, sender int64, isUrgent bool) bool {
			class := casual
			if isUrgent {
				class = urgent
			}
			if !pace.wait(ctx, chatID, class, sender) {
				return false
			}
			if !turns.take(ctx, chatID, isUrgent) {
				pace.done(chatID)
				return false
			}
			return true
		},
		Rate: rate.wait,
		Sent: func(chatID int64) {
			pace.done(chatID)
			turns.done(chatID)
		},
	})
}

// wire connects the poll's callbacks to the handler and starts the
// persister.
func (s *service) wire() {
	p, h, log, redact, tn := s.poll, s.handler, s.log, s.redact, s.tn
	p.handle = func(upd *models.Update, gen int, release func()) {
		defer func() {
			if s.hctx.Err() != nil {
				// Cut short at shutdown: leave it unhandled, so the
				// offset stays before it and it is fetched again.
				return
			}
			p.finished(upd.ID, gen)
		}()
		metrics.UpdateReceived(upd)
		safely(log, redact, upd.ID, func() {
			uctx, cancel := context.WithTimeout(s.hctx, tn.handlerTimeout)
			defer cancel()
			h.Handle(commands.WithRelease(p.disp.Within(uctx), release), upd)
		})
	}
	p.flood = func(upd *models.Update) {
		safely(log, redact, upd.ID, func() {
			uctx, cancel := context.WithTimeout(s.hctx, tn.handlerTimeout)
			defer cancel()
			h.FloodNote(uctx, upd)
		})
	}
	p.dropTap = func(q *models.CallbackQuery) {
		// Not queued behind anything: a tap is answered within seconds
		// or the client spins ("query is too old" after that).
		go safely(log, redact, 0, func() {
			actx, cancel := context.WithTimeout(s.hctx, commands.TapAnswerTimeout)
			defer cancel()
			h.RefuseTap(actx, q)
		})
	}
	p.saveSoon = s.saver.signal
	s.sweepOK = make(chan struct{})
	go func() {
		defer close(s.sweepOK)
		h.Sweep(s.hctx, tn.sweepEvery)
	}()
	s.stopSaver, s.saverOK = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.saverOK)
		s.saver.loop(s.hctx, s.stopSaver)
	}()
}

// serve polls until ctx ends.
func (s *service) serve(ctx context.Context) {
	if s.hs != nil {
		s.hs.SetReady()
	}
	s.poll.loop(ctx)
}

// stop lets in-flight handlers finish (up to shutdownTimeout, then cuts
// them short: their updates are fetched again) and saves the offset.
func (s *service) stop() {
	wctx, wcancel := context.WithTimeout(context.Background(), s.tn.shutdownTimeout)
	defer wcancel()
	if !s.poll.disp.Wait(wctx) {
		s.log.Warn("handlers still running at shutdown; cancelling them (their updates will be fetched again)")
		s.hcancel()
		w2, c2 := context.WithTimeout(context.Background(), 5*time.Second)
		s.poll.disp.Wait(w2)
		c2()
	}
	close(s.stopSaver)
	<-s.saverOK
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	s.saver.save(sctx)
	s.log.Info("command bot stopped", "last_update_id", s.saver.saved)
}
