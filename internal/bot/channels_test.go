package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
)

const (
	newsID    = -1001234567890
	newsAdmin = 5
	newsUser  = 6
)

// newsChannel is a public channel @ournews the bot administers, with one
// admin, subscribed.
func newsChannel(t *testing.T, h *harness) {
	t.Helper()
	h.tg.AddChat(fakes.Chat{ID: newsID, Type: "channel", Title: "OpenAI news", Username: "ournews", BotIn: true,
		Members: map[int64]string{newsAdmin: "administrator", newsUser: "member"}})
	if _, err := h.st.Subscribe(context.Background(), newsID, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// newsPost is a post in @ournews.
func newsPost(id int, text string) models.Update {
	u := channelPost(newsID, text)
	u.ChannelPost.ID = id
	u.ChannelPost.Chat.Username = "ournews"
	u.ChannelPost.SenderChat = &u.ChannelPost.Chat
	return u
}

// refusingChats is @ournews and the chats /settings @name refuses: a
// channel without the bot (@otherchan), a hidden one, a group
// (@ourgroup) and a channel not subscribed (@quietnews).
func refusingChats(t *testing.T, h *harness) {
	t.Helper()
	newsChannel(t, h)
	h.tg.AddChat(fakes.Chat{ID: -1002000000001, Type: "channel", Title: "Elsewhere", Username: "otherchan",
		Members: map[int64]string{newsAdmin: "creator"}})
	h.tg.AddChat(fakes.Chat{ID: -1002000000002, Type: "channel", Title: "Hidden", Members: map[int64]string{newsAdmin: "creator"}})
	h.tg.AddChat(fakes.Chat{ID: -1002000000003, Type: "supergroup", Title: "Chat", Username: "ourgroup", BotIn: true,
		Members: map[int64]string{newsAdmin: "creator"}})
	h.tg.AddChat(fakes.Chat{ID: -1002000000004, Type: "channel", Title: "Quiet", Username: "quietnews", BotIn: true,
		Members: map[int64]string{newsAdmin: "creator"}})
}

// A channel's admin changes its settings from a private chat with the
// bot: the keyboard, the taps and the answers stay in the private chat,
// the channel's subscription changes, and the channel gets nothing.
func TestChannelConfiguredFromPrivateChat(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	newsChannel(t, h)
	h.start()

	kb := h.openSettings(private(newsAdmin, "/settings @ournews"), newsAdmin)
	if !strings.HasPrefix(kb.Text, "<b>Settings of @ournews</b>\n") || !strings.Contains(kb.Text, "typed too: /settings @ournews &lt;name&gt;") {
		t.Fatalf("the keyboard does not say which chat it changes: %q", kb.Text)
	}
	a, m := h.tap(kb, models.ChatTypePrivate, newsAdmin, button(t, kb, "Severity").CallbackData)
	if !strings.HasPrefix(m.Text, "<b>Minimum severity</b>") {
		t.Fatalf("Severity: %+v %q", a, m.Text)
	}
	a, m = h.tap(m, models.ChatTypePrivate, newsAdmin, button(t, m, "Outages only").CallbackData)
	if a.Text != commands.AnsSaved {
		t.Fatalf("answer %+v", a)
	}
	if s := h.subscription("-1001234567890").Settings; s.MinSeverity != store.SeverityOutage {
		t.Fatalf("the channel's severity is %q", s.MinSeverity)
	}
	if s := h.subscription("5"); s != nil {
		t.Fatalf("the private chat got a subscription: %+v", s)
	}
	_, m = h.tap(m, models.ChatTypePrivate, newsAdmin, button(t, m, "Back").CallbackData)
	if !strings.HasPrefix(m.Text, "<b>Settings of @ournews</b>\n") || !strings.Contains(m.Text, "outages and major incidents only") {
		t.Fatalf("back on the first screen: %q", m.Text)
	}
	_, m = h.tap(m, models.ChatTypePrivate, newsAdmin, button(t, m, "Done").CallbackData)
	if !strings.Contains(m.Text, "Change them with /settings @ournews.") {
		t.Fatalf("Done: %q", m.Text)
	}

	// Typed, by the channel's ID too.
	if got := h.ask(newsAdmin, 0, private(newsAdmin, "/settings -1001234567890 quiet 22:00-07:00")); !strings.HasPrefix(got, "Saved: quiet hours 22:00–07:00.") {
		t.Fatalf("typed: %q", got)
	}
	if s := h.subscription("-1001234567890").Settings; s.QuietStart != "22:00" {
		t.Fatalf("quiet hours %+v", s)
	}
	info := h.ask(newsAdmin, 0, private(newsAdmin, "/info @ournews"))
	for _, want := range []string{"<b>@ournews</b>", "<b>Chat ID:</b> <code>-1001234567890</code>", "outages and major incidents only", "22:00–07:00"} {
		if !strings.Contains(info, want) {
			t.Errorf("/info @ournews lacks %q:\n%s", want, info)
		}
	}

	if got := h.tg.MessagesTo(newsID, 0); len(got) != 0 {
		t.Fatalf("the channel got %d messages: %+v", len(got), got)
	}
	for _, e := range h.tg.Edits() {
		if e.ChatID != newsAdmin {
			t.Fatalf("an edit went to chat %d", e.ChatID)
		}
	}
	if d := h.tg.DeletedByBot(); len(d) != 0 {
		t.Fatalf("deleted %+v", d)
	}

	// Rights are checked on every tap: a demoted admin's old keyboard
	// changes nothing.
	kb = h.openSettings(private(newsAdmin, "/settings @ournews"), newsAdmin)
	h.tg.SetMember(newsID, newsAdmin, "member")
	a, _ = h.tap(kb, models.ChatTypePrivate, newsAdmin, button(t, kb, "Severity").CallbackData)
	if a.Text != commands.AnsNotAdmin || !a.ShowAlert {
		t.Fatalf("a demoted admin's tap: %+v", a)
	}
}

// What goes wrong when naming a channel in a private chat is said
// plainly: no such channel, the bot not in it, not its admin, a group,
// not subscribed, a test notice that would reach the readers.
func TestChannelConfigurationRefusals(t *testing.T) {
	h := newHarness(t)
	refusingChats(t, h)
	h.start()
	expectRefusals(t, h, "", []refusal{
		{newsAdmin, "/settings @nosuchchannel", "I cannot see @nosuchchannel. Check the name;"},
		{newsAdmin, "/settings @otherchan", "I am not in @otherchan. Add me to the channel as an administrator"},
		{newsAdmin, "/settings -1002000000002", "I cannot see -1002000000002."},
		{newsUser, "/settings @ournews", "Only administrators of @ournews can see or change its settings from here."},
		{newsUser, "/info @ournews", "Only administrators of @ournews can see or change its settings from here."},
		{newsAdmin, "/settings @ourgroup", "@ourgroup is not a channel."},
		{newsAdmin, "/settings @quietnews", "@quietnews is not subscribed. Post /start in the channel"},
		{newsAdmin, "/info @quietnews", "@quietnews is not subscribed."},
		{newsAdmin, "/settings @ournews test", "A test notice would reach every reader of @ournews"},
	})
	if got := h.tg.MessagesTo(newsID, 0); len(got) != 0 {
		t.Fatalf("the channel got %+v", got)
	}
}

// In a channel, /start, /info and /settings and the bot's replies are
// removed after a while, and the replies say how to configure the
// channel from a private chat; other commands' replies stay.
func TestChannelCommandsCleanedUp(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.tg.AddChat(fakes.Chat{ID: newsID, Type: "channel", Title: "OpenAI news", Username: "ournews", BotIn: true})
	h.tn.channelCleanup, h.tn.keyboardCleanup, h.tn.sweepEvery = 400*time.Millisecond, 800*time.Millisecond, 20*time.Millisecond
	h.start()
	start := h.exchange(newsID, 0, newsPost(41, "/start"))
	info := h.exchange(newsID, 0, newsPost(42, "/info"))
	status := h.exchange(newsID, 0, newsPost(43, "/status"))
	kb := h.exchange(newsID, 0, newsPost(44, "/settings"))
	if len(start) != 1 || len(info) != 1 || len(status) != 1 || len(kb) != 1 {
		t.Fatalf("replies: %d %d %d %d", len(start), len(info), len(status), len(kb))
	}
	for _, m := range []fakes.Message{start[0], info[0], kb[0]} {
		if !strings.Contains(m.Text, "To change the channel's settings without posting here, send me /settings @ournews in a private chat.") ||
			!strings.Contains(m.Text, "I remove this post and the command in") {
			t.Errorf("no clean-up note in %q", m.Text)
		}
		checkHTML(t, m.Text)
	}
	if strings.Contains(status[0].Text, "I remove") {
		t.Errorf("/status is for the readers; it says %q", status[0].Text)
	}
	deleted := func(id int) bool { return h.deleted(newsID, id) }
	waitFor(t, "the clean-up of /start and /info", func() bool {
		return deleted(41) && deleted(start[0].ID) && deleted(42) && deleted(info[0].ID)
	})
	waitFor(t, "the clean-up of the keyboard", func() bool { return deleted(44) && deleted(kb[0].ID) })
	if deleted(43) || deleted(status[0].ID) {
		t.Fatal("/status or its reply was deleted")
	}
	// None before its time: a command and its reply a while after the
	// reply, a keyboard later.
	for _, d := range h.tg.DeletedByBot() {
		for _, c := range []struct {
			post  int
			reply fakes.Message
			after time.Duration
		}{{41, start[0], h.tn.channelCleanup}, {42, info[0], h.tn.channelCleanup}, {44, kb[0], h.tn.keyboardCleanup}} {
			if d.MessageID == c.reply.ID || d.MessageID == c.post {
				if early := d.At.Sub(c.reply.At); early < c.after {
					t.Errorf("message %d deleted %v after the reply, before its %v", d.MessageID, early, c.after)
				}
			}
		}
	}
	waitFor(t, "no deletion left pending", func() bool {
		n, err := h.st.DueDeletions(context.Background(), time.Now().Add(time.Hour), 10)
		return err == nil && len(n) == 0
	})
}

// Pending deletions are in MongoDB: a bot stopped before they are due
// deletes the posts once it runs again.
func TestChannelCleanupSurvivesRestart(t *testing.T) {
	h := newHarness(t)
	h.tg.AddChat(fakes.Chat{ID: newsID, Type: "channel", Title: "OpenAI news", Username: "ournews", BotIn: true})
	h.tn.channelCleanup, h.tn.sweepEvery = 1500*time.Millisecond, 20*time.Millisecond
	h.start()
	got := h.exchange(newsID, 0, newsPost(41, "/start"))
	if len(got) != 1 {
		t.Fatalf("replies %+v", got)
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if d := h.tg.DeletedByBot(); len(d) != 0 {
		t.Fatalf("deleted while stopped: %+v", d)
	}
	h.start()
	waitFor(t, "the clean-up after the restart", func() bool { return len(h.tg.DeletedByBot()) == 2 })
	d := h.tg.DeletedByBot()
	ids := map[int]bool{d[0].MessageID: true, d[1].MessageID: true}
	if !ids[41] || !ids[got[0].ID] {
		t.Fatalf("deleted %+v, want the post 41 and the reply %d", d, got[0].ID)
	}
}

// "/settings channels" lists the channels the user changed from the
// private chat; a button opens the channel's keyboard in place, with
// the rights checked again.
func TestChannelsListedInPrivateChat(t *testing.T) {
	h := newHarness(t)
	newsChannel(t, h)
	h.start()
	if got := h.ask(newsAdmin, 0, private(newsAdmin, "/settings channels")); !strings.HasPrefix(got, "You have not changed a channel's settings from here yet.") {
		t.Fatalf("no channels yet: %q", got)
	}
	h.openSettings(private(newsAdmin, "/settings @ournews"), newsAdmin)
	list := h.openSettings(private(newsAdmin, "/settings channels"), newsAdmin)
	if !strings.HasPrefix(list.Text, "<b>Your channels</b>") {
		t.Fatalf("list: %q", list.Text)
	}
	a, m := h.tap(list, models.ChatTypePrivate, newsAdmin, button(t, list, "⚙️ @ournews").CallbackData)
	if a.Text != "" || !strings.HasPrefix(m.Text, "<b>Settings of @ournews</b>") {
		t.Fatalf("tap on the list: %+v %q", a, m.Text)
	}
	if got := h.ask(newsUser, 0, private(newsUser, "/settings channels")); !strings.HasPrefix(got, "You have not changed") {
		t.Fatalf("another user's list: %q", got)
	}
	h.tg.SetMember(newsID, newsAdmin, "member")
	list = h.openSettings(private(newsAdmin, "/settings channels"), newsAdmin)
	if a, _ := h.tap(list, models.ChatTypePrivate, newsAdmin, button(t, list, "⚙️ @ournews").CallbackData); a.Text != commands.AnsNotAdmin {
		t.Fatalf("a demoted admin's tap on the list: %+v", a)
	}
}

// A channel flooding the bot: the note, and the dropped post, are removed
// as its configuration posts are (on the old code the note stayed for
// every reader).
func TestChannelFloodNoteCleanedUp(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.tg.AddChat(fakes.Chat{ID: newsID, Type: "channel", Title: "OpenAI news", Username: "ournews", BotIn: true})
	h.tn.channelCleanup, h.tn.sweepEvery = 400*time.Millisecond, 20*time.Millisecond
	h.tn.flood = dispatch.Rule{Burst: 2, Refill: time.Hour, MaxLoad: 2, NoteEvery: time.Hour}
	h.start()
	h.exchange(newsID, 0, newsPost(51, "/start"))
	deleted := func(id int) bool { return h.deleted(newsID, id) }
	// The burst of two is spent (/start and the /help after it): the
	// test is the flood's first drop.
	h.upd.Push(newsPost(52, "/settings test"))
	var note fakes.Message
	waitFor(t, "the flood note", func() bool {
		for _, m := range h.tg.MessagesTo(newsID, 0) {
			if strings.HasPrefix(m.Text, commands.ReplyFlood) {
				note = m
				return true
			}
		}
		return false
	})
	waitFor(t, "the flood note's clean-up", func() bool { return deleted(52) && deleted(note.ID) })
}

// /settings test posted in a channel: the test notice, like the command's
// other replies, is removed with the command (on the old code it was
// posted, not sent as a reply, and stayed for every reader).
func TestChannelTestNoticeCleanedUp(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.tg.AddChat(fakes.Chat{ID: newsID, Type: "channel", Title: "OpenAI news", Username: "ournews", BotIn: true})
	h.tn.channelCleanup, h.tn.sweepEvery = 400*time.Millisecond, 20*time.Millisecond
	h.start()
	h.exchange(newsID, 0, newsPost(51, "/start"))
	deleted := func(id int) bool { return h.deleted(newsID, id) }
	got := h.exchange(newsID, 0, newsPost(53, "/settings test"))
	var test fakes.Message
	for _, m := range got {
		if strings.Contains(m.Text, "Test notice from /settings test") {
			test = m
		}
	}
	if test.ID == 0 {
		t.Fatalf("no test notice: %+v", got)
	}
	if !strings.Contains(test.Text, "I remove this post and the command in") {
		t.Errorf("the test notice does not say it goes: %q", test.Text)
	}
	waitFor(t, "the test notice's clean-up", func() bool { return deleted(53) && deleted(test.ID) })
}

// deleted reports whether the bot deleted message id in chat.
func (h *harness) deleted(chat int64, id int) bool {
	for _, d := range h.tg.DeletedByBot() {
		if d.ChatID == chat && d.MessageID == id {
			return true
		}
	}
	return false
}

// refusal is what a command sent from a private chat must be answered with
// (the start of the reply).
type refusal struct {
	from int64
	cmd  string
	want string
}

// expectRefusals sends each command from its private chat, in the
// language code (none: the update carries none) and checks each reply.
func expectRefusals(t *testing.T, h *harness, code string, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		u := private(c.from, c.cmd)
		if code != "" {
			u = speaking(c.from, code, c.cmd)
		}
		if got := h.ask(c.from, 0, u); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: got %q, want %q…", c.cmd, got, c.want)
		}
	}
}
