package bot

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// keyboardOf decodes a message's inline keyboard.
func keyboardOf(t testing.TB, m fakes.Message) [][]models.InlineKeyboardButton {
	t.Helper()
	if m.ReplyMarkup == "" {
		return nil
	}
	var kb models.InlineKeyboardMarkup
	if err := json.Unmarshal([]byte(m.ReplyMarkup), &kb); err != nil {
		t.Fatalf("reply_markup %q: %v", m.ReplyMarkup, err)
	}
	return kb.InlineKeyboard
}

// button finds the button whose text contains label.
func button(t testing.TB, m fakes.Message, label string) models.InlineKeyboardButton {
	t.Helper()
	for _, row := range keyboardOf(t, m) {
		for _, b := range row {
			if strings.Contains(b.Text, label) {
				return b
			}
		}
	}
	t.Fatalf("no button %q on %q (%s)", label, m.Text, m.ReplyMarkup)
	return models.InlineKeyboardButton{}
}

// openSettings sends /settings and returns the keyboard message.
func (h *harness) openSettings(u models.Update, chatID int64) fakes.Message {
	h.t.Helper()
	got := h.exchange(chatID, 0, u)
	if len(got) != 1 || got[0].ReplyMarkup == "" {
		h.t.Fatalf("/settings: want one message with a keyboard, got %+v", got)
	}
	checkHTML(h.t, got[0].Text)
	return got[0]
}

// tap presses a button as user from and waits for the answer; it returns
// the answer and the keyboard message as it is then.
func (h *harness) tap(m fakes.Message, chatType models.ChatType, from int64, data string) (fakes.CallbackAnswer, fakes.Message) {
	h.t.Helper()
	if len(data) > screens.MaxCallbackData {
		h.t.Fatalf("callback_data over 64 bytes: %q", data)
	}
	edits := h.tg.Calls("editMessageText")
	id := h.tg.Tap(h.upd, m, chatType, from, data)
	var a fakes.CallbackAnswer
	waitFor(h.t, "the answer to "+data, func() bool {
		var ok bool
		a, ok = h.tg.Answer(id)
		return ok
	})
	// The answer goes out before the redraw: wait for this tap's edit
	// to be answered (a tap that redraws nothing makes none).
	deadline := time.Now().Add(time.Second)
	for h.tg.Answered("editMessageText") <= edits && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	now, _ := h.tg.Message(m.ChatID, m.ID)
	checkHTML(h.t, now.Text)
	return a, now
}

// subscribedHarness is a started bot with the test page and a private
// chat that sent /start.
func subscribedHarness(t *testing.T, chat int64) (*harness, models.ChatType) {
	t.Helper()
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	h.ask(chat, 0, private(chat, "/start"))
	return h, models.ChatTypePrivate
}

