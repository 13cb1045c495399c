package bot

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/health"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

const (
	testToken  = "123456:AAH-secret_TOKEN-value"
	testSecret = "AAH-secret_TOKEN-value"
	botName    = "openai_status_test_bot" // the fake's getMe username
)

// harness runs the bot against the fake Telegram server, a fake status
// page and FerretDB.
type harness struct {
	t    testing.TB
	tg   *fakes.Telegram
	upd  *fakes.Updates
	sp   *fakes.Statuspage
	st   *store.Store
	cfg  *config.Config
	hs   *health.Server
	logs *testenv.LogBuffer
	tn   tuning

	cancel context.CancelFunc
	done   chan error
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	tg := fakes.NewTelegram(testToken)
	t.Cleanup(tg.Close)
	sp := fakes.NewStatuspage()
	t.Cleanup(sp.Close)
	h := &harness{
		t:   t,
		tg:  tg,
		upd: fakes.NewUpdates(tg, 5000),
		sp:  sp,
		st:  testenv.Store(t),
		cfg: &config.Config{
			TelegramBotToken:   testToken,
			TelegramAPIURL:     tg.URL(),
			StatuspageURL:      sp.URL(),
			StatuspageProvider: "statuspage",
			PollInterval:       time.Minute,
			HTTPTimeout:        5 * time.Second,
		},
		logs: &testenv.LogBuffer{},
	}
	h.tn = defaultTuning(h.cfg)
	h.tn.pollTimeout = time.Second
	h.tn.shutdownTimeout = 10 * time.Second
	h.tn.retryMin = 10 * time.Millisecond
	h.tn.retryMax = 50 * time.Millisecond
	// Tests talk fast: only the load bound, not the refill rate, limits a
	// sender unless a test sets the real rule (defaultFlood).
	h.tn.flood.Refill = time.Millisecond
	h.tn.taps.Refill = time.Millisecond
	// Taps' answers carry their outcome however loaded the machine (tests
	// read them); TestTapsAtHumanSpeed keeps the bot's own bound.
	h.tn.tapAnswerWithin = 10 * time.Second
	h.tn.groupPace = paceRule{} // likewise: group tests set groupPace
	t.Cleanup(func() {
		h.stop()
		if strings.Contains(h.logs.String(), testSecret) {
			t.Errorf("the token appears in the logs:\n%s", h.logs.String())
		}
	})
	return h
}

