package bot

import (
	"context"
	"errors"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// tapAnswerTimeout bounds answering a tap: Telegram drops the spinner
// (and refuses the answer) after about 15 seconds anyway.
const tapAnswerTimeout = 5 * time.Second

// keyboardMaxAge: taps on a keyboard older than this are refused (the
// client keeps old messages; Telegram may not let the bot edit them).
const keyboardMaxAge = 48 * time.Hour

// Answers to taps (answerCallbackQuery texts, at most 200 characters).
const (
	ansSaved         = "Saved."
	ansTooOld        = "This keyboard is too old. Send /settings for a new one."
	ansInvalid       = "This button is not valid any more. Send /settings for a new one."
	ansNotAdmin      = "Only administrators of this chat can change its settings."
	ansStale         = "These buttons were out of date (settings changed elsewhere); they show the current settings now. Tap again."
	ansPageChanged   = "The status page's components changed; here is the current list."
	ansKeepOneKind   = "Keep at least one notice type; /stop unsubscribes."
	ansFilterFull    = "At most 50 components can be chosen."
	ansNotSubscribed = "This chat is not subscribed any more. Use /start first."
	ansTooManyTaps   = "Too many taps at once. Wait a moment, then tap again."
	ansPinInMessages = "Saved. Pinning applies to incident cards; this chat gets one message per update."
	ansChannelDone   = "Done. The keyboard and the /settings post are removed from the channel; /info shows the settings."
)

// errRefused is a change not made, with the answer saying why.
type errRefused struct{ answer string }

func (e errRefused) Error() string { return e.answer }

// tap is one callback query being handled.
type tap struct {
	q      *models.CallbackQuery
	msg    *models.Message
	key    string
	cb     callback
	answer string
	alert  bool
	next   *screen // drawn after the answer (nil: no edit)
	// remove lists messages deleted after the answer instead of an edit:
	// a channel's keyboard and the post that asked for it, at Done.
	remove []int
}

// show sets the screen the keyboard message is redrawn with.
func (t *tap) show(s screen) { t.next = &s }

// onCallback handles a tap on the /settings keyboard: checks who tapped
// and whether the keyboard is current, applies the choice with one atomic
// update, redraws the keyboard on the same message and answers the query.
func (h *handler) onCallback(ctx context.Context, q *models.CallbackQuery) {
	t := &tap{q: q, msg: q.Message.Message}
	defer func() {
		// The answer first: it is not rate-limited, and the edit may
		// wait for the chat's pace; a spinner must stop within seconds.
		h.answerTap(ctx, t)
		for _, id := range t.remove {
			h.deleteMessage(ctx, t.msg.Chat.ID, id)
		}
		if t.next != nil {
			h.edit(ctx, t, *t.next)
		}
	}()
	if t.msg == nil || h.now().Sub(time.Unix(int64(t.msg.Date), 0)) > keyboardMaxAge {
		t.answer = ansTooOld
		return
	}
	cb, ok := parseCallback(q.Data)
	if !ok {
		t.answer = ansInvalid
		return
	}
	t.cb = cb
	thread := 0
	if t.msg.IsTopicMessage {
		thread = t.msg.MessageThreadID
	}
	t.key = store.SubscriberKey(t.msg.Chat.ID, thread)
	if cb.op == opViewComponent {
		h.viewComponent(ctx, t) // anyone may look
		return
	}
	if ok, err := h.mayChange(ctx, t.msg.Chat, q.From); err != nil || !ok {
		t.answer, t.alert = ansNotAdmin, true
		if err != nil {
			t.answer = replyAdminError
		}
		return
	}
	sub, err := h.st.Subscription(ctx, t.key)
	if errors.Is(err, store.ErrNotSubscribed) {
		t.answer, t.alert = ansNotSubscribed, true
		t.show(screen{text: notSubscribedReply(thread != 0, t.msg.Chat.Type == models.ChatTypeChannel)})
		return
	}
	if err != nil {
		h.log.Warn("store", "callback", cb.op, "chat_id", t.msg.Chat.ID, "err", err)
		t.answer, t.alert = replyStoreError, true
		return
	}
	h.applyTap(ctx, t, sub)
}

// applyTap applies t's choice, when it is one and the keyboard is
// current, and redraws.
func (h *handler) applyTap(ctx context.Context, t *tap, sub *store.Subscriber) {
	cb := t.cb
	if cb.op == opAddComponent {
		h.addChosen(ctx, t)
		return
	}
	idx := h.tapIndex(ctx, cb, sub)
	if cb.op == "G" || cb.op == "c" {
		if !validComponentRef(cb, idx) {
			t.answer = ansPageChanged
			t.show(newKB(sub, idx).groups(0))
			return
		}
	}
	if cb.changes() && !validChange(cb) {
		t.answer = ansInvalid
		return
	}
	if cb.changes() {
		if cb.tok != stateToken(sub) {
			t.answer = ansStale
		} else {
			next, err := h.applyChange(ctx, t.key, cb, sub, idx)
			var refused errRefused
			switch {
			case errors.As(err, &refused):
				t.answer = refused.answer
			case errors.Is(err, store.ErrNotSubscribed):
				t.answer, t.alert = ansNotSubscribed, true
				return
			case err != nil:
				h.log.Warn("store", "callback", cb.op, "chat_id", t.msg.Chat.ID, "err", err)
				t.answer, t.alert = replyStoreError, true
				return
			default:
				sub, t.answer = next, ansSaved
				if cb.op == "p" && sub.Settings.PinCards && !sub.Settings.Cards() {
					t.answer = ansPinInMessages
				}
			}
		}
	}
	k := newKB(sub, idx)
	if cb.op == "x" {
		if t.msg.Chat.Type == models.ChatTypeChannel {
			// A channel's readers did not ask for the keyboard: clean up.
			t.remove = []int{t.msg.ID}
			if r := t.msg.ReplyToMessage; r != nil {
				t.remove = append(t.remove, r.ID)
			}
			if t.answer == "" {
				t.answer = ansChannelDone
			}
			return
		}
		t.show(screen{text: "<b>Settings</b>\n" + settingsSummary(sub, k.names()) + "\n\nChange them with /settings."})
		return
	}
	t.show(screenFor(k, cb))
}

// validComponentRef checks a G or c button's page token and indices.
func validComponentRef(cb callback, idx *pageIndex) bool {
	if idx == nil {
		return false
	}
	if cb.args[len(cb.args)-1] != idx.tok {
		return false
	}
	if cb.op == "G" {
		_, ok := cb.arg(0, len(idx.groups))
		return ok
	}
	_, ok := cb.arg(0, len(idx.comps))
	_, ok2 := cb.arg(1, 2)
	return ok && ok2
}

// validChange checks a change button's arguments (components are
// checked against the page by validComponentRef).
func validChange(cb callback) bool {
	switch cb.op {
	case "K":
		_, ok1 := cb.arg(0, len(event.Kinds))
		_, ok2 := cb.arg(1, 2)
		return ok1 && ok2
	case "c", "C":
		return true
	}
	_, err := settingFor(cb)
	return err == nil
}

// screenFor is the screen a tap leads to (or stays on).
func screenFor(k *kb, cb callback) screen {
	switch cb.op {
	case "k", "K":
		return k.kinds()
	case "g":
		pg, _ := cb.arg(0, 1000)
		return k.groups(pg)
	case "C":
		return k.groups(0)
	case "G":
		gi, _ := cb.arg(0, len(k.idx.groups))
		pg, _ := cb.arg(1, 1000)
		return k.group(gi, pg)
	case "c":
		ci, _ := cb.arg(0, len(k.idx.comps))
		pg, _ := cb.arg(2, 1000)
		gi, _ := k.idx.groupOf(ci)
		return k.group(gi, pg)
	case "s", "S":
		return k.severity()
	case "q", "Q", "r":
		return k.quiet()
	case "z", "Z":
		return k.zones()
	case "d", "o", "p", "e", "E":
		return k.delivery()
	}
	return k.main()
}

// applyChange stores one choice and returns the subscription after it.
func (h *handler) applyChange(ctx context.Context, key string, cb callback, sub *store.Subscriber, idx *pageIndex) (*store.Subscriber, error) {
	bad := errRefused{ansInvalid}
	switch cb.op {
	case "K":
		i, ok1 := cb.arg(0, len(event.Kinds))
		on, ok2 := cb.arg(1, 2)
		if !ok1 || !ok2 {
			return nil, bad
		}
		kinds := toggleKind(sub.Kinds, event.Kinds[i], on == 1)
		if len(kinds) == 0 {
			return nil, errRefused{ansKeepOneKind}
		}
		return h.reread(ctx, key, h.st.SetKinds(ctx, key, kinds))
	case "c":
		ci, _ := cb.arg(0, len(idx.comps))
		on, _ := cb.arg(1, 2)
		id := idx.comps[ci].ID
		var err error
		if on == 1 {
			_, err = h.st.AddComponent(ctx, key, id, maxFilter)
		} else {
			_, err = h.st.RemoveComponent(ctx, key, id)
		}
		switch {
		case errors.Is(err, store.ErrFilterFull):
			return nil, errRefused{ansFilterFull}
		case errors.Is(err, store.ErrInFilter), errors.Is(err, store.ErrNotInFilter):
			err = nil // already as asked
		}
		return h.reread(ctx, key, err)
	case "C":
		return h.reread(ctx, key, h.st.SetComponents(ctx, key, nil))
	}
	c, err := settingFor(cb)
	if err != nil {
		return nil, bad
	}
	return h.st.ChangeSettings(ctx, key, c)
}

// settingFor turns a settings button into its change.
func settingFor(cb callback) (store.SettingChange, error) {
	invalid := errors.New("invalid button")
	switch cb.op {
	case "S":
		i, ok := cb.arg(0, len(severityLabels))
		if !ok {
			return store.SettingChange{}, invalid
		}
		if i == 0 {
			return store.SetSeverity(store.SeverityAll, false)
		}
		return store.SetSeverity(store.SeverityOutage, i == 2)
	case "Q":
		if cb.args[0] == "x" {
			return store.SetQuietHours("", "")
		}
		i, ok := cb.arg(0, len(quietPresets))
		if !ok {
			return store.SettingChange{}, invalid
		}
		return store.SetQuietHours(quietPresets[i][0], quietPresets[i][1])
	case "r", "p", "e":
		v, ok := cb.arg(0, 2)
		if !ok {
			return store.SettingChange{}, invalid
		}
		switch cb.op {
		case "r":
			return store.SetQuietResolutions(v == 1), nil
		case "p":
			return store.SetPinCards(v == 1), nil
		}
		return store.SetReminders(v == 1, 0)
	case "Z":
		i, ok := cb.arg(0, len(zonePresets))
		if !ok {
			return store.SettingChange{}, invalid
		}
		return store.SetTimeZone(zonePresets[i])
	case "o":
		switch cb.args[0] {
		case "c":
			return store.SetMode(store.ModeCards)
		case "m":
			return store.SetMode(store.ModeMessages)
		}
	case "E":
		i, ok := cb.arg(0, len(reminderOpts))
		if !ok {
			return store.SettingChange{}, invalid
		}
		return store.SetReminders(true, reminderOpts[i])
	}
	return store.SettingChange{}, invalid
}

// toggleKind sets or clears one kind, keeping event.Kinds' order.
func toggleKind(kinds []event.Kind, k event.Kind, on bool) []event.Kind {
	if len(kinds) == 0 {
		kinds = event.DefaultKinds
	}
	var out []event.Kind
	for _, x := range event.Kinds {
		has := false
		for _, y := range kinds {
			has = has || y == x
		}
		if x == k {
			has = on
		}
		if has {
			out = append(out, x)
		}
	}
	return out
}

func (h *handler) reread(ctx context.Context, key string, err error) (*store.Subscriber, error) {
	if err != nil {
		return nil, err
	}
	return h.st.Subscription(ctx, key)
}

// tapPageWait bounds reading the status page for a tap: the answer waits
// for it, and Telegram gives up on an answer after about 15 seconds.
const tapPageWait = 3 * time.Second

// tapIndex reads the page only for the screens that show components:
// the component screens read it (a live fetch bounded by tapPageWait,
// else the stored snapshot); the first screen and Done name a chosen
// filter from the stored snapshot whatever its age; every other screen
// needs no page at all.
func (h *handler) tapIndex(ctx context.Context, cb callback, sub *store.Subscriber) *pageIndex {
	switch cb.op {
	case "G", "c", "g", "C", opViewComponent, opAddComponent:
		ctx, cancel := context.WithTimeout(ctx, tapPageWait)
		defer cancel()
		return h.pageIndex(ctx)
	case "m", "x":
		if len(sub.Components) > 0 {
			if pv, ok := h.pages.stored(ctx, needComponents); ok {
				return indexPage(pv.Page)
			}
		}
	}
	return nil
}

// pageIndex numbers the page's components; nil when unavailable.
func (h *handler) pageIndex(ctx context.Context) *pageIndex {
	pv, err := h.pages.get(ctx, needComponents)
	if err != nil || pv.Page.ComponentsErr != "" {
		return nil
	}
	return indexPage(pv.Page)
}

// mayChange reports whether the user may change the chat's settings:
// anyone in a private chat; in groups and channels (whose subscribers can
// tap buttons too) the creator and administrators, anonymous ones
// included (Telegram names the real user in a callback query).
func (h *handler) mayChange(ctx context.Context, chat models.Chat, from models.User) (bool, error) {
	if chat.Type == models.ChatTypePrivate {
		return from.ID == chat.ID, nil
	}
	cm, err := h.api.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: chat.ID, UserID: from.ID})
	if err != nil {
		h.log.Warn("getChatMember", "chat_id", chat.ID, "err", h.redact(err.Error()))
		return false, err
	}
	return cm.Type == models.ChatMemberTypeOwner || cm.Type == models.ChatMemberTypeAdministrator, nil
}

