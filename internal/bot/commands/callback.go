package commands

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// TapAnswerTimeout bounds answering a tap: Telegram drops the spinner
// (and refuses the answer) after about 15 seconds anyway.
const TapAnswerTimeout = 5 * time.Second

// TapAnswerWithin is how long a tap's answer waits for its outcome
// ("Saved.", a refusal) before it goes without one: the spinner stops at
// once, whatever the store, Telegram or the page take, and the redraw
// shows the outcome.
const TapAnswerWithin = 500 * time.Millisecond

// KeyboardMaxAge: taps on a keyboard older than this are refused (the
// client keeps old messages; Telegram may not let the bot edit them).
const KeyboardMaxAge = 48 * time.Hour

// Answers to taps (answerCallbackQuery texts, at most 200 characters):
// a tap's answer is a message id, said in the chat's language when it
// goes (answerTapWith). The Ans* texts are the English ones.
const (
	tapSaved            = "tap.saved"
	tapTooOld           = "tap.tooOld"
	tapInvalid          = "tap.invalid"
	tapNotAdmin         = "tap.notAdmin"
	tapStale            = "tap.stale"
	tapPageChanged      = "tap.pageChanged"
	tapPageDown         = "tap.pageDown"
	tapKeepOneKind      = "tap.keepOneKind"
	tapKeepOnePage      = "tap.keepOnePage"
	tapOldPages         = "tap.oldPages"
	tapFilterFull       = "tap.filterFull"
	tapNotSubscribed    = "tap.notSubscribed"
	tapTooManyTaps      = "tap.tooManyTaps"
	tapPinInMessages    = "tap.pinInMessages"
	tapChannelDone      = "tap.channelDone"
	tapPageChangedAgain = "tap.pageChangedAgain"
	tapInFilter         = "tap.inFilter"
	tapAdminError       = "reply.adminError"
	tapStoreError       = "reply.storeError"
)

var (
	AnsSaved         = en.T(tapSaved, "Max", maxFilterText)
	AnsTooOld        = en.T(tapTooOld, "Max", maxFilterText)
	AnsInvalid       = en.T(tapInvalid, "Max", maxFilterText)
	AnsNotAdmin      = en.T(tapNotAdmin, "Max", maxFilterText)
	AnsStale         = en.T(tapStale, "Max", maxFilterText)
	AnsPageChanged   = en.T(tapPageChanged, "Max", maxFilterText)
	AnsPageDown      = en.T(tapPageDown, "Max", maxFilterText)
	AnsKeepOneKind   = en.T(tapKeepOneKind, "Max", maxFilterText)
	AnsKeepOnePage   = en.T(tapKeepOnePage, "Max", maxFilterText)
	AnsOldPages      = en.T(tapOldPages, "Max", maxFilterText)
	AnsFilterFull    = en.T(tapFilterFull, "Max", maxFilterText)
	AnsNotSubscribed = en.T(tapNotSubscribed, "Max", maxFilterText)
	AnsTooManyTaps   = en.T(tapTooManyTaps, "Max", maxFilterText)
	AnsPinInMessages = en.T(tapPinInMessages, "Max", maxFilterText)
	AnsChannelDone   = en.T(tapChannelDone, "Max", maxFilterText)
)

var maxFilterText = strconv.Itoa(maxFilter)

// errRefused is a change not made, with the answer saying why.
type errRefused struct{ answer string }

func (e errRefused) Error() string { return e.answer }

// tap is one callback query being handled.
type tap struct {
	q      *models.CallbackQuery
	msg    *models.Message
	key    string
	cb     screens.Callback
	answer string // a message id ("": none)
	alert  bool
	// cat is the language the answer and the screens speak once the
	// chat's subscription is read (unset: the tapper's own, lang).
	cat    i18n.Catalog
	catSet bool
	next   *screens.Screen // drawn after the answer (nil: no edit)
	// about: the channel whose settings a keyboard in a private chat
	// changes (nil: the chat's own).
	about *channelRef
	// remove lists messages deleted after the answer instead of an edit:
	// a channel's keyboard and the post that asked for it, at Done.
	remove []int
	// answered: the query was answered (once: Telegram takes one answer).
	answered sync.Once
}

// keyboard draws the screens for the tapped keyboard's chat.
func (t *tap) keyboard(sub *store.Subscriber, idx *screens.PageIndex) *screens.KB {
	k := screens.New(sub, idx)
	if t.about != nil {
		// Shown in a private chat: in its user's language, as /settings
		// @channel answered.
		k.For(t.about.id, t.about.title, t.about.typed).Speaking(i18n.Of(i18n.Match(t.q.From.LanguageCode)))
	}
	return k
}

