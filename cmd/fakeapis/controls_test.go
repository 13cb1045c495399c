package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// tryout is fakeapis' Telegram and page with the real bot on them and
// FerretDB: what a newcomer runs with make run.
type tryout struct {
	t   *testing.T
	tg  *fakes.Telegram
	url string
	st  *store.Store
}

func newTryout(t *testing.T) *tryout {
	tg := fakes.NewTelegram(token)
	t.Cleanup(tg.Close)
	updates := fakes.NewUpdates(tg, 1)
	srv := httptest.NewServer(telegramMux(tg, updates))
	t.Cleanup(srv.Close)
	page := fakes.NewStatuspage()
	t.Cleanup(page.Close)
	psrv := httptest.NewServer(pageMux(page))
	t.Cleanup(psrv.Close)
	st := testenv.Store(t)
	cfg := &config.Config{TelegramBotToken: token, TelegramAPIURL: srv.URL, StatuspageURL: psrv.URL, StatuspageProvider: "statuspage",
		PollInterval: time.Minute, HTTPTimeout: 5 * time.Second, BotReplyRate: 4}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bot.Run(ctx, cfg, st, nil, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the bot did not stop")
		}
	})
	return &tryout{t: t, tg: tg, url: srv.URL, st: st}
}

// do calls a control and fails unless it answers 200.
func (x *tryout) do(path string) string {
	x.t.Helper()
	resp := post(x.t, x.url+path)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		x.t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
	}
	return string(b)
}

// reply waits for a message in chat whose text contains want.
func (x *tryout) reply(chat int64, want string) fakes.Message {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range x.tg.MessagesTo(chat, 0) {
			if strings.Contains(m.Text, want) {
				return m
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	x.t.Fatalf("no message in chat %d with %q; got %+v", chat, want, x.tg.MessagesTo(chat, 0))
	return fakes.Message{}
}

func (x *tryout) waitFor(what string, cond func() bool) {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (x *tryout) subscribed(key string) bool {
	_, err := x.st.Subscription(context.Background(), key)
	if err != nil && !errors.Is(err, store.ErrNotSubscribed) {
		x.t.Fatal(err)
	}
	return err == nil
}

// Each control of the README's "No Telegram or status page within reach"
// through the real bot: the first user of a group is its creator, a
// second a plain member (refused) until made an admin, a tap by button
// text, a channel's post, the bot added (the greeting) and removed (the
// subscription stopped), a group's move to a supergroup (the
// subscription follows). On the old fakeapis none of these existed but
// the first, and every user of a group was its creator.
func TestControlsThroughTheBot(t *testing.T) {
	x := newTryout(t)
	const grp = -100500
	x.do("/control/user?chat=-100500&user=5&text=/start")
	x.reply(grp, "Subscribed")
	x.do("/control/user?chat=-100500&user=6&text=/settings")
	x.reply(grp, "Only group administrators")
	x.do("/control/member?chat=-100500&user=6&status=administrator")
	x.do("/control/user?chat=-100500&user=6&text=/settings")
	kb := x.reply(grp, "<b>Settings</b>")
	tap := x.do("/control/tap?chat=-100500&user=6&button=Severity")
	if !strings.Contains(tap, `"query_id"`) {
		t.Fatalf("tap: %s", tap)
	}
	x.waitFor("the tap's answer and redraw", func() bool {
		m, _ := x.tg.Message(grp, kb.ID)
		return len(x.tg.Answers()) == 1 && strings.Contains(m.ReplyMarkup, "Everything")
	})
	if resp := post(t, x.url+"/control/tap?chat=-100500&button=No%20such%20button"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a tap on no button answered %d", resp.StatusCode)
	}

	const news = -100777
	x.do("/control/channel?chat=-100777&username=ournews&text=/start")
	x.reply(news, "Subscribed")
	if !x.subscribed(store.SubscriberKey(news, 0)) {
		t.Error("the channel is not subscribed")
	}

	x.do("/control/bot?chat=-100888&status=member")
	x.reply(-100888, "Hello!")
	x.do("/control/bot?chat=-100500&status=left")
	x.waitFor("the group's subscription stopped", func() bool { return !x.subscribed(store.SubscriberKey(grp, 0)) })

	x.do("/control/user?chat=-4242&type=group&text=/start")
	x.reply(-4242, "Subscribed")
	x.do("/control/migrate?chat=-4242&to=-1004242")
	x.waitFor("the subscription moved to the supergroup", func() bool {
		return x.subscribed(store.SubscriberKey(-1004242, 0)) && !x.subscribed(store.SubscriberKey(-4242, 0))
	})
	x.do("/control/user?chat=-1004242&text=/info")
	x.reply(-1004242, "")

	// A private chat's ID is its user's.
	if resp := post(t, x.url+"/control/user?chat=42&user=1000&text=/start"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a private chat written by another user answered %d", resp.StatusCode)
	}
	x.do("/control/user?chat=42&text=/start")
	x.reply(42, "Subscribed")
}
