package bot

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// maxFilter bounds a subscription's component filter.
const maxFilter = 50

// handler answers one update at a time; it is safe for concurrent use.
type handler struct {
	api      *tgbot.Bot
	st       *store.Store
	pages    *pageSource
	uptimes  *pageUptimes
	username string
	log      *slog.Logger
	redact   func(string) string
	now      func() time.Time
	maxWait  time.Duration
	rate     *sendRate  // the bot's share of the token's message rate
	pace     *chatPacer // each group's message budget
	editor   *keyboardEditor
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
}

func (r *request) key() string { return store.SubscriberKey(r.chatID, r.thread) }
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
		h.post(ctx, outgoing{chatID: m.Chat.ID, text: replyPlainText})
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
	defer metrics.Command(cmd.Name)()
	if c := lookupCommand(cmd.Name); c != nil {
		if c.admin {
			r.class = urgent
		}
		c.run(h, ctx, r)
		return
	}
	// In groups and channels other bots' commands are common: answer
	// only when the command was addressed to this bot.
	if r.private || cmd.Mention != "" {
		h.reply(ctx, r, replyUnknown)
	}
}

// replyFlood answers, once, a chat that sent more commands than the bot
// queues for one chat.
const replyFlood = "Too many commands at once: some of yours were not answered. Please wait a few seconds between commands."

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
	o := outgoing{chatID: m.Chat.ID, thread: thread, text: replyFlood, silent: m.Chat.Type == models.ChatTypeChannel}
	if m.Chat.Type == models.ChatTypeGroup || m.Chat.Type == models.ChatTypeSupergroup {
		o.replyTo = m.ID
	}
	h.post(ctx, o)
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

// allowed reports whether the sender may change the chat's subscription:
// anyone in a private chat or channel (only admins post there), and in
// groups the creator and administrators, including an anonymous admin
// posting as the group itself. Otherwise it replies with the refusal.
func (h *handler) allowed(ctx context.Context, r *request) bool {
	if !r.group {
		return true
	}
	refuse := func(text string) bool {
		r.class = casual // anyone can make the bot refuse
		h.reply(ctx, r, text)
		return false
	}
	m := r.msg
	if m.SenderChat != nil {
		if m.SenderChat.ID == m.Chat.ID {
			return true
		}
		return refuse(replyNotAdmin)
	}
	if m.From == nil {
		return refuse(replyNotAdmin)
	}
	cm, err := h.api.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: m.Chat.ID, UserID: m.From.ID})
	if err != nil {
		h.log.Warn("getChatMember", "chat_id", m.Chat.ID, "err", h.redact(err.Error()))
		return refuse(replyAdminError)
	}
	if cm.Type == models.ChatMemberTypeOwner || cm.Type == models.ChatMemberTypeAdministrator {
		return true
	}
	return refuse(replyNotAdmin)
}

func (h *handler) cmdStatus(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	var text string
	if q := r.cmd.Args; q == "" {
		text = statusOverview(pv.Page)
	} else if pv.Page.ComponentsErr != "" {
		text = "Component statuses are unavailable right now. Please try again later."
	} else {
		comps := components(pv.Page)
		res := ResolveComponent(comps, q)
		switch {
		case res.Match != nil:
			c := *res.Match
			c.Name = componentNames(comps)[c.ID] // as /components shows it
			text = componentStatusIn(c, h.zone(ctx, r))
		case len(res.Ambiguous) > 0:
			h.askWhich(ctx, r, q, res.Ambiguous, pv, opViewComponent)
			return
		default:
			text = notFoundReply(q)
		}
	}
	h.reply(ctx, r, h.withStale(ctx, r, text, pv))
}

func (h *handler) cmdComponents(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	h.reply(ctx, r, h.withStale(ctx, r, componentsList(pv.Page), pv))
}

func (h *handler) cmdHistory(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needIncidents)
	if !ok {
		return
	}
	h.reply(ctx, r, h.withStale(ctx, r, historyReplyIn(pv.Page, parseHistoryCount(r.cmd.Args), h.zone(ctx, r)), pv))
}

func (h *handler) cmdUptime(ctx context.Context, r *request) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	if pv.Page.ComponentsErr != "" {
		h.reply(ctx, r, "Component statuses are unavailable right now. Please try again later.")
		return
	}
	now := h.now()
	comps := components(pv.Page)
	ids := make([]string, 0, len(comps))
	for _, c := range comps {
		if !c.Group {
			ids = append(ids, c.ID)
		}
	}
	// Only the longest window and each component's status when it opened.
	longest := uptimeWindows[len(uptimeWindows)-1].D
	hist, err := h.st.UptimeHistory(ctx, now.Add(-longest), ids)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	ups := ComputeUptime(comps, hist, now)
	if figs, ok := h.uptimes.get(ctx, pv.Page, now); ok {
		ups = PageUptime(ups, figs)
	}
	h.reply(ctx, r, h.withStale(ctx, r, uptimeReply(ups), pv))
}

