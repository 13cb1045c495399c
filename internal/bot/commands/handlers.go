package commands

import (
	"context"
	"log/slog"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// handler answers one update at a time; it is safe for concurrent use.
type handler struct {
	api *tgbot.Bot
	st  *store.Store
	// offer is the pages on offer; pages reads them (one source each).
	offer    pages.Offer
	pages    *pageset.Set
	username string
	log      *slog.Logger
	redact   func(string) string
	now      func() time.Time
	maxWait  time.Duration
	// pace waits for a message's slot in its chat (urgent: a reply the
	// chat's admins wait for), rate for the bot's share of the token's
	// message rate; both false when the message may not go (ctx ended,
	// or a casual reply would wait too long).
	pace   func(ctx context.Context, chatID, sender int64, urgent bool) bool
	rate   func(ctx context.Context) bool
	sent   func(chatID int64) // a send pace let through was answered
	editor *keyboardEditor
	botID  int64
	// channels names the channels checked for a private chat's commands,
	// by ID, for the keyboards' taps (channelRef values).
	channels sync.Map
	cleanup  cleanupRule
	// chains: the states each keyboard's own taps went through.
	chains tapChains
	// tapAnswerWithin: a tap's answer goes at the latest this long after
	// the tap, without text if its outcome is not known yet.
	tapAnswerWithin time.Duration
}

// request is one command to answer.
type request struct {
	msg     *models.Message
	cmd     Command
	chatID  int64
	thread  int // forum topic (0: the chat itself); replies go there too
	group   bool
	channel bool
	private bool
	class   sendClass // urgent: a command for admins
	// about is the channel a command typed in a private chat names
	// ("/settings @name"): its subscription is read and changed, the
	// replies stay here. nil: this chat's own.
	about *channelRef
	// cleanup is when, in a channel, the command and the replies are
	// deleted (0: they stay); sent collects the replies' IDs.
	cleanup time.Duration
	sent    []int
	// read is the subscription as read once for a command that changes
	// nothing (readOnce).
	read struct {
		done bool
		sub  *store.Subscriber
		err  error
	}
	// noPage: the chat follows no page still on offer, and the reply
	// shows the default page instead (cover), saying so (withStale).
	noPage bool
	// cat is the catalog the replies speak (lang), once langDone.
	cat      i18n.Catalog
	langDone bool
}

func (r *request) key() string {
	if r.about != nil {
		return aboutKey(r.about.id)
	}
	return store.SubscriberKey(r.chatID, r.thread)
}
func (r *request) topic() bool { return r.thread != 0 }

func (h *handler) handle(ctx context.Context, u *models.Update) {
	switch {
	case u.Message != nil:
		h.onMessage(ctx, u.Message, false)
	case u.ChannelPost != nil:
		h.onMessage(ctx, u.ChannelPost, true)
	case u.MyChatMember != nil:
		h.onMyChatMember(ctx, u.MyChatMember)
	case u.CallbackQuery != nil:
		h.onCallback(ctx, u.CallbackQuery)
	}
}

func (h *handler) onMessage(ctx context.Context, m *models.Message, channelPost bool) {
	if m.MigrateToChatID != 0 {
		h.migrate(ctx, m.Chat.ID, m.MigrateToChatID)
		return
	}
	if m.MigrateFromChatID != 0 {
		h.migrate(ctx, m.MigrateFromChatID, m.Chat.ID)
		return
	}
	if m.IsAutomaticForward {
		return // a channel post copied into its discussion group
	}
	cmd, ok := ParseCommand(m.Text)
	if !ok && m.Chat.Type == models.ChatTypePrivate && m.From != nil && !m.From.IsBot {
		h.post(ctx, outgoing{chatID: m.Chat.ID, text: h.lang(ctx, &request{msg: m, chatID: m.Chat.ID, private: true}).T("reply.plainText")})
		return
	}
	if !ok || !cmd.For(h.username) {
		return
	}
	r := &request{
		msg:     m,
		cmd:     cmd,
		chatID:  m.Chat.ID,
		group:   m.Chat.Type == models.ChatTypeGroup || m.Chat.Type == models.ChatTypeSupergroup,
		channel: channelPost || m.Chat.Type == models.ChatTypeChannel,
		private: m.Chat.Type == models.ChatTypePrivate,
	}
	// Only a forum topic message belongs to a topic: in a normal group a
	// reply carries message_thread_id too, and subscribes the group.
	if m.IsTopicMessage {
		r.thread = m.MessageThreadID
	}
	h.log.Debug("command", "name", cmd.Name, "chat_id", r.chatID, "thread", r.thread)
	if r.private {
		// Follow the user's Telegram language before the command reads
		// the subscription: a keyboard it draws then carries the
		// settings as they are.
		h.lang(ctx, r)
	}
	if c := lookupCommand(cmd.Name); c != nil {
		c.handler()(h, ctx, r)
		return
	}
	defer metrics.Command(cmd.Name)()
	// In groups and channels other bots' commands are common: answer
	// only when the command was addressed to this bot.
	if r.private || cmd.Mention != "" {
		h.reply(ctx, r, h.lang(ctx, r).T("reply.unknown"))
	}
}

// ReplyFlood answers, once, a chat that sent more commands than the bot
// queues for one chat (English: ReplyFloodIn says it in the sender's
// language; a flooding chat is not read from the store).
var ReplyFlood = ReplyFloodIn(en)

// ReplyFloodIn is ReplyFlood in c's language.
func ReplyFloodIn(c i18n.Catalog) string { return c.T("misc.flood") }

// floodNote tells a flooding chat, once, that its commands were dropped,
// when the dropped update was a command for this bot.
func (h *handler) floodNote(ctx context.Context, u *models.Update) {
	m := u.Message
	if m == nil {
		m = u.ChannelPost
	}
	if m == nil || m.Chat.ID == 0 {
		return
	}
	if cmd, ok := ParseCommand(m.Text); !ok || !cmd.For(h.username) {
		return
	}
	thread := 0
	if m.IsTopicMessage {
		thread = m.MessageThreadID
	}
	c := i18n.Of(userLanguage(m))
	o := outgoing{chatID: m.Chat.ID, thread: thread, text: ReplyFloodIn(c), sender: senderOf(m), silent: m.Chat.Type == models.ChatTypeChannel}
	if m.Chat.Type == models.ChatTypeGroup || m.Chat.Type == models.ChatTypeSupergroup {
		o.replyTo = m.ID
	}
	channel := m.Chat.Type == models.ChatTypeChannel
	if channel && h.cleanup.after > 0 {
		o.text += "\n\n" + cleanupNote(c, m.Chat, h.cleanup.after)
	}
	sent := h.post(ctx, o)
	if channel && sent != nil && h.cleanup.after > 0 {
		// As a channel's configuration posts: its readers did not ask.
		if err := h.st.ScheduleDeletion(ctx, m.Chat.ID, []int{m.ID, sent.ID}, h.now().Add(h.cleanup.after)); err != nil {
			h.log.Warn("schedule the deletion of a channel's flood note", "chat_id", m.Chat.ID, "err", err)
		}
	}
}

func (h *handler) migrate(ctx context.Context, from, to int64) {
	if from == 0 || to == 0 || from == to {
		return
	}
	if err := h.st.MigrateChat(ctx, from, to); err != nil {
		h.log.Warn("migrate chat", "from", from, "to", to, "err", err)
		return
	}
	h.log.Info("group migrated to supergroup; subscriptions moved", "from", from, "to", to)
}