// lang is the language of t's answer: the chat's, once read, else the
// tapper's Telegram language.
func (t *tap) lang() i18n.Catalog {
	if t.catSet {
		return t.cat
	}
	return i18n.Of(i18n.Match(t.q.From.LanguageCode))
}

// show sets the screen the keyboard message is redrawn with.
func (t *tap) show(s screens.Screen) { t.next = &s }

// onCallback handles a tap on the /settings keyboard: checks who tapped
// and whether the keyboard is current, applies the choice with one atomic
// update, redraws the keyboard on the same message and answers the query.
//
// The answer goes as soon as it is known, and at the latest tapAnswerWithin
// after the tap arrived, without text: a slow getChatMember, store or
// status page then delays only the redraw, never the spinner.
func (h *handler) onCallback(ctx context.Context, q *models.CallbackQuery) {
	t := &tap{q: q, msg: q.Message.Message}
	quick := time.AfterFunc(h.tapAnswerWithin, func() {
		actx, cancel := context.WithTimeout(context.Background(), TapAnswerTimeout)
		defer cancel()
		h.answerTapWith(actx, t, "", false)
	})
	defer quick.Stop()
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
	if t.msg == nil || h.now().Sub(time.Unix(int64(t.msg.Date), 0)) > KeyboardMaxAge {
		t.answer = tapTooOld
		return
	}
	cb, ok := screens.ParseCallback(q.Data)
	if !ok {
		t.answer = tapInvalid
		return
	}
	t.cb = cb
	thread := 0
	if t.msg.IsTopicMessage {
		thread = t.msg.MessageThreadID
	}
	t.key = store.SubscriberKey(t.msg.Chat.ID, thread)
	chat := t.msg.Chat
	if cb.Chat != 0 {
		// A channel's keyboard, shown in a private chat: it changes the
		// channel's settings, for the channel's admins only.
		if t.msg.Chat.Type != models.ChatTypePrivate {
			t.answer = tapInvalid
			return
		}
		ch := h.knownChannel(ctx, q.From.ID, cb.Chat)
		t.about, t.key = &ch, aboutKey(cb.Chat)
		chat = models.Chat{ID: cb.Chat, Type: models.ChatTypeChannel}
	}
	if cb.Op == opViewComponent {
		h.viewComponent(ctx, t) // anyone may look
		return
	}
	if ok, err := h.mayChange(ctx, chat, q.From); err != nil || !ok {
		t.answer, t.alert = tapNotAdmin, true
		if err != nil {
			t.answer = tapAdminError
		}
		return
	}
	sub, err := h.st.Subscription(ctx, t.key)
	if errors.Is(err, store.ErrNotSubscribed) {
		t.answer, t.alert = tapNotSubscribed, true
		text := NotSubscribedIn(t.lang(), thread != 0, t.msg.Chat.Type == models.ChatTypeChannel)
		if t.about != nil {
			text = channelNotSubscribedIn(t.lang(), t.about)
		}
		t.show(screens.Screen{Text: text})
		return
	}
	if err != nil {
		h.log.Warn("store", "callback", cb.Op, "chat_id", t.msg.Chat.ID, "err", err)
		t.answer, t.alert = tapStoreError, true
		return
	}
	if t.about == nil {
		t.cat, t.catSet = i18n.Of(sub.Settings.Lang), true
	}
	h.applyTap(ctx, t, sub)
}