func (h *handler) cmdInfo(ctx context.Context, r *request) {
	sub, err := h.subscription(ctx, r)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return
	}
	h.reply(ctx, r, infoReply(r.chatID, r.thread, sub, h.names(ctx, sub))+h.lastFate(ctx, sub))
}

// zone is the chat's time zone for the times a reply shows (UTC when the
// chat is not subscribed or the store cannot be read).
func (h *handler) zone(ctx context.Context, r *request) *time.Location {
	sub, err := h.subscription(ctx, r)
	if err != nil || sub == nil {
		return time.UTC
	}
	return notice.Zone(sub.Settings)
}

// subscription returns nil (no error) when the chat is not subscribed.
func (h *handler) subscription(ctx context.Context, r *request) (*store.Subscriber, error) {
	sub, err := h.st.Subscription(ctx, r.key())
	if errors.Is(err, store.ErrNotSubscribed) {
		return nil, nil
	}
	return sub, err
}

// subscribed reads this chat's subscription; when there is none, or the
// store fails, it has already answered and reports false.
func (h *handler) subscribed(ctx context.Context, r *request) (*store.Subscriber, bool) {
	sub, err := h.subscription(ctx, r)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return nil, false
	}
	if sub == nil {
		h.reply(ctx, r, notSubscribedReply(r.topic(), r.channel))
		return nil, false
	}
	return sub, true
}

// names maps component IDs to names for showing a filter; nil when the
// filter is empty or the page is unavailable (IDs are shown then).
func (h *handler) names(ctx context.Context, sub *store.Subscriber) map[string]string {
	if sub == nil || len(sub.Components) == 0 {
		return nil
	}
	pv, err := h.pages.get(ctx, needComponents)
	if err != nil || pv.Page.ComponentsErr != "" {
		return nil
	}
	return componentNames(components(pv.Page))
}

func (h *handler) cmdSubscribe(ctx context.Context, r *request) {
	req := ParseSubscribe(r.cmd.Args)
	switch req.Op {
	case SubShow:
		sub, err := h.subscription(ctx, r)
		if err != nil {
			h.storeFailed(ctx, r, err)
			return
		}
		h.reply(ctx, r, subscribeUsage(sub, h.names(ctx, sub), r.topic(), r.channel))
		return
	case SubInvalid:
		h.reply(ctx, r, esc(req.Err)+"\n\n"+subscribeHelp())
		return
	}
	if !h.allowed(ctx, r) {
		return
	}
	if req.Op == SubKinds {
		err := h.st.SetKinds(ctx, r.key(), req.Kinds)
		switch {
		case errors.Is(err, store.ErrNotSubscribed):
			h.reply(ctx, r, notSubscribedReply(r.topic(), r.channel))
		case err != nil:
			h.storeFailed(ctx, r, err)
		default:
			h.reply(ctx, r, kindsReply(req.Kinds))
		}
		return
	}
	// Component filter: the subscription is read to resolve what the
	// user names; the change itself is one atomic update, so a change
	// made meanwhile (elsewhere) is not lost.
	sub, ok := h.subscribed(ctx, r)
	if !ok {
		return
	}
	switch req.Op {
	case SubClearComponents:
		if err := h.setFilter(ctx, r, nil); err == nil {
			h.reply(ctx, r, "Component filter cleared: notices cover every component.")
		}
	case SubAddComponent:
		h.addFilter(ctx, r, req.Query)
	case SubRemoveComponent:
		h.removeFilter(ctx, r, sub, req.Query)
	}
}

func (h *handler) setFilter(ctx context.Context, r *request, ids []string) error {
	err := h.st.SetComponents(ctx, r.key(), ids)
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, notSubscribedReply(r.topic(), r.channel))
	case err != nil:
		h.storeFailed(ctx, r, err)
	}
	return err
}