// The keyboard round trip: types off, a component group, a component,
// back; the store is updated and the one message edited in place.
func TestSettingsKeyboardRoundTrip(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 42
	h.ask(chat, 0, private(chat, "/start"))
	m := h.openSettings(private(chat, "/settings"), chat)
	if !strings.Contains(m.Text, "<b>Severity:</b> everything") {
		t.Fatalf("main screen: %q", m.Text)
	}
	pt := models.ChatTypePrivate

	a, m := h.tap(m, pt, chat, button(t, m, "Notice types").CallbackData)
	if a.Text != "" || !strings.Contains(m.Text, "Notice types") {
		t.Fatalf("types screen: %+v %q", a, m.Text)
	}
	a, m = h.tap(m, pt, chat, button(t, m, "Incidents").CallbackData)
	if a.Text != commands.AnsSaved || !strings.Contains(button(t, m, "Incidents").Text, "▫️") {
		t.Fatalf("incidents off: %+v %s", a, m.ReplyMarkup)
	}
	if sub := h.subscription("42"); !slices.Equal(sub.Kinds, []event.Kind{event.KindComponent, event.KindMaintenance}) {
		t.Fatalf("kinds %v", sub.Kinds)
	}
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Components").CallbackData)
	if b := button(t, m, "APIs"); b.Text != "APIs · all" {
		t.Fatalf("group button %q", b.Text)
	}
	_, m = h.tap(m, pt, chat, button(t, m, "APIs").CallbackData)
	a, m = h.tap(m, pt, chat, button(t, m, "Embeddings").CallbackData)
	if a.Text != commands.AnsSaved || !strings.HasPrefix(button(t, m, "Embeddings").Text, "✅") {
		t.Fatalf("pick a component: %+v %s", a, m.ReplyMarkup)
	}
	if sub := h.subscription("42"); !slices.Equal(sub.Components, []string{"emb1"}) {
		t.Fatalf("filter %v", sub.Components)
	}
	_, m = h.tap(m, pt, chat, button(t, m, "« Groups").CallbackData)
	if b := button(t, m, "APIs"); b.Text != "APIs · 1/2" {
		t.Fatalf("count per group: %q", b.Text)
	}
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	if !strings.Contains(m.Text, "<b>Components:</b> Embeddings") || !strings.Contains(m.Text, "<b>Notice types:</b> component, maintenance") {
		t.Fatalf("main screen after the round trip: %q", m.Text)
	}
	// Everything happened on the one message.
	n := 0
	for _, x := range h.tg.MessagesTo(chat, 0) {
		if x.Text != commands.HelpText() {
			n++
		}
	}
	if n != 2 { // /start's reply and the keyboard
		t.Fatalf("%d messages; the keyboard must edit itself", n)
	}
	if m.Edits < 8 {
		t.Fatalf("keyboard edited %d times", m.Edits)
	}
	// Settings screens: severity, quiet hours, zone, delivery.
	_, m = h.tap(m, pt, chat, button(t, m, "Severity").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "the rest silently").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Quiet hours").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "22:00–07:00").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Resolutions").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Time zone").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Europe/Berlin").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Cards").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Messages").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Pin open cards").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "30 min").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Maintenance reminders").CallbackData)
	want := store.Settings{Mode: store.ModeMessages, PinCards: true, MinSeverity: store.SeverityOutage, BelowSilent: true,
		QuietStart: "22:00", QuietEnd: "07:00", QuietResolutions: true, TimeZone: "Europe/Berlin", NoReminders: true, ReminderMinutes: 30}
	if got := h.subscription("42").Settings; got != want {
		t.Fatalf("settings\n got %+v\nwant %+v", got, want)
	}
	a, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	a, m = h.tap(m, pt, chat, button(t, m, "Done").CallbackData)
	if m.ReplyMarkup != "" || !strings.Contains(m.Text, "<b>Time zone:</b> Europe/Berlin") {
		t.Fatalf("done: keyboard %q text %q", m.ReplyMarkup, m.Text)
	}
	_ = a
}

// A member who is not an administrator cannot change a group's settings
// through the keyboard: the tap is answered with an alert and nothing
// changes; an administrator's tap goes through.
func TestSettingsKeyboardAdminsOnly(t *testing.T) {
	h := newHarness(t)
	const chat, admin, member = -100777, 7, 8
	h.tg.ChatMembers(map[int64]map[int64]string{chat: {admin: "administrator"}})
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	h.ask(chat, 0, group(chat, admin, "/start"))
	if got := h.ask(chat, 0, group(chat, member, "/settings severity outage")); got != commands.ReplyNotAdmin {
		t.Fatalf("typed by a member: %q", got)
	}
	m := h.openSettings(group(chat, admin, "/settings"), chat)
	gt := models.ChatTypeSupergroup
	before := h.subscription("-100777").Settings
	a, after := h.tap(m, gt, member, button(t, m, "Severity").CallbackData)
	if !a.ShowAlert || a.Text != commands.AnsNotAdmin || after.Edits != 0 {
		t.Fatalf("member's tap: answer %+v, edits %d", a, after.Edits)
	}
	// Even a change button drawn for the admin does nothing for a member.
	_, m = h.tap(m, gt, admin, button(t, m, "Severity").CallbackData)
	a, after = h.tap(m, gt, member, button(t, m, "Outages only, skip").CallbackData)
	if !a.ShowAlert || after.Text != m.Text || after.ReplyMarkup != m.ReplyMarkup {
		t.Fatalf("member's change: answer %+v", a)
	}
	if got := h.subscription("-100777").Settings; got != before {
		t.Fatalf("a member changed the settings: %+v", got)
	}
	a, _ = h.tap(m, gt, admin, button(t, m, "Outages only, skip").CallbackData)
	if a.Text != commands.AnsSaved || h.subscription("-100777").Settings.MinSeverity != store.SeverityOutage {
		t.Fatalf("admin's change: %+v %+v", a, h.subscription("-100777").Settings)
	}
}

