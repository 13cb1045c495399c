package bot

import (
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// /start says what the chat gets, shows the status now, points at
// /settings and offers buttons; the Settings button opens the settings
// in place.
func TestStartShowsStatusSettingsAndButtons(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 60
	got := h.exchange(chat, 0, private(chat, "/start"))
	if len(got) != 1 {
		t.Fatalf("/start: %+v", got)
	}
	m := got[0]
	t.Logf("/start reply:\n%s", m.Text)
	for _, want := range []string{"Subscribed this chat to OpenAI status notices", "<b>Status now:</b> Partially Degraded Service; not operational: API, Sora.", "/settings", "/help"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("/start lacks %q:\n%s", want, m.Text)
		}
	}
	button(t, m, "Components")
	_, now := h.tap(m, models.ChatTypePrivate, chat, button(t, m, "Settings").CallbackData)
	if !strings.HasPrefix(now.Text, "<b>Settings</b>\n<b>Notice types:</b>") {
		t.Fatalf("the Settings button: %q", now.Text)
	}
	button(t, now, "Quiet hours")
}

// Added to a group, the bot says what it does and that an admin can
// /start; removed and added back, it greets again.
func TestGroupGreeting(t *testing.T) {
	h := newHarness(t)
	h.start()
	const g = -100700
	added := memberUpdate(g, models.ChatTypeSupergroup, models.ChatMemberTypeMember)
	added.MyChatMember.OldChatMember = models.ChatMember{Type: models.ChatMemberTypeLeft, Left: &models.ChatMemberLeft{User: &models.User{ID: 1000, IsBot: true}}}
	got := h.exchange(g, 0, added)
	if len(got) != 1 || got[0].Text != commands.GroupGreeting {
		t.Fatalf("greeting: %+v", got)
	}
	t.Logf("group greeting:\n%s", got[0].Text)
	// Promoted to admin: already there, no second greeting.
	promoted := memberUpdate(g, models.ChatTypeSupergroup, models.ChatMemberTypeAdministrator)
	h.silent(g, 0, promoted)
	// A channel is not greeted: every reader would see it.
	const ch = -100701
	chAdded := memberUpdate(ch, models.ChatTypeChannel, models.ChatMemberTypeAdministrator)
	chAdded.MyChatMember.OldChatMember = added.MyChatMember.OldChatMember
	h.upd.Push(chAdded)
	h.ask(ch, 0, channelPost(ch, "/help"))
	for _, m := range h.tg.MessagesTo(ch, 0) {
		if m.Text == commands.GroupGreeting {
			t.Fatal("a channel was greeted")
		}
	}
}

// /stop keeps the settings and says so; /start brings them back. The
// bot removed from a group keeps them too.
func TestStopKeepsSettingsForStart(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 61
	ask := func(text string) string { t.Helper(); return h.ask(chat, 0, private(chat, text)) }
	ask("/start")
	ask("/settings tz Europe/Berlin")
	ask("/subscribe component Sora")
	stop := ask("/stop")
	if !strings.Contains(stop, "settings are kept for 30 days") || !strings.Contains(stop, "/start") {
		t.Fatalf("/stop: %q", stop)
	}
	if h.subscription("61") != nil {
		t.Fatal("still subscribed after /stop")
	}
	start := ask("/start")
	if !strings.HasPrefix(start, "Subscribed this chat again, with the settings it had before /stop") {
		t.Fatalf("/start after /stop: %q", start)
	}
	if sub := h.subscription("61"); sub == nil || sub.Settings.TimeZone != "Europe/Berlin" || len(sub.Components) != 1 {
		t.Fatalf("settings after /start: %+v", sub)
	}

	const g, admin = -100702, 7
	h.tg.ChatMembers(map[int64]map[int64]string{g: {admin: "creator"}})
	h.ask(g, 0, group(g, admin, "/start"))
	h.ask(g, 0, group(g, admin, "/settings quiet 22:00-07:00"))
	h.silent(g, 0, memberUpdate(g, models.ChatTypeSupergroup, models.ChatMemberTypeLeft))
	if h.subscription(store.SubscriberKey(g, 0)) != nil {
		t.Fatal("still subscribed after the bot was removed")
	}
	if got := h.ask(g, 0, group(g, admin, "/start")); !strings.Contains(got, "again, with the settings it had before /stop") {
		t.Fatalf("/start after re-adding: %q", got)
	}
	if sub := h.subscription(store.SubscriberKey(g, 0)); sub.Settings.QuietStart != "22:00" {
		t.Fatalf("quiet hours lost: %+v", sub.Settings)
	}
}