// start runs the bot and waits until it is ready.
func (h *harness) start() {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	h.hs = health.New("127.0.0.1:0")
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	go func() { h.done <- run(ctx, h.cfg, h.st, h.hs, log, h.tn) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rep, _ := h.hs.Evaluate(context.Background())
		if rep.Ready {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("bot not ready; logs:\n%s", h.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop cancels the bot and returns Run's result.
func (h *harness) stop() error {
	if h.cancel == nil {
		return nil
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		return err
	case <-time.After(30 * time.Second):
		h.t.Fatal("Run did not return after cancel")
		return nil
	}
}

func waitFor(t testing.TB, what string, cond func() bool) { t.Helper(); bottest.WaitFor(t, what, cond) }

// exchange sends an update and returns the replies to (chat, thread) that
// it produced. It sends /help afterwards in the same chat and waits for
// that answer: the chat's updates are handled in order, so everything
// before the help text is this update's reply.
func (h *harness) exchange(chatID int64, thread int, u models.Update) []fakes.Message {
	h.t.Helper()
	before := len(h.tg.MessagesTo(chatID, thread))
	want := 1
	for _, m := range []*models.Message{u.Message, u.ChannelPost} {
		if c, ok := commands.ParseCommand(textOf(m)); ok && c.Name == "help" {
			want = 2
		}
	}
	h.upd.Push(u)
	h.upd.Push(helpUpdate(u))
	var got []fakes.Message
	waitFor(h.t, "replies", func() bool {
		got = h.tg.MessagesTo(chatID, thread)[before:]
		n := 0
		for _, m := range got {
			if isHelp(m.Text) {
				n++
			}
		}
		return n >= want && isHelp(got[len(got)-1].Text)
	})
	return got[:len(got)-1]
}

// isHelp: the /help text in any language (with the pages on offer named
// after it when there are several).
func isHelp(s string) bool {
	for _, l := range i18n.Languages {
		if strings.HasPrefix(s, commands.HelpTextIn(i18n.Of(l.Tag))) {
			return true
		}
	}
	return false
}

func textOf(m *models.Message) string {
	if m == nil {
		return ""
	}
	return m.Text
}

// ask sends a command and expects exactly one reply.
func (h *harness) ask(chatID int64, thread int, u models.Update) string {
	h.t.Helper()
	got := h.exchange(chatID, thread, u)
	if len(got) != 1 {
		h.t.Fatalf("want one reply, got %d: %+v", len(got), got)
	}
	m := got[0]
	if m.ParseMode != "HTML" || !m.NoPreview {
		h.t.Fatalf("reply must be HTML with previews off: %+v", m)
	}
	checkHTML(h.t, m.Text)
	return m.Text
}

// silent asserts that the update produced no reply.
func (h *harness) silent(chatID int64, thread int, u models.Update) {
	h.t.Helper()
	if got := h.exchange(chatID, thread, u); len(got) != 0 {
		h.t.Fatalf("want no reply, got %+v", got)
	}
}

// helpUpdate is a /help in the same place as u (as the same sender).
func helpUpdate(u models.Update) models.Update {
	var m models.Message
	switch {
	case u.Message != nil:
		m = *u.Message
	case u.ChannelPost != nil:
		m = *u.ChannelPost
		m.Text = "/help@" + botName
		return models.Update{ChannelPost: &m}
	case u.MyChatMember != nil:
		m = models.Message{Chat: u.MyChatMember.Chat, From: &u.MyChatMember.From}
	}
	m.Text = "/help@" + botName
	m.MigrateToChatID, m.MigrateFromChatID = 0, 0
	m.IsAutomaticForward = false
	return models.Update{Message: &m}
}

// Update builders.

func private(chatID int64, text string) models.Update {
	return models.Update{Message: &models.Message{ID: 1, Date: 1700000000, Text: text,
		Chat: models.Chat{ID: chatID, Type: models.ChatTypePrivate},
		From: &models.User{ID: chatID, FirstName: "User"}}}
}

func group(chatID, userID int64, text string) models.Update {
	return models.Update{Message: &models.Message{ID: 1, Date: 1700000000, Text: text,
		Chat: models.Chat{ID: chatID, Type: models.ChatTypeSupergroup, Title: "Group"},
		From: &models.User{ID: userID, FirstName: "Member"}}}
}

func topicMsg(chatID, userID int64, thread int, text string) models.Update {
	u := group(chatID, userID, text)
	u.Message.Chat.IsForum = true
	u.Message.MessageThreadID = thread
	u.Message.IsTopicMessage = true
	return u
}

func channelPost(chatID int64, text string) models.Update {
	ch := models.Chat{ID: chatID, Type: models.ChatTypeChannel, Title: "News"}
	return models.Update{ChannelPost: &models.Message{ID: 1, Date: 1700000000, Text: text, Chat: ch, SenderChat: &ch}}
}

func memberUpdate(chatID int64, chatType models.ChatType, status models.ChatMemberType) models.Update {
	bot := &models.User{ID: 1000, IsBot: true, FirstName: "Status", Username: botName}
	old := models.ChatMember{Type: models.ChatMemberTypeMember, Member: &models.ChatMemberMember{User: bot}}
	nw := models.ChatMember{Type: status}
	switch status {
	case models.ChatMemberTypeLeft:
		nw.Left = &models.ChatMemberLeft{User: bot}
	case models.ChatMemberTypeBanned:
		nw.Banned = &models.ChatMemberBanned{User: bot}
	case models.ChatMemberTypeMember:
		nw.Member = &models.ChatMemberMember{User: bot}
	case models.ChatMemberTypeAdministrator:
		nw.Administrator = &models.ChatMemberAdministrator{User: *bot}
	}
	return models.Update{MyChatMember: &models.ChatMemberUpdated{
		Chat: models.Chat{ID: chatID, Type: chatType}, From: models.User{ID: 1, FirstName: "Admin"},
		Date: 1700000000, OldChatMember: old, NewChatMember: nw}}
}

// snapshot stores p as the poll workflow's latest snapshot, fetched now.
func (h *harness) snapshot(p *statuspage.Page) {
	h.t.Helper()
	if err := h.st.SaveSnapshot(context.Background(), p, time.Now()); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) subscription(key string) *store.Subscriber {
	h.t.Helper()
	sub, err := h.st.Subscription(context.Background(), key)
	if err != nil {
		return nil
	}
	return sub
}

// checkHTML fails unless s is well-formed Telegram HTML of the tags the
// bot uses, within the message limit.
func checkHTML(t testing.TB, s string) { t.Helper(); bottest.CheckHTML(t, s) }

// testPage is bottest.Page.
func testPage(url string) *statuspage.Page { return bottest.Page(url) }

func esc(s string) string { return message.Escape(s) }

func fmtTime(t time.Time) string { return notice.FormatTime(t, time.UTC) }