// applyTap applies t's choice, when it is one and the keyboard is
// current, and redraws.
func (h *handler) applyTap(ctx context.Context, t *tap, sub *store.Subscriber) {
	cb := t.cb
	if cb.Op == opAddComponent {
		h.addChosen(ctx, t)
		return
	}
	idx := h.tapIndex(ctx, cb, sub)
	if cb.Op == "G" || cb.Op == "c" {
		if idx == nil {
			// Unreachable is not changed: nothing is said about the list.
			t.answer = tapPageDown
			t.show(t.keyboard(sub, idx).Groups(0))
			return
		}
		if !screens.ValidComponentRef(cb, idx) {
			t.answer = tapPageChanged
			t.show(t.keyboard(sub, idx).Groups(0))
			return
		}
	}
	if cb.Changes() && !screens.ValidChange(cb) {
		t.answer = tapInvalid
		return
	}
	if cb.Changes() {
		state := screens.StateToken(sub)
		if cb.Tok != state && !h.chains.follows(t.msg.Chat.ID, t.msg.ID, cb.Tok, state, h.now()) {
			t.answer = tapStale
		} else {
			next, err := h.applyChange(ctx, t.key, cb, sub, idx)
			var refused errRefused
			switch {
			case errors.As(err, &refused):
				t.answer = refused.answer
			case errors.Is(err, store.ErrNotSubscribed):
				t.answer, t.alert = tapNotSubscribed, true
				return
			case err != nil:
				h.log.Warn("store", "callback", cb.Op, "chat_id", t.msg.Chat.ID, "err", err)
				t.answer, t.alert = tapStoreError, true
				return
			default:
				h.chains.add(t.msg.Chat.ID, t.msg.ID, state, screens.StateToken(next), h.now())
				sub, t.answer = next, tapSaved
				if t.about == nil {
					t.cat = i18n.Of(sub.Settings.Lang) // a new language answers in itself
				}
				if cb.Op == "p" && sub.Settings.PinCards && !sub.Settings.Cards() {
					t.answer = tapPinInMessages
				}
			}
		}
	}
	k := t.keyboard(sub, idx).Offering(h.offer)
	if cb.Op == "x" {
		if t.msg.Chat.Type == models.ChatTypeChannel {
			// A channel's readers did not ask for the keyboard: clean up.
			t.remove = []int{t.msg.ID}
			if r := t.msg.ReplyToMessage; r != nil {
				t.remove = append(t.remove, r.ID)
			}
			if t.answer == "" {
				t.answer = tapChannelDone
			}
			return
		}
		c := t.lang()
		heading, again := c.T("settings.heading"), "/settings"
		if t.about != nil {
			heading, again = c.T("settings.headingOf", "Title", message.Escape(t.about.title)), "/settings "+message.Escape(t.about.typed)
		}
		t.show(screens.Screen{Text: heading + "\n" + screens.SummaryIn(c, sub, k.Names()) + "\n\n" + c.T("settings.doneHint", "Command", again)})
		return
	}
	t.show(screens.ScreenFor(k, cb))
}

// applyChange stores one choice and returns the subscription after it.
func (h *handler) applyChange(ctx context.Context, key string, cb screens.Callback, sub *store.Subscriber, idx *screens.PageIndex) (*store.Subscriber, error) {
	bad := errRefused{tapInvalid}
	switch cb.Op {
	case "K":
		i, ok1 := cb.Arg(0, len(event.Kinds))
		on, ok2 := cb.Arg(1, 2)
		if !ok1 || !ok2 {
			return nil, bad
		}
		kinds := screens.ToggleKind(sub.Kinds, event.Kinds[i], on == 1)
		if len(kinds) == 0 {
			return nil, errRefused{tapKeepOneKind}
		}
		return h.reread(ctx, key, h.st.SetKinds(ctx, key, kinds))
	case "c":
		ci, _ := cb.Arg(0, len(idx.Comps))
		on, _ := cb.Arg(1, 2)
		id := idx.Comps[ci].ID
		var err error
		if on == 1 {
			_, err = h.st.AddComponent(ctx, key, id, maxFilter)
		} else {
			_, err = h.st.RemoveComponent(ctx, key, id)
		}
		switch {
		case errors.Is(err, store.ErrFilterFull):
			return nil, errRefused{tapFilterFull}
		case errors.Is(err, store.ErrInFilter), errors.Is(err, store.ErrNotInFilter):
			err = nil // already as asked
		}
		return h.reread(ctx, key, err)
	case "C":
		return h.reread(ctx, key, h.st.SetComponents(ctx, key, nil))
	case "P":
		// By its place in the list, which may be another page's now.
		return nil, errRefused{tapOldPages}
	case "F":
		page, on, ok := screens.PageChoice(cb, h.offer)
		if !ok {
			return nil, errRefused{tapOldPages}
		}
		_, _, err := h.st.ChangeFollow(ctx, key, h.offer.EventPage(page.Name), on, h.offer)
		if errors.Is(err, pages.ErrLastPage) {
			return nil, errRefused{tapKeepOnePage}
		}
		return h.reread(ctx, key, err)
	}
	c, err := screens.SettingFor(cb)
	if err != nil {
		return nil, bad
	}
	return h.st.ChangeSettings(ctx, key, c)
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
func (h *handler) tapIndex(ctx context.Context, cb screens.Callback, sub *store.Subscriber) *screens.PageIndex {
	switch cb.Reads() {
	case screens.LivePage:
		ctx, cancel := context.WithTimeout(ctx, tapPageWait)
		defer cancel()
		return h.pageIndex(ctx, sub)
	case screens.FilterNames:
		if len(sub.Components) > 0 {
			if pv, ok := h.pages.Stored(ctx, Covered(h.offer, sub, ""), pageset.Components); ok {
				return screens.IndexPage(pv.Page)
			}
		}
	}
	return nil
}

// pageIndex numbers the components of the chat's pages (sub nil: the
// default page's); nil when unavailable.
func (h *handler) pageIndex(ctx context.Context, sub *store.Subscriber) *screens.PageIndex {
	pv, err := h.pages.Get(ctx, Covered(h.offer, sub, ""), pageset.Components)
	if err != nil || pv.Page.ComponentsErr != "" {
		return nil
	}
	return screens.IndexPage(pv.Page)
}

// edit hands the screen to the keyboard's editor and returns at once:
// the tap's lane is not held while the edit waits for the chat's pace.
func (h *handler) edit(_ context.Context, t *tap, s screens.Screen) {
	t.next = nil
	h.editor.redraw(t.msg.Chat.ID, t.msg.ID, s)
}

// answerTap answers the query with t's answer, unless it was answered
// already; a late answer ("query is too old") only means the spinner
// stopped on its own.
func (h *handler) answerTap(ctx context.Context, t *tap) {
	h.answerTapWith(ctx, t, t.answer, t.alert)
}

func (h *handler) answerTapWith(ctx context.Context, t *tap, id string, alert bool) {
	t.answered.Do(func() {
		text := ""
		if id != "" {
			text = t.lang().T(id, "Max", maxFilterText)
		}
		_, err := h.api.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{
			CallbackQueryID: t.q.ID, Text: text, ShowAlert: alert,
		})
		if err != nil {
			h.log.Debug("answerCallbackQuery", "err", h.redact(err.Error()))
		}
	})
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
	var idx *screens.PageIndex
	if len(sub.Components) > 0 {
		idx = h.pageIndex(ctx, sub)
	}
	k := screens.New(sub, idx).Offering(h.offer).Speaking(h.lang(ctx, r))
	if r.about != nil {
		k.For(r.about.id, r.about.title, r.about.typed)
	}
	if r.channel {
		r.cleanup = h.cleanup.keyboard
	}
	s := k.Main()
	o := r.answer(s.Text)
	o.markup = s.Markup()
	if r.channel && r.msg != nil {
		o.replyTo = r.msg.ID
		c := h.lang(ctx, r)
		o.text = s.Text + "\n\n<i>" + c.T("misc.doneRemoves") + "</i>\n" + cleanupNote(c, r.msg.Chat, r.cleanup)
	}
	h.send(ctx, r, o)
}