// Stale keyboards: a setting changed elsewhere, components that changed
// on the page, a deleted keyboard message, garbage data.
func TestSettingsKeyboardStale(t *testing.T) {
	const chat = 43
	h, pt := subscribedHarness(t, chat)
	m := h.openSettings(private(chat, "/settings"), chat)
	_, m = h.tap(m, pt, chat, button(t, m, "Severity").CallbackData)
	everything := button(t, m, "Everything").CallbackData
	if got := h.ask(chat, 0, private(chat, "/settings severity outage")); !strings.HasPrefix(got, "Saved") {
		t.Fatalf("typed: %q", got)
	}
	a, m := h.tap(m, pt, chat, everything)
	if a.Text != commands.AnsStale || h.subscription("43").Settings.MinSeverity != store.SeverityOutage {
		t.Fatalf("stale tap applied: %+v", a)
	}
	if !strings.HasPrefix(button(t, m, "Outages only, skip").Text, "✅") {
		t.Fatalf("redrawn keyboard does not show the change made elsewhere: %s", m.ReplyMarkup)
	}
	a, _ = h.tap(m, pt, chat, button(t, m, "Everything").CallbackData)
	if a.Text != commands.AnsSaved || h.subscription("43").Settings.MinSeverity != store.SeverityAll {
		t.Fatalf("fresh tap: %+v", a)
	}

	// The page's components change under an open component screen.
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "Components").CallbackData)
	_, m = h.tap(m, pt, chat, button(t, m, "APIs").CallbackData)
	api := button(t, m, "API").CallbackData
	p := testPage(h.sp.URL())
	p.Components = append(p.Components[:1], p.Components[2:]...) // API gone
	h.snapshot(p)
	a, m = h.tap(m, pt, chat, api)
	if a.Text != commands.AnsPageChanged || len(h.subscription("43").Components) != 0 {
		t.Fatalf("tap on a changed page: %+v %v", a, h.subscription("43").Components)
	}
	// Garbage and overlong data, and a deleted keyboard.
	for bad, want := range map[string]string{"": commands.AnsInvalid, "K": commands.AnsInvalid, "K:9:1:x": commands.AnsInvalid, "Z:-1:x": commands.AnsInvalid,
		"S:01:x": commands.AnsInvalid, "c:99:1:0:zz:x": commands.AnsPageChanged, strings.Repeat("m:", 33): commands.AnsInvalid} {
		id := h.tg.Tap(h.upd, m, pt, chat, bad)
		waitFor(t, "an answer", func() bool { _, ok := h.tg.Answer(id); return ok })
		if a, _ := h.tg.Answer(id); a.Text != want {
			t.Fatalf("data %q: %+v", bad, a)
		}
	}
	if len(h.subscription("43").Components) != 0 || h.subscription("43").Settings != (store.Settings{Mode: store.ModeCards}) {
		t.Fatalf("bad data changed something: %+v", h.subscription("43"))
	}
	old := m
	old.At = time.Now().Add(-commands.KeyboardMaxAge - time.Hour)
	if a, _ := h.tap(old, pt, chat, button(t, m, "Back").CallbackData); a.Text != commands.AnsTooOld {
		t.Fatalf("a keyboard from days ago: %+v", a)
	}
	// A tap on a keyboard deleted meanwhile is still answered (the answer
	// goes out before the edit that fails).
	h.tg.DeleteMessage(chat, m.ID)
	h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
}

