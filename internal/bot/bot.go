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
// Updates are handled concurrently with a bound, each sender's in a chat
// in order (a lane), so a slow status page or a slow chat never stalls
// other users. A sender's commands beyond a few at once wait for their
// turn (one every two seconds, up to 3 s: a person's steady pace is
// answered in full); beyond that a sender is flooding: their further commands are
// dropped (answered once a minute, taps always) until the budget
// refills, since getUpdates returns at most 100 updates after the oldest
// unfinished one and a long queue would hold every other chat's updates
// unfetched; a member flooding a group slows only themselves. When
// Telegram restarts its update IDs below the watermark (after a week
// without updates, or for a new token) the bot follows the new IDs.
// Replies go out at most BOT_REPLY_RATE a second, each in a slot of the
// cluster's send budget ahead of the notices (sendrate.go), and within each group's own limits (pace.go), admins'
// replies first. Health fails when getUpdates stops succeeding, or when
// updates arrive and none is handled for a minute. getUpdates,
// deleteWebhook, getWebhookInfo and getMe are plain JSON calls (rawAPI:
// go-telegram/bot has no public getUpdates, and its parameterless calls
// send an empty multipart body); every other call goes through
// go-telegram/bot.
//
// Packages and files by seam: transport.go (Bot API calls, the long
// poll) and offsets.go (watermark, persister) know updates and offsets;
// the dispatch package (lanes, budgets, workers; lanes.go maps updates
// to lanes) knows chats, senders and budgets; pace.go and sendrate.go
// keep each chat's and the token's message budget; service.go is run:
// construct, start, serve, stop. On top, the commands package holds the
// one command table (commands.go, its handlers wrapped by middlewares),
// each command's handler, the taps on keyboards and replies; the pageset
// package is every read of a status page (cached, single-flight,
// failures remembered, a command's wait aside of the workers); the
// screens package draws the /settings keyboard, one screen per function,
// and holds the keyboards' operations in one table (ops.go), without I/O.
package bot

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/health"
	"github.com/openai-status-bot/statusbot/internal/store"
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
	flood           dispatch.Rule // what one sender in one chat may ask
	taps            dispatch.Rule // and tap
	groupPace       paceRule      // the bot's own budget in each group
	stallAfter      time.Duration // updates unhandled this long make health fail
	// In channels: when configuration posts and keyboards are deleted,
	// and how often due deletions are looked for.
	channelCleanup  time.Duration
	keyboardCleanup time.Duration
	sweepEvery      time.Duration
	tapAnswerWithin time.Duration // a tap's answer waits this long for its outcome
	now             func() time.Time
}

// defaultFlood lets a sender send a few commands in a row, then one every
// two seconds; a command sooner than that waits for its turn, up to 3 s,
// so a person working through commands about a second apart is answered
// in full (of 8 commands 1.2 s apart the 7th waits 0.8 s, the 8th 1.6 s). More is a
// flood, dropped and noted once a minute; a flooding sender's commands
// wait for nothing (waiting, they would hold the update offset).
var defaultFlood = dispatch.Rule{Burst: 3, Refill: 2 * time.Second, Backlog: 3 * time.Second, MaxLoad: 4, NoteEvery: time.Minute}

// defaultTaps is the taps' rule: someone ticking boxes taps several
// times a second for a while; only a machine's pace is a flood.
var defaultTaps = dispatch.Rule{Burst: 8, Refill: 250 * time.Millisecond, Backlog: time.Second, MaxLoad: 8, NoteEvery: time.Minute}

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
		taps:            defaultTaps,
		groupPace:       groupPace,
		stallAfter:      time.Minute,
		channelCleanup:  time.Minute,
		keyboardCleanup: 10 * time.Minute,
		sweepEvery:      5 * time.Second,
		tapAnswerWithin: commands.TapAnswerWithin,
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

// casualMaxWait: a casual reply in a busy group that would wait longer
// for the group's budget is dropped rather than hold its sender's lane
// (and the update offset).
const casualMaxWait = 1500 * time.Millisecond
