package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/notice"
)

func TestStartup(t *testing.T) {
	h := newHarness(t)
	h.start()
	for _, m := range []string{"deleteWebhook", "getMe"} {
		if n := h.tg.Calls(m); n != 1 {
			t.Errorf("%s called %d times, want 1", m, n)
		}
	}
	if n, want := h.tg.Calls("setMyCommands"), len(commands.MenuScopes)*len(commands.MenuLanguages()); n != want {
		t.Errorf("setMyCommands called %d times, want one per scope and language (%d)", n, want)
	}
	if n := h.tg.Calls("getWebhookInfo"); n != 0 {
		t.Errorf("getWebhookInfo called %d times after a clear deleteWebhook answer", n)
	}
	waitFor(t, "a getUpdates call", func() bool { return len(h.upd.Calls()) > 0 })
	c := h.upd.Calls()[0]
	if !slices.Equal(c.AllowedUpdates, []string{"message", "channel_post", "my_chat_member", "callback_query"}) {
		t.Errorf("allowed_updates = %v", c.AllowedUpdates)
	}
	if c.Offset != 1 || c.Timeout != 1 {
		t.Errorf("first getUpdates offset %d timeout %d, want 1 and 1", c.Offset, c.Timeout)
	}
	rep, ok := h.hs.Evaluate(context.Background())
	if !ok || rep.Checks["mongodb"] != "ok" || rep.Checks["telegram_long_poll"] != "ok" {
		t.Fatalf("health = %+v", rep)
	}
	if err := h.stop(); err != nil {
		t.Fatalf("Run returned %v after cancel", err)
	}
}

func TestStartupRetriesGetMe(t *testing.T) {
	h := newHarness(t)
	fails := 2
	h.tg.Handle("getMe", func(fakes.Params) (any, *fakes.APIError) {
		if fails > 0 {
			fails--
			return nil, fakes.ErrInternal
		}
		return map[string]any{"id": 1000, "is_bot": true, "first_name": "Status", "username": botName}, nil
	})
	h.start()
	if n := h.tg.Calls("getMe"); n != 3 {
		t.Fatalf("getMe called %d times, want 3", n)
	}
	// The username learnt is used for /cmd@bot.
	if got := h.ask(10, 0, private(10, "/STOP@OpenAI_Status_Test_Bot")); got != "This chat was not subscribed. Use /start to subscribe." {
		t.Fatalf("got %q", got)
	}
}

func TestStartupBadToken(t *testing.T) {
	h := newHarness(t)
	h.cfg.TelegramBotToken = "123456:WRONG-secret-value"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := run(ctx, h.cfg, h.st, nil, slog.New(slog.NewTextHandler(h.logs, nil)), h.tn)
	if err == nil || !strings.Contains(err.Error(), "nauthorized") || !strings.Contains(err.Error(), "Telegram rejected TELEGRAM_BOT_TOKEN") {
		t.Fatalf("want an Unauthorized start-up error naming TELEGRAM_BOT_TOKEN, got %v", err)
	}
	if strings.Contains(err.Error(), "WRONG-secret-value") || strings.Contains(h.logs.String(), "WRONG-secret-value") {
		t.Fatalf("token not redacted: %v\n%s", err, h.logs.String())
	}
}

// A TELEGRAM_API_URL that does not serve the Bot API (an HTML 404 page)
// ends start-up with an error naming the setting, instead of retrying
// forever; the URL's path and credentials are not shown.
func TestStartupWrongAPIURL(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<html><body>Not Found</body></html>")
	}))
	defer srv.Close()
	h.cfg.TelegramAPIURL = strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1) + "/some/path"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := run(ctx, h.cfg, h.st, nil, slog.New(slog.NewTextHandler(h.logs, nil)), h.tn)
	if err == nil || !strings.Contains(err.Error(), "TELEGRAM_API_URL ("+srv.URL+") does not serve the Bot API") {
		t.Fatalf("want a start-up error naming TELEGRAM_API_URL, got %v", err)
	}
	if strings.Contains(err.Error(), "pa55word") || strings.Contains(err.Error(), testSecret) {
		t.Fatalf("secret in %v", err)
	}
}