// Typed settings and their validation; /history reads times in the
// chat's zone.
func TestSettingsTyped(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 44
	ask := func(text string) string { t.Helper(); return h.ask(chat, 0, private(chat, text)) }
	if got := ask("/settings tz Europe/Berlin"); got != commands.NotSubscribedReply(false, false) {
		t.Fatalf("not subscribed: %q", got)
	}
	ask("/start")
	for in, want := range map[string]string{
		"/settings tz europe/berlin":         "Saved: time zone Europe/Berlin.",
		"/settings quiet 22:30-06:00":        "Saved: quiet hours 22:30–06:00.",
		"/settings quiet-resolutions silent": "Saved: resolutions silent in quiet hours.",
		"/settings severity outage-silent":   "Saved: outages and major incidents with sound; the rest silently.",
		"/settings mode messages":            "Saved: one message per update.",
		"/settings pin on":                   "Saved: pin open cards: on.",
		"/settings reminders 90":             "Saved: maintenance reminders 90 minutes ahead.",
		"/settings types incident":           "Saved: notice types: incident.",
		"/settings tz Mars/Olympus":          "unknown time zone \"Mars/Olympus\"",
		"/settings quiet 25:00-07:00":        "\"25:00\" is not a time like 22:00",
		"/settings quiet 22:00-22:00":        "quiet hours must not start and end at the same time",
		"/settings reminders 2":              "reminders go 5 to 1440 minutes ahead, not 2",
		"/settings colour <b>red</b>":        "Unknown setting “colour”.",
		"/settings severity <i>":             "Severity is all, outage or outage-silent.",
	} {
		got := ask(in)
		if !strings.HasPrefix(got, esc(want)) {
			t.Errorf("%s:\n got %q\nwant %q…", in, got, esc(want))
		}
	}
	want := store.Settings{Mode: store.ModeMessages, PinCards: true, MinSeverity: store.SeverityOutage, BelowSilent: true,
		QuietStart: "22:30", QuietEnd: "06:00", QuietResolutions: true, TimeZone: "Europe/Berlin", ReminderMinutes: 90}
	if got := h.subscription("44").Settings; got != want {
		t.Fatalf("settings\n got %+v\nwant %+v", got, want)
	}
	info := ask("/info")
	for _, s := range []string{"<b>Quiet hours:</b> 22:30–06:00, resolutions silent", "<b>Time zone:</b> Europe/Berlin",
		"<b>Severity:</b> outages and major incidents only; the rest silently", "<b>Delivery:</b> one message per update",
		"<b>Maintenance reminders:</b> 90 minutes before", "<b>Notice types:</b> incident"} {
		if !strings.Contains(info, s) {
			t.Errorf("/info lacks %q:\n%s", s, info)
		}
	}
	// testPage's first incident was created 09:02 UTC on 8 March: 10:02 in Berlin.
	if got := ask("/history 1"); !strings.Contains(got, `format="dt">2026-03-08 10:02 CET</tg-time>`) {
		t.Errorf("/history not in the chat's zone: %q", got)
	}
	if got := ask("/status sora"); !strings.Contains(got, `format="dt">2026-03-01 13:00 CET</tg-time>`) {
		t.Errorf("/status not in the chat's zone: %q", got)
	}
}

// The menus come from the command table: group members see the
// read-only commands, administrators and private chats all of them.
func TestCommandMenusByScope(t *testing.T) {
	h := newHarness(t)
	h.start()
	names := func(cmds []models.BotCommand) []string {
		var out []string
		for _, c := range cmds {
			out = append(out, c.Command)
			if c.Description == "" || len(c.Description) > 256 {
				t.Errorf("description of %s: %q", c.Command, c.Description)
			}
		}
		return out
	}
	everything := []string{"start", "stop", "status", "components", "subscribe", "unsubscribe", "settings", "history", "uptime", "info", "why", "help"}
	for _, scope := range []string{"default", "all_private_chats", "all_chat_administrators"} {
		if got := names(h.tg.CommandMenu(scope)); !slices.Equal(got, everything) {
			t.Errorf("%s: %v", scope, got)
		}
	}
	if got := names(h.tg.CommandMenu("all_group_chats")); !slices.Equal(got, []string{"status", "components", "history", "uptime", "info", "why", "help"}) {
		t.Errorf("group members: %v", got)
	}
	for _, c := range everything {
		if !strings.Contains(commands.HelpText(), "/"+c+" ") {
			t.Errorf("/help lacks /%s", c)
		}
	}
}

// Every callback_data the keyboard can produce for the status.openai.com
// page (34 components in five groups) fits Telegram's 64 bytes, decodes,
// and refers to a component of the page.
// In a forum topic the keyboard changes the topic's subscription, not the
// group's.
func TestSettingsKeyboardInForumTopic(t *testing.T) {
	h := newHarness(t)
	const chat, admin, thread = -100888, 7, 55
	h.tg.ChatMembers(map[int64]map[int64]string{chat: {admin: "creator"}})
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	h.ask(chat, 0, group(chat, admin, "/start"))
	h.ask(chat, thread, topicMsg(chat, admin, thread, "/start"))
	got := h.exchange(chat, thread, topicMsg(chat, admin, thread, "/settings"))
	if len(got) != 1 || got[0].ReplyMarkup == "" {
		t.Fatalf("keyboard in the topic: %+v", got)
	}
	m := got[0]
	_, m = h.tap(m, models.ChatTypeSupergroup, admin, button(t, m, "Time zone").CallbackData)
	a, _ := h.tap(m, models.ChatTypeSupergroup, admin, button(t, m, "Asia/Tokyo").CallbackData)
	if a.Text != commands.AnsSaved {
		t.Fatalf("answer %+v", a)
	}
	if tz := h.subscription(store.SubscriberKey(chat, thread)).Settings.TimeZone; tz != "Asia/Tokyo" {
		t.Fatalf("topic's zone %q", tz)
	}
	if tz := h.subscription(store.SubscriberKey(chat, 0)).Settings.TimeZone; tz != "" {
		t.Fatalf("the group's zone changed: %q", tz)
	}
}