// edit hands the screen to the keyboard's editor and returns at once:
// the tap's lane is not held while the edit waits for the chat's pace.
func (h *handler) edit(_ context.Context, t *tap, s screen) {
	t.next = nil
	h.editor.redraw(t.msg.Chat.ID, t.msg.ID, s)
}

// answerTap answers the query; a late answer ("query is too old") only
// means the spinner stopped on its own.
func (h *handler) answerTap(ctx context.Context, t *tap) {
	_, err := h.api.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{
		CallbackQueryID: t.q.ID, Text: t.answer, ShowAlert: t.alert,
	})
	if err != nil {
		h.log.Debug("answerCallbackQuery", "err", h.redact(err.Error()))
	}
}

// deleteMessage removes one of the chat's messages; a message gone
// already, or one the bot may not delete, stays as it is (logged).
func (h *handler) deleteMessage(ctx context.Context, chatID int64, id int) {
	if _, err := h.api.DeleteMessage(ctx, &tgbot.DeleteMessageParams{ChatID: chatID, MessageID: id}); err != nil {
		h.log.Info("deleteMessage", "chat_id", chatID, "err", h.redact(err.Error()))
	}
}

// openKeyboard answers /settings with the keyboard's first screen. In a
// channel it answers the post (so that Done can remove both).
func (h *handler) openKeyboard(ctx context.Context, r *request, sub *store.Subscriber) {
	var idx *pageIndex
	if len(sub.Components) > 0 {
		idx = h.pageIndex(ctx)
	}
	s := newKB(sub, idx).main()
	o := r.answer(s.text)
	o.markup = s.markup()
	if r.channel && r.msg != nil {
		o.replyTo = r.msg.ID
		o.text += "\n\n<i>Done removes this keyboard and the /settings post from the channel.</i>"
	}
	h.post(ctx, o)
}