// Some servers answer deleteWebhook with an empty body: getWebhookInfo
// must confirm that no webhook is left.
func TestStartupDeleteWebhookEmptyBody(t *testing.T) {
	h := newHarness(t)
	target, _ := url.Parse(h.tg.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/deleteWebhook") {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusOK)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	h.cfg.TelegramAPIURL = srv.URL
	h.start()
	if n := h.tg.Calls("getWebhookInfo"); n != 1 {
		t.Fatalf("getWebhookInfo called %d times, want 1", n)
	}

	// And a webhook that stays set keeps start-up retrying (not ready).
	h2 := newHarness(t)
	h2.tg.Handle("deleteWebhook", func(fakes.Params) (any, *fakes.APIError) { return nil, nil })
	h2.tg.Handle("getWebhookInfo", func(fakes.Params) (any, *fakes.APIError) {
		return map[string]any{"url": "https://example.com/hook", "has_custom_certificate": false, "pending_update_count": 0}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, h2.cfg, h2.st, nil, slog.New(slog.NewTextHandler(h2.logs, nil)), h2.tn) }()
	waitFor(t, "deleteWebhook retries", func() bool { return h2.tg.Calls("deleteWebhook") >= 3 })
	if h2.tg.Calls("getMe") != 0 {
		t.Fatal("start-up went on with a webhook still set")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel during start-up: %v", err)
	}
}

// A transport error embeds the request URL, which holds the token: start-up
// errors (go-telegram/bot's) and getUpdates errors (ours) are redacted.
func TestTokenRedactedFromTransportErrors(t *testing.T) {
	h := newHarness(t)
	target, _ := url.Parse(h.tg.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	var broken atomic.Int32 // 1: break start-up calls, 2: break getUpdates
	broken.Store(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode := broken.Load()
		if mode == 1 && strings.HasSuffix(r.URL.Path, "/getMe") || mode == 2 && strings.HasSuffix(r.URL.Path, "/getUpdates") {
			if hj, ok := w.(http.Hijacker); ok {
				c, _, _ := hj.Hijack()
				_ = c.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	h.cfg.TelegramAPIURL = srv.URL
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.hs = nil
	done := make(chan error, 1)
	go func() { done <- run(ctx, h.cfg, h.st, nil, slog.New(slog.NewTextHandler(h.logs, nil)), h.tn) }()
	waitFor(t, "getMe retries", func() bool { return strings.Count(h.logs.String(), "step=getMe") >= 2 })
	broken.Store(2)
	waitFor(t, "a getUpdates error", func() bool { return strings.Contains(h.logs.String(), "getUpdates failed") })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(h.logs.String(), "bot<redacted>/getUpdates") {
		t.Fatalf("expected a redacted getUpdates URL in the logs:\n%s", h.logs.String())
	}
	// The cleanup checks that the secret never appears.
}

func TestPrivateCommands(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 42
	ask := func(text string) string { t.Helper(); return h.ask(chat, 0, private(chat, text)) }
	expect := func(text, want string) {
		t.Helper()
		if got := ask(text); got != want {
			t.Fatalf("%s:\n got %q\nwant %q", text, got, want)
		}
	}

	expect("/help", commands.HelpText())
	expect("/stop", "This chat was not subscribed. Use /start to subscribe.")
	expect("/subscribe incident", "This chat is not subscribed. Use /start first.")
	expect("/info", "<b>Chat ID:</b> <code>42</code>\n<b>Subscribed:</b> no. Use /start to subscribe.")
	expect("/start", commands.StartReply(true, nil, false, false, testPage(h.sp.URL())))
	sub := h.subscription("42")
	if sub == nil || !slices.Equal(sub.Kinds, event.DefaultKinds) || len(sub.Components) != 0 {
		t.Fatalf("subscription after /start: %+v", sub)
	}
	expect("/Start", commands.StartReply(false, nil, false, false, testPage(h.sp.URL())))

	// Types.
	expect("/subscribe incident maintenance", "Notice types set to: incident, maintenance.")
	if sub := h.subscription("42"); !slices.Equal(sub.Kinds, []event.Kind{event.KindIncident, event.KindMaintenance}) {
		t.Fatalf("kinds = %v", sub.Kinds)
	}
	expect("/subscribe component only", "Notice types set to: component.")
	expect("/subscribe ALL", "Notice types set to: incident, component, maintenance.")
	got := ask("/subscribe <b>bogus</b>")
	if !strings.HasPrefix(got, "Unknown notification type “&lt;b&gt;bogus&lt;/b&gt;”. Types are incident, component, maintenance or all.\n\n<b>Usage</b>") {
		t.Fatalf("bad type: %q", got)
	}

	// Component filter.
	expect("/subscribe component api", "Added <b>API</b> to the component filter.\nNotices now cover: API.")
	expect("/subscribe component sora1", "Added <b>Sora</b> to the component filter.\nNotices now cover: API, Sora.")
	expect("/subscribe component API", "<b>API</b> is already in the component filter.")
	expect("/subscribe component chatgpt", "Added <b>ChatGPT</b> to the component filter.\nNotices now cover: API, Sora, ChatGPT.")
	expect("/subscribe component emb", "Added <b>Embeddings</b> to the component filter.\nNotices now cover: API, Sora, ChatGPT, Embeddings.")
	expect("/subscribe component Chat", "“Chat” matches several components. Tap one, or type its name as shown:\n• ChatGPT\n• ChatGPT Enterprise")
	expect("/subscribe component Nothing<i>", "No component matches “Nothing&lt;i&gt;”. See /components for the list.")
	expect("/subscribe component remove", "Say which component to remove: /subscribe component remove &lt;name or ID&gt;.\n\n"+commands.SubscribeHelp())
	if sub := h.subscription("42"); !slices.Equal(sub.Components, []string{"api1", "sora1", "chat1", "emb1"}) {
		t.Fatalf("filter = %v", sub.Components)
	}
	expect("/info", "<b>Chat ID:</b> <code>42</code>\n<b>Subscribed:</b> yes, since "+fmtTime(h.subscription("42").CreatedAt)+
		"\n<b>Language:</b> English (/settings language changes it)"+
		"\n<b>Notice types:</b> incident, component, maintenance\n<b>Components:</b> API, Sora, ChatGPT, Embeddings"+
		"\n<b>Severity:</b> everything\n<b>Quiet hours:</b> off\n<b>Time zone:</b> UTC\n<b>Delivery:</b> incident cards\n"+screens.RingNewsLine+"\n<b>Maintenance reminders:</b> 60 minutes before")
	expect("/subscribe component remove Sora", "Removed <b>Sora</b> from the component filter.\nNotices now cover: API, ChatGPT, Embeddings.")
	expect("/subscribe component remove CHAT1", "Removed <b>ChatGPT</b> from the component filter.\nNotices now cover: API, Embeddings.")
	expect("/subscribe component remove sora", "“sora” is not in the component filter.\nThe filter holds: API, Embeddings.")
	got = ask("/subscribe")
	if !strings.HasPrefix(got, commands.SubscribeHelp()) || !strings.HasSuffix(got, "<b>Current settings</b>\nNotice types: incident, component, maintenance\nComponents: API, Embeddings") {
		t.Fatalf("/subscribe: %q", got)
	}
	expect("/subscribe component all", "Component filter cleared: notices cover every component.")
	if sub := h.subscription("42"); len(sub.Components) != 0 {
		t.Fatalf("filter after clear = %v", sub.Components)
	}

	// Status and lists, from the snapshot.
	expect("/status", "<b>OpenAI status:</b> Partially Degraded Service\n\n<b>Components not operational</b>\n• API: Degraded Performance\n• Sora: Major Outage")
	expect("/status sora", "<b>Sora:</b> Major Outage\nLast change: <tg-time unix=\"1772366400\" format=\"dt\">2026-03-01 12:00 UTC</tg-time>")
	expect("/status \"api\"", "<b>API:</b> Degraded Performance\nLast change: <tg-time unix=\"1772366400\" format=\"dt\">2026-03-01 12:00 UTC</tg-time>")
	expect("/status chatgpt", "<b>ChatGPT:</b> Operational\nLast change: <tg-time unix=\"1772366400\" format=\"dt\">2026-03-01 12:00 UTC</tg-time>")
	expect("/status <script>&", "No component matches “&lt;script&gt;&amp;”. See /components for the list.")
	expect("/status APIs", "No component matches “APIs”. See /components for the list.")
	expect("/components", "<b>Components</b>\n• API: Degraded Performance\n• Embeddings: Operational\n• ChatGPT: Operational\n• ChatGPT Enterprise: Operational\n• Sora: Major Outage\n\nFilter notices with /subscribe component &lt;name&gt;.")
	hist2 := "<b>Recent incidents</b>\n\n" +
		"<b>1. Elevated errors on API</b>\nImpact: Minor · Status: Investigating\nCreated: <tg-time unix=\"1772960520\" format=\"dt\">2026-03-08 09:02 UTC</tg-time>\n<a href=\"https://stspg.io/inc1\">Details</a>\n\n" +
		"<b>2. Sora &lt;outage&gt; &amp; more</b>\nImpact: Major · Status: Resolved\nCreated: <tg-time unix=\"1772874000\" format=\"dt\">2026-03-07 09:00 UTC</tg-time>\n<a href=\"" + h.sp.URL() + "/incidents/inc2\">Details</a>"
	expect("/history 2", hist2)
	for _, arg := range []string{"", " abc", " 0", " -3"} {
		if got := ask("/history" + arg); strings.Count(got, "Impact:") != 3 {
			t.Fatalf("/history%s: %q", arg, got)
		}
	}
	if got := ask("/history 99999999999999999999999"); strings.Count(got, "Impact:") != 3 {
		t.Fatalf("huge count: %q", got)
	}

	// Unknown and foreign commands.
	expect("/frobnicate", "Unknown command. Use /help.")
	h.silent(chat, 0, private(chat, "/start@OtherBot"))
	// Plain text in a private chat gets a pointer to the commands.
	expect("hello /start", commands.ReplyPlainText)
	expect("/", commands.ReplyPlainText)
	if got := ask("/STOP@" + strings.ToUpper(botName)); got != commands.StopReply(true, false, false) {
		t.Fatalf("stop: %q", got)
	}
	expect("/stop", "This chat was not subscribed. Use /start to subscribe.")
}

func TestLongArgumentsAreCut(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	long := strings.Repeat("<x>", 3000) // beyond Telegram's limit even
	got := h.ask(7, 0, private(7, "/status "+long))
	if screens.UTF16Len(got) > 400 || !strings.Contains(got, "&lt;x&gt;") || !strings.Contains(got, "…") {
		t.Fatalf("long argument echoed as %q", got)
	}
}

func TestUptimeCommand(t *testing.T) {
	h := newHarness(t)
	now := time.Now().UTC().Truncate(time.Minute)
	h.tn.now = func() time.Time { return now }
	p := testPage(h.sp.URL())
	// Sora has been down for 12 hours; the API degraded 90 minutes ago and
	// nothing before that was recorded.
	p.Components[5].UpdatedAt = now.Add(-12 * time.Hour)
	p.Components[1].UpdatedAt = now.Add(-90 * time.Minute)
	for i := range p.Components {
		if id := p.Components[i].ID; id != "sora1" && id != "api1" {
			p.Components[i].UpdatedAt = now.Add(-60 * 24 * time.Hour)
		}
	}
	h.snapshot(p)
	evs := []event.Event{
		{Key: "s1", Kind: event.KindComponent, ComponentID: "sora1", NewStatus: "major_outage", StatusSince: now.Add(-12 * time.Hour)},
		{Key: "e1", Kind: event.KindComponent, ComponentID: "emb1", NewStatus: "partial_outage", StatusSince: now.Add(-48 * time.Hour)},
		{Key: "e2", Kind: event.KindComponent, ComponentID: "emb1", NewStatus: "operational", StatusSince: now.Add(-36 * time.Hour)},
	}
	if err := h.st.CommitEvents(context.Background(), evs, nil, now); err != nil {
		t.Fatal(err)
	}
	h.start()
	got := h.ask(5, 0, private(5, "/uptime"))
	want := "<b>Uptime</b> (last 24 hours · 7 days · 30 days)\n" +
		"• API: 93.75% · 99.10% · 99.79%\n" +
		"• Embeddings: 100% · 92.85% · 98.33%\n" +
		"• ChatGPT: 100% · 100% · 100%\n" +
		"• ChatGPT Enterprise: 100% · 100% · 100%\n" +
		"• Sora: 50.00% · 92.85% · 98.33%\n\n" +
		"<i>Operational and under maintenance count as up; degraded performance and outages as down.</i>"
	if got != want {
		t.Fatalf("uptime:\n got %q\nwant %q", got, want)
	}
}

func TestLiveFetchWithoutFreshSnapshot(t *testing.T) {
	h := newHarness(t)
	// A snapshot older than two poll intervals is not used while the page
	// answers.
	old := testPage(h.sp.URL())
	if err := h.st.SaveSnapshot(context.Background(), old, time.Now().Add(-3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	h.start()
	got := h.ask(3, 0, private(3, "/status"))
	if got != "<b>OpenAI status:</b> All Systems Operational\nAll components are operational." {
		t.Fatalf("live status: %q", got)
	}
	if n := h.sp.Requests("/api/v2/summary.json"); n != 1 {
		t.Fatalf("summary fetched %d times", n)
	}
	// The live page is cached for a poll interval.
	h.ask(3, 0, private(3, "/components"))
	if n := h.sp.Requests("/api/v2/summary.json"); n != 1 {
		t.Fatalf("summary fetched %d times, want the cached page", n)
	}

	// A failing page falls back to the old snapshot, saying so.
	h2 := newHarness(t)
	staleAt := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
	if err := h2.st.SaveSnapshot(context.Background(), old, staleAt); err != nil {
		t.Fatal(err)
	}
	h2.sp.Fault("", fakes.ServerError)
	h2.start()
	got = h2.ask(3, 0, private(3, "/status sora"))
	if got != "<b>Sora:</b> Major Outage\nLast change: <tg-time unix=\"1772366400\" format=\"dt\">2026-03-01 12:00 UTC</tg-time>\n\n"+"<i>The status page could not be reached; this is the status as of "+notice.FormatTimeHTML(staleAt, time.UTC)+".</i>" {
		t.Fatalf("stale status: %q", got)
	}
	// No snapshot at all and no page: a clear answer.
	h3 := newHarness(t)
	h3.sp.Fault("", fakes.ServerError)
	h3.start()
	if got := h3.ask(3, 0, private(3, "/history")); got != commands.ReplyNoPage {
		t.Fatalf("no page: %q", got)
	}
}

// A hanging status page delays only the chat that asked.
func TestSlowPageDoesNotStallOthers(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	h.sp.Fault("summary", func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return false
	})
	h.start()
	h.upd.Push(private(1, "/status"))
	h.upd.Push(private(1, "/help"))
	waitFor(t, "the slow fetch", func() bool { return h.sp.Requests("/api/v2/summary.json") == 1 })
	// Other chats are answered meanwhile.
	for chat := int64(2); chat <= 4; chat++ {
		if got := h.ask(chat, 0, private(chat, "/help")); got != commands.HelpText() {
			t.Fatal(got)
		}
	}
	if n := len(h.tg.MessagesTo(1, 0)); n != 0 {
		t.Fatalf("chat 1 got %d replies before its /status finished", n)
	}
	close(release)
	waitFor(t, "chat 1's replies", func() bool { return len(h.tg.MessagesTo(1, 0)) == 2 })
	msgs := h.tg.MessagesTo(1, 0)
	if !strings.HasPrefix(msgs[0].Text, "<b>OpenAI status:</b>") || msgs[1].Text != commands.HelpText() {
		t.Fatalf("chat 1's replies out of order: %q, %q", msgs[0].Text, msgs[1].Text)
	}
}

func TestGroupAdminGating(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	const g = -1001
	h.tg.ChatMembers(map[int64]map[int64]string{g: {1: "creator", 2: "administrator", 3: "member", 4: "restricted"}})
	h.start()

	for _, user := range []int64{3, 4} {
		if got := h.ask(g, 0, group(g, user, "/start")); got != commands.ReplyNotAdmin {
			t.Fatalf("non-admin /start: %q", got)
		}
	}
	if h.subscription("-1001") != nil {
		t.Fatal("a non-admin subscribed the group")
	}
	if got := h.ask(g, 0, group(g, 2, "/start")); !strings.HasPrefix(got, "Subscribed this chat") {
		t.Fatalf("admin /start: %q", got)
	}
	for _, text := range []string{"/stop", "/subscribe incident", "/subscribe component api", "/subscribe component remove api", "/subscribe component all", "/subscribe nonsense-but-admin-check-first"} {
		got := h.ask(g, 0, group(g, 3, text))
		if text == "/subscribe nonsense-but-admin-check-first" {
			// A malformed argument is explained to anyone: it changes nothing.
			if !strings.HasPrefix(got, "Unknown notification type") {
				t.Fatalf("%s: %q", text, got)
			}
			continue
		}
		if got != commands.ReplyNotAdmin {
			t.Fatalf("non-admin %s: %q", text, got)
		}
	}
	if h.subscription("-1001") == nil {
		t.Fatal("a non-admin unsubscribed the group")
	}
	// Read-only commands are open to everyone.
	for _, text := range []string{"/status", "/components", "/history", "/uptime", "/info", "/subscribe"} {
		if got := h.ask(g, 0, group(g, 3, text)); got == commands.ReplyNotAdmin {
			t.Fatalf("%s refused to a member", text)
		}
	}
	if got := h.ask(g, 0, group(g, 1, "/subscribe maintenance")); got != "Notice types set to: maintenance." {
		t.Fatalf("creator: %q", got)
	}

	// An anonymous admin posts as the group itself.
	anon := group(g, 1087968824, "/stop")
	anon.Message.SenderChat = &models.Chat{ID: g, Type: models.ChatTypeSupergroup, Title: "Group"}
	if got := h.ask(g, 0, anon); got != commands.StopReply(true, false, false) {
		t.Fatalf("anonymous admin: %q", got)
	}
	// Someone posting as a channel is no admin of the group.
	asChannel := group(g, 136817688, "/start")
	asChannel.Message.SenderChat = &models.Chat{ID: -100999, Type: models.ChatTypeChannel, Title: "Other"}
	if got := h.ask(g, 0, asChannel); got != commands.ReplyNotAdmin {
		t.Fatalf("sender_chat of another chat: %q", got)
	}

	// Unknown commands stay quiet in groups unless addressed to us.
	h.silent(g, 0, group(g, 3, "/frobnicate"))
	h.silent(g, 0, group(g, 3, "/start@OtherBot"))
	if got := h.ask(g, 0, group(g, 3, "/frobnicate@"+botName)); got != commands.ReplyUnknown {
		t.Fatalf("addressed unknown command: %q", got)
	}

	// getChatMember failing: say so, change nothing.
	h.tg.Handle("getChatMember", func(fakes.Params) (any, *fakes.APIError) { return nil, fakes.ErrInternal })
	if got := h.ask(g, 0, group(g, 2, "/start")); got != commands.ReplyAdminError {
		t.Fatalf("admin check failure: %q", got)
	}
	if h.subscription("-1001") != nil {
		t.Fatal("subscribed without an admin check")
	}
}

func TestTopicsVersusReplies(t *testing.T) {
	h := newHarness(t)
	const forum, plain = -1002, -1003
	h.tg.ChatMembers(map[int64]map[int64]string{forum: {1: "administrator"}, plain: {1: "administrator"}})
	h.start()

	if got := h.ask(forum, 7, topicMsg(forum, 1, 7, "/start")); !strings.HasPrefix(got, "Subscribed this topic to OpenAI status notices") {
		t.Fatalf("topic /start: %q", got)
	}
	if sub := h.subscription("-1002:7"); sub == nil || sub.ThreadID != 7 {
		t.Fatalf("topic subscription: %+v", sub)
	}
	if h.subscription("-1002") != nil {
		t.Fatal("the forum itself got subscribed")
	}
	if got := h.ask(forum, 7, topicMsg(forum, 1, 7, "/info")); !strings.Contains(got, "<b>Topic ID:</b> <code>7</code>") {
		t.Fatalf("topic /info: %q", got)
	}

	// A reply in a normal group carries message_thread_id but is no topic.
	reply := group(plain, 1, "/start")
	reply.Message.MessageThreadID = 55
	reply.Message.ReplyToMessage = &models.Message{ID: 55, Date: 1700000000, Chat: reply.Message.Chat, Text: "earlier"}
	if got := h.ask(plain, 0, reply); !strings.HasPrefix(got, "Subscribed this chat") {
		t.Fatalf("reply /start: %q", got)
	}
	if h.subscription("-1003") == nil || h.subscription("-1003:55") != nil {
		t.Fatal("a reply must subscribe the group, not a topic")
	}
	if n := len(h.tg.MessagesTo(plain, 55)); n != 0 {
		t.Fatalf("%d replies sent to a bogus thread", n)
	}
}

func TestChannelPosts(t *testing.T) {
	h := newHarness(t)
	h.start()
	const ch = -1004
	if got := h.ask(ch, 0, channelPost(ch, "/start")); !strings.HasPrefix(got, "Subscribed this channel to OpenAI status notices") {
		t.Fatalf("channel /start: %q", got)
	}
	if h.subscription("-1004") == nil {
		t.Fatal("channel not subscribed")
	}
	if got := h.ask(ch, 0, channelPost(ch, "/subscribe@"+botName+" incident")); !strings.HasPrefix(got, "Notice types set to: incident.\n\n<i>I remove this post") {
		t.Fatalf("channel /subscribe: %q", got)
	}
	h.silent(ch, 0, channelPost(ch, "/unknown"))
	if h.tg.Calls("getChatMember") != 0 {
		t.Fatal("no admin check is needed in a channel")
	}
}

func TestMyChatMemberRemoval(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	now := time.Now()
	for _, s := range []struct {
		chat   int64
		thread int
	}{{-2001, 0}, {-2001, 5}, {-2002, 0}, {77, 0}, {-2003, 0}} {
		if _, err := h.st.Subscribe(ctx, s.chat, s.thread, now); err != nil {
			t.Fatal(err)
		}
	}
	h.start()
	h.exchange(-2001, 0, memberUpdate(-2001, models.ChatTypeSupergroup, models.ChatMemberTypeBanned))
	h.exchange(-2002, 0, memberUpdate(-2002, models.ChatTypeGroup, models.ChatMemberTypeLeft))
	h.exchange(77, 0, memberUpdate(77, models.ChatTypePrivate, models.ChatMemberTypeBanned)) // blocked
	h.exchange(-2003, 0, memberUpdate(-2003, models.ChatTypeSupergroup, models.ChatMemberTypeAdministrator))
	for _, key := range []string{"-2001", "-2001:5", "-2002", "77"} {
		if h.subscription(key) != nil {
			t.Errorf("%s still subscribed after the bot was removed", key)
		}
	}
	if h.subscription("-2003") == nil {
		t.Error("promotion must keep the subscription")
	}
}

func TestGroupMigration(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.st.Subscribe(ctx, -3001, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := h.st.SetKinds(ctx, "-3001", []event.Kind{event.KindIncident}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.Subscribe(ctx, -3002, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.start()
	// The old group's service message.
	mig := group(-3001, 1, "")
	mig.Message.Chat.Type = models.ChatTypeGroup
	mig.Message.MigrateToChatID = -1003001
	h.exchange(-3001, 0, mig)
	if h.subscription("-3001") != nil {
		t.Fatal("old group still subscribed")
	}
	if sub := h.subscription("-1003001"); sub == nil || !slices.Equal(sub.Kinds, []event.Kind{event.KindIncident}) {
		t.Fatalf("migrated subscription: %+v", sub)
	}
	// The new supergroup's service message.
	from := group(-1003002, 1, "")
	from.Message.MigrateFromChatID = -3002
	h.exchange(-1003002, 0, from)
	if h.subscription("-3002") != nil || h.subscription("-1003002") == nil {
		t.Fatal("migrate_from_chat_id did not move the subscription")
	}
}

// A reply to a group that became a supergroup follows it there.
func TestReplyFollowsMigration(t *testing.T) {
	h := newHarness(t)
	if _, err := h.st.Subscribe(context.Background(), -4001, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.tg.FailChat(-4001, func(int) *fakes.APIError { return fakes.Upgraded(-1004001) })
	h.start()
	u := group(-4001, 1, "/help")
	u.Message.Chat.Type = models.ChatTypeGroup
	h.upd.Push(u)
	waitFor(t, "the reply in the supergroup", func() bool { return len(h.tg.MessagesTo(-1004001, 0)) == 1 })
	if h.subscription("-4001") != nil || h.subscription("-1004001") == nil {
		t.Fatal("subscription not migrated")
	}
}

func TestOffsetPersistedAcrossRestart(t *testing.T) {
	h := newHarness(t)
	h.start()
	var last int64
	for i := 0; i < 3; i++ {
		last = h.upd.Push(private(9, "/help"))
	}
	waitFor(t, "3 replies", func() bool { return len(h.tg.MessagesTo(9, 0)) == 3 })
	waitFor(t, "the offset saved", func() bool {
		id, _, _ := h.st.LastUpdateID(context.Background())
		return id == last
	})
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	// Let the fake finish the long poll the shutdown abandoned.
	time.Sleep(300 * time.Millisecond)
	// An update arriving while the bot is down is not lost.
	next := h.upd.Push(private(9, "/frobnicate"))
	callsBefore := len(h.upd.Calls())
	h.start()
	waitFor(t, "the update sent while down", func() bool { return len(h.tg.MessagesTo(9, 0)) == 4 })
	calls := h.upd.Calls()[callsBefore:]
	if calls[0].Offset != last+1 {
		t.Fatalf("first getUpdates after restart asked for %d, want %d", calls[0].Offset, last+1)
	}
	if !slices.Equal(calls[0].Returned, []int64{next}) {
		t.Fatalf("replayed: %v", calls[0].Returned)
	}
	msgs := h.tg.MessagesTo(9, 0)
	if msgs[3].Text != commands.ReplyUnknown {
		t.Fatalf("4th reply %q", msgs[3].Text)
	}
	waitFor(t, "the offset saved", func() bool {
		id, _, _ := h.st.LastUpdateID(context.Background())
		return id == next
	})
}

// On shutdown the handlers in flight finish and their updates count as
// handled; Telegram keeps every update until it was handled.
func TestShutdownFinishesInFlight(t *testing.T) {
	h := newHarness(t)
	h.sp.Fault("summary", func(w http.ResponseWriter, r *http.Request) bool {
		time.Sleep(700 * time.Millisecond)
		return false
	})
	h.start()
	id := h.upd.Push(private(11, "/status"))
	waitFor(t, "the fetch", func() bool { return h.sp.Requests("/api/v2/summary.json") == 1 })
	// The in-flight update is still pending at Telegram: not confirmed.
	if n := h.upd.Pending(); n != 1 {
		t.Fatalf("%d updates pending at Telegram, want the one in flight", n)
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if msgs := h.tg.MessagesTo(11, 0); len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text, "<b>OpenAI status:</b>") {
		t.Fatalf("in-flight reply: %+v", msgs)
	}
	if got, _, _ := h.st.LastUpdateID(context.Background()); got != id {
		t.Fatalf("saved offset %d, want %d", got, id)
	}
}

// An update that does not decode is skipped; later ones are handled.
func TestMalformedUpdateSkipped(t *testing.T) {
	h := newHarness(t)
	h.start()
	bad := h.upd.PushRaw(`{"my_chat_member":{"chat":{"id":5,"type":"private"},"from":{"id":5},"date":1,"old_chat_member":{"status":"member"},"new_chat_member":{"status":"weird"}}}`)
	h.upd.PushRaw(`{"message":{"message_id":1,"date":1,"chat":{"id":5,"type":"private"},"text":"/help"}}`)
	waitFor(t, "the next update's reply", func() bool { return len(h.tg.MessagesTo(5, 0)) == 1 })
	waitFor(t, "offset past the bad update", func() bool {
		id, _, _ := h.st.LastUpdateID(context.Background())
		return id > bad
	})
	// A message without a sender, a callback query, an edited message.
	h.upd.PushRaw(`{"message":{"message_id":2,"date":1,"chat":{"id":-6,"type":"supergroup"},"text":"/start"}}`)
	h.upd.PushRaw(`{"callback_query":{"id":"cb1","from":{"id":5,"is_bot":false,"first_name":"U"},"chat_instance":"x","data":"d"}}`)
	h.upd.PushRaw(`{"edited_message":{"message_id":3,"date":1,"chat":{"id":5,"type":"private"},"text":"/start"}}`)
	waitFor(t, "callback answered", func() bool { return h.tg.Calls("answerCallbackQuery") == 1 })
	waitFor(t, "group refusal", func() bool { return len(h.tg.MessagesTo(-6, 0)) == 1 })
	if got := h.tg.MessagesTo(-6, 0)[0].Text; got != commands.ReplyNotAdmin {
		t.Fatalf("sender-less group command: %q", got)
	}
	if h.subscription("5") != nil {
		t.Fatal("an edited message was acted on")
	}
}

func TestReplyRateLimited(t *testing.T) {
	h := newHarness(t)
	h.tg.FailChat(12, func(attempt int) *fakes.APIError {
		if attempt == 1 {
			return fakes.TooMany(1)
		}
		return nil
	})
	h.start()
	start := time.Now()
	if got := h.ask(12, 0, private(12, "/start")); !strings.HasPrefix(got, "Subscribed") {
		t.Fatal(got)
	}
	if time.Since(start) < time.Second {
		t.Fatal("retry_after not honoured")
	}
}

func TestGetUpdatesErrorsRetried(t *testing.T) {
	h := newHarness(t)
	h.upd.Fail(&fakes.APIError{Code: 409, Description: "Conflict: terminated by other getUpdates request"})
	h.start()
	waitFor(t, "a logged conflict", func() bool { return strings.Contains(h.logs.String(), "another instance is polling") })
	h.upd.Fail(nil)
	if got := h.ask(13, 0, private(13, "/stop")); got != "This chat was not subscribed. Use /start to subscribe." {
		t.Fatal(got)
	}
}

func TestHealthCheckStalledLoop(t *testing.T) {
	now := time.Now()
	p := &poller{now: func() time.Time { return now }, silence: time.Minute}
	p.lastRound.Store(now.Add(-30 * time.Second).UnixNano())
	if err := p.healthy(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.lastRound.Store(now.Add(-2 * time.Minute).UnixNano())
	msg := "409 Conflict"
	p.lastErr.Store(&msg)
	err := p.healthy(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no successful getUpdates for 2m0s (last error: 409 Conflict)") {
		t.Fatalf("stalled loop: %v", err)
	}
}

func TestStoreFailureReply(t *testing.T) {
	h := newHarness(t)
	h.start()
	// Closing the store's connection makes every store call fail.
	if err := h.st.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	if got := h.ask(14, 0, private(14, "/start")); got != commands.ReplyStoreError {
		t.Fatalf("got %q", got)
	}
	if got := h.ask(14, 0, private(14, "/info")); got != commands.ReplyStoreError {
		t.Fatalf("got %q", got)
	}
}

// A handler still running when the shutdown grace period ends is cut
// short and its update left unhandled: the saved offset stays before it
// and the next run handles it.
func TestShutdownCutsShortAndReplays(t *testing.T) {
	h := newHarness(t)
	h.cfg.HTTPTimeout = time.Second
	h.tn.shutdownTimeout = 300 * time.Millisecond
	h.sp.Fault("", fakes.Hang)
	h.start()
	before := h.upd.Push(private(15, "/help"))
	waitFor(t, "the first reply", func() bool { return len(h.tg.MessagesTo(15, 0)) == 1 })
	id := h.upd.Push(private(15, "/components"))
	waitFor(t, "the hanging fetch", func() bool { return h.sp.Requests("/api/v2/summary.json") == 1 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := h.st.LastUpdateID(context.Background()); got != before {
		t.Fatalf("saved offset %d, want %d (before the cut-short update %d)", got, before, id)
	}
	h.sp.Fault("", nil)
	time.Sleep(300 * time.Millisecond)
	h.start()
	waitFor(t, "the replayed update's reply", func() bool { return len(h.tg.MessagesTo(15, 0)) == 2 })
	if got := h.tg.MessagesTo(15, 0)[1].Text; !strings.HasPrefix(got, "<b>Components</b>") {
		t.Fatalf("replayed reply: %q", got)
	}
}