// With the worker stopped (the snapshot older than two poll intervals)
// and the status page hanging, a tap on a screen that shows no component
// is answered at once and redrawn: it reads no page. On the old code
// every tap fetched the page first, the answer came after 15 s and
// Telegram refused it ("query is too old"): the user saw a spinner.
func TestSettingsTapWithoutPageNeedsNoPage(t *testing.T) {
	h := newHarness(t)
	if err := h.st.SaveSnapshot(context.Background(), testPage(h.sp.URL()), time.Now().Add(-3*h.cfg.PollInterval)); err != nil {
		t.Fatal(err)
	}
	h.sp.Fault("", fakes.Hang)
	h.start()
	const chat = 46
	h.ask(chat, 0, private(chat, "/start"))
	m := h.openSettings(private(chat, "/settings"), chat)
	for _, label := range []string{"Severity", "the rest silently", "Back", "Done"} {
		id := h.tg.Tap(h.upd, m, models.ChatTypePrivate, chat, button(t, m, label).CallbackData)
		waitWithin(t, 3*time.Second, "the answer to "+label, func() bool { _, ok := h.tg.Answer(id); return ok })
		waitWithin(t, 3*time.Second, "the redraw after "+label, func() bool {
			now, _ := h.tg.Message(chat, m.ID)
			if now.Text != m.Text || now.ReplyMarkup != m.ReplyMarkup {
				m = now
				return true
			}
			return false
		})
	}
	if got := h.subscription("46").Settings; got.MinSeverity != store.SeverityOutage || !got.BelowSilent {
		t.Fatalf("severity not saved: %+v", got)
	}
	if !strings.Contains(m.Text, "<b>Severity:</b> outages and major incidents only; the rest silently") {
		t.Fatalf("Done screen: %q", m.Text)
	}
}

// The ring choice (issue 28) has its buttons on the delivery screen, and
// the keyboard's summary and /info say it: news only by default, every
// update once chosen (by a tap or typed). Before, only the typed
// /settings ring changed it, and neither screen showed it.
func TestSettingsKeyboardRing(t *testing.T) {
	const ringNews, ringEvery = "<b>Sound:</b> news rings", "<b>Sound:</b> every update rings"
	const chat = 46
	h, pt := subscribedHarness(t, chat)
	if info := h.ask(chat, 0, private(chat, "/info")); !strings.Contains(info, ringNews) {
		t.Fatalf("/info lacks %q:\n%s", ringNews, info)
	}
	m := h.openSettings(private(chat, "/settings"), chat)
	if !strings.Contains(m.Text, ringNews) {
		t.Fatalf("main screen lacks the ring line: %q", m.Text)
	}
	_, m = h.tap(m, pt, chat, button(t, m, "Cards").CallbackData)
	if !strings.HasPrefix(button(t, m, "Ring on news only").Text, "✅") {
		t.Fatalf("news only is not marked: %s", m.ReplyMarkup)
	}
	a, m := h.tap(m, pt, chat, button(t, m, "Ring on every update").CallbackData)
	if a.Text != commands.AnsSaved || !strings.HasPrefix(button(t, m, "Ring on every update").Text, "✅") {
		t.Fatalf("every update: %+v %s", a, m.ReplyMarkup)
	}
	if !h.subscription("46").Settings.RingEvery {
		t.Fatal("the tap did not set ring every")
	}
	_, m = h.tap(m, pt, chat, button(t, m, "Back").CallbackData)
	if !strings.Contains(m.Text, ringEvery) {
		t.Fatalf("main screen after the tap: %q", m.Text)
	}
	if info := h.ask(chat, 0, private(chat, "/info")); !strings.Contains(info, ringEvery) {
		t.Fatalf("/info lacks %q:\n%s", ringEvery, info)
	}
	h.ask(chat, 0, private(chat, "/settings ring news"))
	if h.subscription("46").Settings.RingEvery {
		t.Fatal("/settings ring news did not clear it")
	}
	if info := h.ask(chat, 0, private(chat, "/info")); !strings.Contains(info, ringNews) {
		t.Fatalf("/info after /settings ring news lacks %q:\n%s", ringNews, info)
	}
}