// Buttons answering a name several components match ("Login"): each names
// one component by its index in the page's list, with the list's token.
const (
	opViewComponent = screens.OpViewComponent
	opAddComponent  = screens.OpAddComponent
)

// chosenComponent is the component a "v" or "a" button names; nil, with
// the answer saying so, when the page changed since (or cannot be read).
func (h *handler) chosenComponent(ctx context.Context, t *tap) *statuspage.Component {
	// The chat's pages, as the question's buttons were drawn for.
	sub, err := h.st.Subscription(ctx, t.key)
	if err != nil {
		sub = nil
	}
	idx := h.tapIndex(ctx, t.cb, sub)
	if idx == nil {
		t.answer = tapPageDown
		return nil
	}
	ci, ok := 0, false
	if idx != nil && t.cb.Tok == idx.Tok {
		ci, ok = t.cb.Arg(0, len(idx.Comps))
	}
	if !ok {
		t.answer = tapPageChangedAgain
		return nil
	}
	c := idx.Comps[ci]
	c.Name = idx.Names[c.ID] // as /components shows it
	return &c
}

// viewComponent answers a "v" button with the component's status, in
// place of the question.
func (h *handler) viewComponent(ctx context.Context, t *tap) {
	c := h.chosenComponent(ctx, t)
	if c == nil {
		return
	}
	loc, cat := time.UTC, t.lang()
	if sub, err := h.st.Subscription(ctx, t.key); err == nil && sub != nil {
		loc = notice.Zone(sub.Settings)
		if t.about == nil {
			cat = i18n.Of(sub.Settings.Lang)
		}
	}
	t.show(screens.Screen{Text: componentStatusIn(cat, *c, loc)})
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
		t.answer = tapInFilter
	case errors.Is(err, store.ErrFilterFull):
		t.answer, t.alert = tapFilterFull, true
		return
	case errors.Is(err, store.ErrNotSubscribed):
		t.answer, t.alert = tapNotSubscribed, true
		return
	case err != nil:
		h.log.Warn("store", "callback", t.cb.Op, "chat_id", t.msg.Chat.ID, "err", err)
		t.answer, t.alert = tapStoreError, true
		return
	default:
		t.answer = tapSaved
	}
	t.show(screens.Screen{Text: t.lang().T("misc.addedToFilter", "Name", screens.EscName(c.Name))})
}