// In groups every reply is threaded to the command it answers
// (reply_parameters), so in a busy group it is clear who was answered; a
// private chat needs no threading.
func TestGroupRepliesAreThreaded(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const g, member = -100703, 8
	h.tg.ChatMembers(map[int64]map[int64]string{g: {}})
	u := group(g, member, "/status")
	u.Message.ID = 4242
	got := h.exchange(g, 0, u)
	if len(got) != 1 || got[0].ReplyTo != 4242 {
		t.Fatalf("group reply: %+v", got)
	}
	u = group(g, member, "/stop") // refused, but threaded too
	u.Message.ID = 4243
	if got := h.exchange(g, 0, u); len(got) != 1 || got[0].ReplyTo != 4243 || got[0].Text != commands.ReplyNotAdmin {
		t.Fatalf("refusal: %+v", got)
	}
	if got := h.exchange(62, 0, private(62, "/status")); len(got) != 1 || got[0].ReplyTo != 0 {
		t.Fatalf("private reply: %+v", got)
	}
}

// Quiet hours typed without a zone say they are UTC.
func TestQuietHoursWithoutZoneSayUTC(t *testing.T) {
	h := newHarness(t)
	h.start()
	const chat = 63
	h.ask(chat, 0, private(chat, "/start"))
	got := h.ask(chat, 0, private(chat, "/settings quiet 22:00-07:00"))
	if !strings.Contains(got, "UTC") {
		t.Fatalf("no zone, no UTC: %q", got)
	}
	h.ask(chat, 0, private(chat, "/settings tz us/eastern"))
	if got := h.ask(chat, 0, private(chat, "/settings quiet 22:00-07:00")); strings.Contains(got, "UTC") {
		t.Fatalf("with a zone: %q", got)
	}
	if tz := h.subscription("63").Settings.TimeZone; tz != "US/Eastern" {
		t.Fatalf("zone %q", tz)
	}
}

// In a channel every reply reaches every reader: replies go silently,
// and Done on the settings keyboard removes the keyboard and the
// /settings post that asked for it.
func TestChannelSettingsCleanUp(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	const ch, admin = -100800, 5
	h.tg.ChatMembers(map[int64]map[int64]string{ch: {admin: "administrator"}})
	h.start()
	got := h.exchange(ch, 0, channelPost(ch, "/start"))
	if len(got) != 1 || !got[0].Silent {
		t.Fatalf("/start in a channel: %+v", got)
	}
	post := channelPost(ch, "/settings")
	post.ChannelPost.ID = 77
	got = h.exchange(ch, 0, post)
	if len(got) != 1 || got[0].ReplyTo != 77 || !got[0].Silent {
		t.Fatalf("keyboard in a channel: %+v", got)
	}
	kb := got[0]
	a, _ := h.tap(kb, models.ChatTypeChannel, admin, button(t, kb, "Done").CallbackData)
	if a.Text != commands.AnsChannelDone {
		t.Fatalf("Done: %+v", a)
	}
	waitFor(t, "the clean-up", func() bool { return len(h.tg.DeletedByBot()) == 2 })
	del := h.tg.DeletedByBot()
	if del[0].MessageID != kb.ID || del[1].MessageID != 77 {
		t.Fatalf("deleted %+v, want the keyboard %d and the post 77", del, kb.ID)
	}
}

// Issue 30, item 6: a group that becomes a supergroup is not greeted as a
// new group there (Telegram adds the bot to the supergroup anew: a left ->
// member update); its subscription is there. On the old code the
// supergroup got GroupGreeting ("An administrator can /start ...").
func TestMigratedSupergroupIsNotGreeted(t *testing.T) {
	h := newHarness(t)
	h.start()
	const old, sup, admin = -700705, -100705, 7
	h.tg.ChatMembers(map[int64]map[int64]string{old: {admin: "creator"}, sup: {admin: "creator"}})
	start := group(old, admin, "/start")
	start.Message.Chat.Type = models.ChatTypeGroup
	h.ask(old, 0, start)
	moved := group(old, admin, "")
	moved.Message.Chat.Type, moved.Message.MigrateToChatID = models.ChatTypeGroup, sup
	h.upd.Push(moved)
	from := group(sup, admin, "")
	from.Message.MigrateFromChatID = old
	h.upd.Push(from)
	waitFor(t, "the move", func() bool { return h.subscription(store.SubscriberKey(sup, 0)) != nil })
	added := memberUpdate(sup, models.ChatTypeSupergroup, models.ChatMemberTypeMember)
	added.MyChatMember.OldChatMember = models.ChatMember{Type: models.ChatMemberTypeLeft, Left: &models.ChatMemberLeft{User: &models.User{ID: 1000, IsBot: true}}}
	h.silent(sup, 0, added)
}