// Buttons answering a name several components match ("Login"): each names
// one component by its index in the page's list, with the list's token.
const (
	opViewComponent = "v" // /status: show its status
	opAddComponent  = "a" // /subscribe component: add it to the filter
)

// chosenComponent is the component a "v" or "a" button names; nil, with
// the answer saying so, when the page changed since (or cannot be read).
func (h *handler) chosenComponent(ctx context.Context, t *tap) *statuspage.Component {
	idx := h.tapIndex(ctx, t.cb, nil)
	ci, ok := 0, false
	if idx != nil && t.cb.tok == idx.tok {
		ci, ok = t.cb.arg(0, len(idx.comps))
	}
	if !ok {
		t.answer = ansPageChanged + " Send the command again."
		return nil
	}
	c := idx.comps[ci]
	c.Name = idx.names[c.ID] // as /components shows it
	return &c
}

// viewComponent answers a "v" button with the component's status, in
// place of the question.
func (h *handler) viewComponent(ctx context.Context, t *tap) {
	c := h.chosenComponent(ctx, t)
	if c == nil {
		return
	}
	loc := time.UTC
	if sub, err := h.st.Subscription(ctx, t.key); err == nil {
		loc = notice.Zone(sub.Settings)
	}
	t.show(screen{text: componentStatusIn(*c, loc)})
}

// addChosen answers an "a" button: the component joins the filter.
func (h *handler) addChosen(ctx context.Context, t *tap) {
	c := h.chosenComponent(ctx, t)
	if c == nil {
		return
	}
	_, err := h.st.AddComponent(ctx, t.key, c.ID, maxFilter)
	switch {
	case errors.Is(err, store.ErrInFilter):
		t.answer = "Already in the component filter."
	case errors.Is(err, store.ErrFilterFull):
		t.answer, t.alert = ansFilterFull, true
		return
	case errors.Is(err, store.ErrNotSubscribed):
		t.answer, t.alert = ansNotSubscribed, true
		return
	case err != nil:
		h.log.Warn("store", "callback", t.cb.op, "chat_id", t.msg.Chat.ID, "err", err)
		t.answer, t.alert = replyStoreError, true
		return
	default:
		t.answer = ansSaved
	}
	t.show(screen{text: "Added <b>" + escName(c.Name) + "</b> to the component filter. See it with /subscribe."})
}