func (h *handler) addFilter(ctx context.Context, r *request, q string) {
	pv, ok := h.page(ctx, r, needComponents)
	if !ok {
		return
	}
	comps := components(pv.Page)
	res := ResolveComponent(comps, q)
	switch {
	case len(res.Ambiguous) > 0:
		h.askWhich(ctx, r, q, res.Ambiguous, pv, opAddComponent)
		return
	case res.Match == nil:
		h.reply(ctx, r, notFoundReply(q))
		return
	}
	c := *res.Match
	names := componentNames(comps)
	ids, err := h.st.AddComponent(ctx, r.key(), c.ID, maxFilter)
	switch {
	case errors.Is(err, store.ErrInFilter):
		h.reply(ctx, r, "<b>"+escName(names[c.ID])+"</b> is already in the component filter.")
	case errors.Is(err, store.ErrFilterFull):
		h.reply(ctx, r, "The component filter is full (at most 50 components). Remove one first, or use /subscribe component all.")
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, notSubscribedReply(r.topic(), r.channel))
	case err != nil:
		h.storeFailed(ctx, r, err)
	default:
		h.reply(ctx, r, "Added <b>"+escName(names[c.ID])+"</b> to the component filter.\nNotices now cover: "+filterList(ids, names)+".")
	}
}

func (h *handler) removeFilter(ctx context.Context, r *request, sub *store.Subscriber, q string) {
	i := filterIndex(sub.Components, q)
	var names map[string]string
	pv, err := h.pages.get(ctx, needComponents)
	if err == nil && pv.Page.ComponentsErr == "" {
		comps := components(pv.Page)
		names = componentNames(comps)
		if i < 0 {
			res := ResolveComponent(comps, q)
			if len(res.Ambiguous) > 0 {
				// Only the ones in the filter can be meant.
				var in []int
				for _, c := range res.Ambiguous {
					if j := slices.Index(sub.Components, c.ID); j >= 0 {
						in = append(in, j)
					}
				}
				if len(in) == 1 {
					i = in[0]
				} else if len(in) > 1 {
					h.reply(ctx, r, ambiguousReply(q, res.Ambiguous, names, false))
					return
				}
			} else if res.Match != nil {
				i = slices.Index(sub.Components, res.Match.ID)
			}
		}
	}
	if i < 0 {
		text := "“" + escEcho(q) + "” is not in the component filter."
		if len(sub.Components) == 0 {
			text += " The filter is empty: notices cover every component."
		} else {
			text += "\nThe filter holds: " + filterList(sub.Components, names) + "."
		}
		h.reply(ctx, r, text)
		return
	}
	removed := sub.Components[i]
	ids, err := h.st.RemoveComponent(ctx, r.key(), removed)
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, notSubscribedReply(r.topic(), r.channel))
		return
	case errors.Is(err, store.ErrNotInFilter):
		// Removed meanwhile: the outcome asked for.
	case err != nil:
		h.storeFailed(ctx, r, err)
		return
	}
	label := removed
	if n, ok := names[removed]; ok {
		label = n
	}
	h.reply(ctx, r, "Removed <b>"+escName(label)+"</b> from the component filter.\nNotices now cover: "+filterList(ids, names)+".")
}

// askWhich answers a name several components match with a button for
// each (op: what a tap does with it) and their names as shown, which can
// be typed back.
func (h *handler) askWhich(ctx context.Context, r *request, q string, found []statuspage.Component, pv pageView, op string) {
	idx := indexPage(pv.Page)
	var rows [][]models.InlineKeyboardButton
	for _, c := range found {
		for ci, ic := range idx.comps {
			if ic.ID == c.ID {
				data := callback{op: op, args: []string{strconv.Itoa(ci)}, tok: idx.tok}.encode()
				rows = append(rows, []models.InlineKeyboardButton{{Text: cutButton(idx.names[c.ID]), CallbackData: data}})
				break
			}
		}
	}
	h.replyMarkup(ctx, r, h.withStale(ctx, r, ambiguousReply(q, found, idx.names, true), pv), &models.InlineKeyboardMarkup{InlineKeyboard: rows})
}

// page gets the page for a command, replying itself when it cannot.
func (h *handler) page(ctx context.Context, r *request, n need) (pageView, bool) {
	pv, err := h.pages.get(ctx, n)
	if err != nil {
		h.reply(ctx, r, replyNoPage)
		return pv, false
	}
	return pv, true
}

// withStale adds, when the page is an old snapshot, when it was read,
// in the chat's zone.
func (h *handler) withStale(ctx context.Context, r *request, text string, pv pageView) string {
	if !pv.Stale {
		return text
	}
	return text + "\n\n" + staleNote(pv.FetchedAt, h.zone(ctx, r))
}

func (h *handler) storeFailed(ctx context.Context, r *request, err error) {
	h.log.Warn("store", "command", r.cmd.Name, "chat_id", r.chatID, "err", err)
	h.reply(ctx, r, replyStoreError)
}
