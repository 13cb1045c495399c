package commands

import (
	"context"
	"log/slog"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// sendClass says whose budget a message uses (dispatch.Class).
type sendClass = dispatch.Class

const (
	casual = dispatch.Casual
	urgent = dispatch.Urgent
)

// Deps is what the commands and screens need from the service around
// them: the Bot API, the store, and the pacing of what they send.
type Deps struct {
	API    *tgbot.Bot
	Store  *store.Store
	Config *config.Config
	// Offer is the pages on offer and which is legacy (store.Offer);
	// empty (tests): made of Config.Pages (pages.ConfigOffer).
	Offer    pages.Offer
	Username string // the bot's, for "/cmd@bot"
	BotID    int64  // the bot's user ID, to check it is in a channel
	Log      *slog.Logger
	Redact   func(string) string
	Now      func() time.Time
	// MaxReplyWait is the longest 429 wait before a reply; EditTimeout
	// bounds one keyboard message's waiting and editing.
	MaxReplyWait time.Duration
	EditTimeout  time.Duration
	// Pace waits for a message's slot in its chat (urgent: the chat's
	// admins wait for it; sender: whose command a casual one answers, as
	// casual replies are shared per sender); Rate for the bot's share of
	// the token's rate.
	Pace func(ctx context.Context, chatID, sender int64, urgent bool) bool
	Rate func(ctx context.Context) bool
	// Sent tells the pacer that a send Pace let through was answered.
	Sent func(chatID int64)
	// ChannelCleanup is when a channel's configuration commands and the
	// replies to them are deleted, KeyboardCleanup a /settings keyboard
	// there (0: they stay).
	ChannelCleanup, KeyboardCleanup time.Duration
	// TapAnswerWithin: a tap is answered at the latest this long after it
	// arrived (0: TapAnswerWithin).
	TapAnswerWithin time.Duration
}

// Handler answers updates: commands, taps on the keyboards, the bot's
// own membership. It is safe for concurrent use.
type Handler struct{ h *handler }

// New builds the handler and its access to the status page.
func New(d Deps) (*Handler, error) {
	cfg := d.Config
	offer := d.Offer
	if len(offer.List) == 0 {
		list := cfg.Pages
		if len(list) == 0 { // a Config not validated (tests): STATUSPAGE_URL alone
			p, err := pages.Single(cfg.StatuspageURL, cfg.StatuspageProvider)
			if err != nil {
				return nil, err
			}
			list = []pages.Page{p}
		}
		offer = pages.ConfigOffer(list)
	}
	// New chats follow the default page.
	d.Store.SetDefaultPage(offer.EventPage(offer.Default().Name))
	// A /start restore follows only the pages still on offer.
	offered := make([]string, len(offer.List))
	for i, p := range offer.List {
		offered[i] = offer.EventPage(p.Name)
	}
	d.Store.SetOffered(offered)
	set, err := pageset.New(d.Store, offer, cfg, d.Now, d.Log)
	if err != nil {
		return nil, err
	}
	h := &handler{
		offer:    offer,
		pages:    set,
		api:      d.API,
		st:       d.Store,
		username: d.Username,
		log:      d.Log,
		redact:   d.Redact,
		now:      d.Now,
		maxWait:  d.MaxReplyWait,
		rate:     d.Rate,
		pace:     d.Pace,
		sent:     d.Sent,
		botID:    d.BotID,
		cleanup:  cleanupRule{after: d.ChannelCleanup, keyboard: d.KeyboardCleanup},

		tapAnswerWithin: d.TapAnswerWithin,
	}
	if h.tapAnswerWithin <= 0 {
		h.tapAnswerWithin = TapAnswerWithin
	}
	h.editor = newKeyboardEditor(h, d.EditTimeout)
	return &Handler{h: h}, nil
}

// Handle answers one update.
func (x *Handler) Handle(ctx context.Context, u *models.Update) { x.h.handle(ctx, u) }

// FloodNote tells a flooding sender, when the dropped update was a
// command for this bot, that their commands were dropped.
func (x *Handler) FloodNote(ctx context.Context, u *models.Update) { x.h.floodNote(ctx, u) }

// RefuseTap answers a tap dropped by the flood budget at once.
func (x *Handler) RefuseTap(ctx context.Context, q *models.CallbackQuery) {
	x.h.answerTap(ctx, &tap{q: q, answer: tapTooManyTaps})
}

// Urgent reports whether u is a command that changes a chat's
// subscription (its replies are ones the chat's admins wait for),
// addressed to this bot.
func Urgent(u *models.Update, username string) bool {
	m := u.Message
	if m == nil {
		m = u.ChannelPost
	}
	if m == nil {
		return false
	}
	cmd, ok := ParseCommand(m.Text)
	if !ok || !cmd.For(username) {
		return false
	}
	c := lookupCommand(cmd.Name)
	return c != nil && c.admin
}

// releaseKey carries, in a handler's context, what lets a group's casual
// replies go again once an admin's command turns out to need none of
// the chat's urgent seconds (a refusal).
type releaseKey struct{}

// WithRelease gives the handler of an admin's command the function that
// ends the hold on the group's casual replies (internal/bot pace.go).
func WithRelease(ctx context.Context, release func()) context.Context {
	return context.WithValue(ctx, releaseKey{}, release)
}

// releaseHold ends that hold early.
func releaseHold(ctx context.Context) {
	if f, ok := ctx.Value(releaseKey{}).(func()); ok && f != nil {
		f()
	}
}

// sleep is dispatch.Sleep.
var sleep = dispatch.Sleep
