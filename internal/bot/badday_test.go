package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// The bot on a bad day (issue 32), on the real stack: FerretDB, the fake
// Telegram over HTTP with its real limits, the bot's own rules. Answer
// times are logged here and measured in BenchmarkBadDay; the bounds below
// are outcomes (answered or not) or bounds the old code could not meet
// by a wide margin, generous for a loaded machine.

// adminSlack: how late, beyond the 2 s, an admin's answer may be
// on a loaded machine (see sendSlack).
const adminSlack = sendSlack

// figures are a scenario's answer times, the slowest of each kind: logged
// by the tests, reported by BenchmarkBadDay.
type figures map[string]time.Duration

func (f figures) note(t testing.TB, name string, d time.Duration) {
	t.Helper()
	t.Logf("%s: %v", name, d.Round(time.Millisecond))
	f[name] = max(f[name], d)
}

// noTooMany: the bot kept to Telegram's limits (no send met a 429).
func noTooMany(t testing.TB, h *harness) {
	t.Helper()
	if n := h.tg.TooManyCount(); n > 0 {
		t.Errorf("%d sends met a 429", n)
	}
}

// withID gives an update's message its own ID, so that the reply to it
// can be told apart (replies are threaded to the command).
func withID(u models.Update, id int) models.Update {
	u.Message.ID = id
	return u
}

// replyTo waits up to d for the chat's reply to message id.
func replyTo(t testing.TB, h *harness, chat int64, thread, id int, d time.Duration) (fakes.Message, bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, m := range h.tg.MessagesTo(chat, thread) {
			if m.ReplyTo == id {
				return m, true
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fakes.Message{}, false
}

// Four members each sending /unsubscribe every 2 s (within their own
// budget): on the old code their usage replies were urgent (the admin
// command's middleware marked them so before the admin check), the
// urgent class has no cap, and 20 s in the admin's /stop waited behind
// some 20 of them: no answer within 45 s. Urgency is earned at the admin
// check now: the members' replies are casual and the admin's /settings
// and /stop go at the chat's next second.
func TestMembersUsageErrorsDoNotHoldTheAdmin(t *testing.T) { usageFlood(t, figures{}) }

func usageFlood(t testing.TB, f figures) {
	g := newFloodGroup(t)
	h := g.h
	h.ask(g.chat, 0, group(g.chat, g.admin, "/start"))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(2 * time.Second)
			defer tick.Stop()
			for {
				h.upd.Push(group(g.chat, int64(100+i), "/unsubscribe"))
				select {
				case <-g.stop:
					return
				case <-tick.C:
				}
			}
		}()
	}
	defer wg.Wait()
	defer g.quiet()
	time.Sleep(12 * time.Second)
	sent := time.Now()
	h.upd.Push(withID(group(g.chat, g.admin, "/settings"), 501))
	kb, ok := replyTo(t, h, g.chat, 0, 501, 45*time.Second)
	if !ok {
		t.Fatal("the admin's /settings was not answered within 45 s")
	}
	f.note(t, "admin_settings_ms", kb.At.Sub(sent))
	if took := kb.At.Sub(sent); took > 2*time.Second+adminSlack {
		t.Errorf("the admin's /settings took %v", took)
	}
	time.Sleep(2 * time.Second)
	sent = time.Now()
	h.upd.Push(withID(group(g.chat, g.admin, "/stop"), 502))
	m, ok := replyTo(t, h, g.chat, 0, 502, 45*time.Second)
	if !ok {
		t.Fatal("the admin's /stop was not answered within 45 s")
	}
	f.note(t, "admin_stop_ms", m.At.Sub(sent))
	if took := m.At.Sub(sent); took > 2*time.Second+adminSlack || !strings.HasPrefix(m.Text, "Unsubscribed") {
		t.Errorf("the admin's /stop: %q after %v", m.Text, took)
	}
	if h.subscription(store.SubscriberKey(g.chat, 0)) != nil {
		t.Error("still subscribed after /stop")
	}
	noTooMany(t, h)
}

// A member flooding /status every 300 ms, and another member's single
// /status a few seconds in: on the old code the flood used up the
// group's casual share first come and the single /status was never
// answered (2 of 4 runs; with 16 s of flood first, every run). Casual
// replies are shared per sender now.
func TestFloodingMemberDoesNotSilenceAnother(t *testing.T) { floodingMember(t, figures{}) }

func floodingMember(t testing.TB, f figures) {
	g := newFloodGroup(t)
	h := g.h
	g.flood(300 * time.Millisecond)
	// Long enough for the flood to have spent the group's casual share
	// (10 a minute; the flooder is heard every 2 s after a burst of 3).
	time.Sleep(16 * time.Second)
	for i, other := range []int64{21, 22} {
		id := 700 + i
		asked := time.Now()
		h.upd.Push(withID(group(g.chat, other, "/status"), id))
		m, ok := replyTo(t, h, g.chat, 0, id, 20*time.Second)
		if !ok {
			t.Fatalf("member %d's single /status was not answered while another floods", other)
		}
		if !strings.HasPrefix(m.Text, "<b>OpenAI status:</b>") {
			t.Fatalf("member %d got %q", other, m.Text)
		}
		f.note(t, "other_member_status_ms", m.At.Sub(asked))
		time.Sleep(3 * time.Second)
	}
	g.quiet()
	noTooMany(t, h)
}

// One admin working through eight commands 1.2 s apart in a forum topic:
// on the old code (3 at once, then one every 2 s) the later ones were
// dropped as a flood ("some of yours were not answered"), /stop among
// them. A person's pace is queued now, each command answered.
func TestAdminsSteadyPaceIsAnswered(t *testing.T) { steadyAdmin(t, figures{}) }

func steadyAdmin(t testing.TB, f figures) {
	g := newFloodGroup(t)
	h := g.h
	const thread = 77
	cmds := []string{"/start", "/help", "/status", "/components", "/history", "/uptime", "/subscribe incidents", "/stop"}
	var asked []time.Time
	for i, c := range cmds {
		u := topicMsg(g.chat, g.admin, thread, c)
		u.Message.ID = 800 + i
		asked = append(asked, time.Now())
		h.upd.Push(u)
		time.Sleep(1200 * time.Millisecond)
	}
	for i, c := range cmds {
		m, ok := replyTo(t, h, g.chat, thread, 800+i, 30*time.Second)
		if !ok {
			t.Errorf("%s was not answered", c)
			continue
		}
		if m.Text == commands.ReplyFlood {
			t.Errorf("%s was answered as a flood", c)
		}
		f.note(t, "admin_steady_slowest_ms", m.At.Sub(asked[i]))
	}
	for _, m := range h.tg.MessagesTo(g.chat, thread) {
		if m.Text == commands.ReplyFlood {
			t.Errorf("the admin was told they flood")
		}
	}
	if h.subscription(store.SubscriberKey(g.chat, thread)) != nil {
		t.Error("the topic is still subscribed after the admin's /stop")
	}
}

// The status page hangs and the poll's snapshot is stale: 20 chats ask
// /status. On the old code each /status waited a whole fetch, 16 of them
// filled every handler slot and another chat's /help waited the HTTP
// timeout (4.8 s at 5 s); no failure was remembered, so the next ones
// fetched again. Now commands wait for the page aside (holding no
// worker), one fetch serves them all and its failure is remembered.
func TestHangingPageStallsNoOne(t *testing.T) { hangingPage(t, figures{}) }

func hangingPage(t testing.TB, f figures) {
	h := newHarness(t)
	if err := h.st.SaveSnapshot(context.Background(), testPage(h.sp.URL()), time.Now().Add(-10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	h.sp.Fault("", fakes.Hang)
	h.start()
	sent := time.Now()
	for i := range 20 {
		h.upd.Push(private(int64(3000+i), "/status"))
	}
	waitFor(t, "the fetch", func() bool { return h.sp.Requests("/api/v2/summary.json") >= 1 })
	var slowest time.Duration
	for i := range 5 {
		chat := int64(4000 + i)
		asked := time.Now()
		h.upd.Push(private(chat, "/help"))
		waitWithin(t, 30*time.Second, "/help", func() bool { return len(h.tg.MessagesTo(chat, 0)) == 1 })
		slowest = max(slowest, h.tg.MessagesTo(chat, 0)[0].At.Sub(asked))
	}
	f.note(t, "other_chat_help_slowest_ms", slowest)
	// Half the HTTP timeout: what the old code could never meet (the
	// issue's 1 s is the figure in BenchmarkBadDay).
	if slowest > h.cfg.HTTPTimeout/2 {
		t.Errorf("another chat's /help waited %v for the hanging page", slowest)
	}
	fetchTimeout := 2*h.cfg.HTTPTimeout + 5*time.Second
	for i := range 20 {
		chat := int64(3000 + i)
		waitWithin(t, fetchTimeout+10*time.Second, "a /status", func() bool { return len(h.tg.MessagesTo(chat, 0)) == 1 })
		m := h.tg.MessagesTo(chat, 0)[0]
		if !strings.HasPrefix(m.Text, "<b>OpenAI status:</b>") {
			t.Fatalf("chat %d: %q", chat, m.Text)
		}
		if took := m.At.Sub(sent); took > fetchTimeout+5*time.Second {
			t.Errorf("chat %d's /status took %v, more than one fetch", chat, took)
		}
		f.note(t, "status_slowest_ms", m.At.Sub(sent))
	}
	// More /status after the failure: answered from the snapshot, no
	// new fetch.
	h.upd.Push(private(3100, "/status"))
	waitWithin(t, 10*time.Second, "a later /status", func() bool { return len(h.tg.MessagesTo(3100, 0)) == 1 })
	if n := h.sp.Requests("/api/v2/summary.json"); n != 1 {
		t.Errorf("%d fetches of the hanging page for 21 commands, want 1", n)
	}
}

// pageOf8 is the test page with a group of eight components to tick.
func pageOf8(url string) *statuspage.Page {
	p := testPage(url)
	grp := statuspage.Component{ID: "grp8", Name: "Models", Status: "operational", Group: true}
	var members []statuspage.Component
	for i := range 8 {
		id := fmt.Sprintf("m%d", i)
		grp.Components = append(grp.Components, id)
		members = append(members, statuspage.Component{ID: id, Name: fmt.Sprintf("Model %d", i), Status: "operational", GroupID: "grp8", UpdatedAt: time.Now()})
	}
	p.Components = append(append(p.Components, grp), members...)
	return p
}

// An admin ticks eight components half a second apart, each on the
// keyboard as first drawn (the redraws wait for the group's second). On
// the old code 4 of 8 were refused "Too many taps at once" (the taps
// kept the commands' rule) and those after the first redraw lagged
// were refused as stale. Now each is applied and answered at once.
func TestTapsAtHumanSpeed(t *testing.T) { tapsAtHumanSpeed(t, figures{}) }

func tapsAtHumanSpeed(t testing.TB, f figures) {
	h := newHarness(t)
	h.tg.RealLimits()
	h.cfg.BotReplyRate = 4
	h.tn.flood, h.tn.taps, h.tn.groupPace = defaultFlood, defaultTaps, groupPace
	h.tn.tapAnswerWithin = commands.TapAnswerWithin
	const chat, admin = -100901, 7
	h.tg.ChatMembers(map[int64]map[int64]string{chat: {admin: "creator"}})
	h.snapshot(pageOf8(h.sp.URL()))
	h.start()
	gt := models.ChatTypeSupergroup
	h.ask(chat, 0, group(chat, admin, "/start"))
	m := h.openSettings(group(chat, admin, "/settings"), chat)
	// The redraws wait for the group's second: wait for each screen.
	drawn := func(label string) fakes.Message {
		var now fakes.Message
		waitWithin(t, 15*time.Second, "a button "+label, func() bool {
			now, _ = h.tg.Message(m.ChatID, m.ID)
			return strings.Contains(now.ReplyMarkup, label)
		})
		return now
	}
	h.tap(m, gt, admin, button(t, m, "Components").CallbackData)
	m = drawn("Models")
	h.tap(m, gt, admin, button(t, m, "Models").CallbackData)
	m = drawn("Model 7")
	var ids []string
	var at []time.Time
	for i := range 8 {
		at = append(at, time.Now())
		ids = append(ids, h.tg.Tap(h.upd, m, gt, admin, button(t, m, fmt.Sprintf("Model %d", i)).CallbackData))
		time.Sleep(500 * time.Millisecond)
	}
	var slowest time.Duration
	for i, id := range ids {
		waitWithin(t, 15*time.Second, "the answer to tap "+id, func() bool { _, ok := h.tg.Answer(id); return ok })
		a, _ := h.tg.Answer(id)
		slowest = max(slowest, a.At.Sub(at[i]))
		if a.Text == commands.AnsTooManyTaps || a.Text == commands.AnsStale || a.ShowAlert {
			t.Errorf("tap %d answered %q", i, a.Text)
		}
	}
	f.note(t, "tap_answer_slowest_ms", slowest)
	// Generous for a loaded machine; the spinner's own limit is ~15 s.
	if slowest > 3*time.Second {
		t.Errorf("a tap was answered %v after it was made", slowest)
	}
	var want []string
	for i := range 8 {
		want = append(want, fmt.Sprintf("m%d", i))
	}
	waitWithin(t, 10*time.Second, "all eight applied", func() bool {
		sub := h.subscription(store.SubscriberKey(chat, 0))
		got := slices.Clone(sub.Components)
		slices.Sort(got)
		return slices.Equal(got, want)
	})
	// The keyboard shows them all once the redraws caught up.
	waitWithin(t, 10*time.Second, "the redraw", func() bool {
		now, _ := h.tg.Message(m.ChatID, m.ID)
		return strings.Count(now.ReplyMarkup, "✅") >= 8
	})
}

// A reply Telegram refuses for its date-time entity (ENTITY_DATE_INVALID:
// a date too far ahead) goes again as plain text. On the old code
// reply.go had no such retry: the /status was lost.
func TestReplyRefusedForItsTimeGoesAsPlainText(t *testing.T) {
	h := newHarness(t)
	p := testPage(h.sp.URL())
	for i := range p.Components {
		if p.Components[i].ID == "api1" {
			p.Components[i].UpdatedAt = time.Now().AddDate(5, 0, 0)
		}
	}
	h.snapshot(p)
	h.start()
	got := h.exchange(61, 0, private(61, "/status API"))
	if len(got) != 1 {
		t.Fatalf("want one reply, got %d: %+v", len(got), got)
	}
	if got[0].ParseMode != "" || strings.Contains(got[0].Text, "<") || !strings.Contains(got[0].Text, "Last change") {
		t.Fatalf("want the reply as plain text: %+v", got[0])
	}
	if h.tg.RefusedEntities() == 0 {
		t.Fatal("the fake refused nothing: the test shows nothing")
	}
}

// A chat of two pages (issue 32 item 4): on the old code /start said
// "Status now: Unknown" (the merged page has no status of its own), and
// /start, /help and the group greeting named OpenAI alone, never the
// other pages on offer.
func TestSeveralPagesAreNamed(t *testing.T) {
	h, _ := twoPageHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	gh := &statuspage.Page{Name: "GitHub", Indicator: "none", Description: "All Systems Operational",
		Components: []statuspage.Component{{ID: "git0000001", Name: "Git Operations", Status: "operational"}}}
	if err := h.st.PageDocs("github").SaveSnapshot(context.Background(), gh, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.start()
	const chat = 42
	first := h.ask(chat, 0, private(chat, "/start"))
	if !strings.Contains(first, "Also on offer: github") {
		t.Errorf("/start does not name the other page on offer: %q", first)
	}
	h.ask(chat, 0, private(chat, "/subscribe page github"))
	again := h.ask(chat, 0, private(chat, "/start"))
	for _, want := range []string{"📄 <b>openai</b>: Partially Degraded Service", "📄 <b>github</b>: All Systems Operational"} {
		if !strings.Contains(again, want) {
			t.Errorf("/start for two pages lacks %q: %q", want, again)
		}
	}
	if strings.Contains(again, "Unknown") {
		t.Errorf("/start for two pages: %q", again)
	}
	if help := h.ask(chat, 0, private(chat, "/help")); !strings.Contains(help, "Pages on offer: openai, github.") {
		t.Errorf("/help: %q", help)
	}
	added := memberUpdate(-100321, models.ChatTypeSupergroup, models.ChatMemberTypeMember)
	added.MyChatMember.OldChatMember = models.ChatMember{Type: models.ChatMemberTypeLeft, Left: &models.ChatMemberLeft{User: &models.User{ID: 1000, IsBot: true}}}
	h.upd.Push(added)
	waitFor(t, "the greeting", func() bool { return len(h.tg.MessagesTo(-100321, 0)) == 1 })
	if g := h.tg.MessagesTo(-100321, 0)[0].Text; !strings.Contains(g, "On offer: openai, github") {
		t.Errorf("the greeting: %q", g)
	}
}

// A tap on a component screen while the page cannot be read at all (no
// snapshot, the page failing): on the old code the answer said "The
// status page's components changed", which it had not.
func TestUnreachablePageIsNotAChangedOne(t *testing.T) {
	h := newHarness(t)
	h.sp.Fault("", fakes.ServerError)
	h.start()
	const chat = 44
	pt := models.ChatTypePrivate
	h.ask(chat, 0, private(chat, "/start"))
	m := h.openSettings(private(chat, "/settings"), chat)
	data := button(t, m, "Severity").CallbackData
	state := data[strings.LastIndex(data, ":")+1:]
	a, _ := h.tap(m, pt, chat, "G:0:0:zz:"+state)
	if a.Text != commands.AnsPageDown {
		t.Fatalf("answer %q, want %q", a.Text, commands.AnsPageDown)
	}
}

// BenchmarkBadDay measures the answer times issue 32's tests bound only
// loosely: each scenario once per iteration on the real stack, the
// slowest answer of each kind reported in ms (docs/benchmarks.md).
//
//	go test -run '^$' -bench BadDay -benchtime 1x ./internal/bot/
func BenchmarkBadDay(b *testing.B) {
	for _, sc := range []struct {
		name string
		run  func(testing.TB, figures)
	}{
		{"MembersUsageFlood", usageFlood},
		{"FloodingMember", floodingMember},
		{"SteadyAdmin", steadyAdmin},
		{"HangingPage", hangingPage},
		{"TapsHalfASecondApart", tapsAtHumanSpeed},
	} {
		b.Run(sc.name, func(b *testing.B) {
			f := figures{}
			for range b.N {
				sc.run(b, f)
			}
			for name, d := range f {
				b.ReportMetric(float64(d)/float64(time.Millisecond), name)
			}
		})
	}
}

// A tap while Telegram is slow to say who is an admin (getChatMember
// takes 3 s): on the old code the answer waited for it, and for the
// store's reads and writes after it, so the spinner ran 3 s and more.
// The answer goes within TapAnswerWithin now; the change is applied and
// drawn all the same.
func TestTapAnsweredWhileTelegramIsSlow(t *testing.T) {
	h := newHarness(t)
	h.tn.tapAnswerWithin = commands.TapAnswerWithin
	const chat, admin = -100902, 7
	h.tg.Handle("getChatMember", func(p fakes.Params) (any, *fakes.APIError) {
		time.Sleep(3 * time.Second)
		return map[string]any{"status": "creator", "is_anonymous": false, "user": map[string]any{"id": p.Int64("user_id"), "is_bot": false, "first_name": "U"}}, nil
	})
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	gt := models.ChatTypeSupergroup
	h.ask(chat, 0, group(chat, admin, "/start"))
	m := h.openSettings(group(chat, admin, "/settings"), chat)
	h.tap(m, gt, admin, button(t, m, "Severity").CallbackData)
	waitWithin(t, 15*time.Second, "the severity screen", func() bool {
		m, _ = h.tg.Message(m.ChatID, m.ID)
		return strings.Contains(m.ReplyMarkup, "Outages only, skip")
	})
	tapped := time.Now()
	id := h.tg.Tap(h.upd, m, gt, admin, button(t, m, "Outages only, skip").CallbackData)
	waitWithin(t, 15*time.Second, "the answer", func() bool { _, ok := h.tg.Answer(id); return ok })
	a, _ := h.tg.Answer(id)
	t.Logf("the tap was answered %v after it was made (getChatMember takes 3 s)", a.At.Sub(tapped).Round(time.Millisecond))
	// Generous for a loaded machine, and below the 3 s the old code
	// could not answer sooner than.
	if took := a.At.Sub(tapped); took > 2*time.Second {
		t.Errorf("the tap was answered %v after it was made", took)
	}
	waitWithin(t, 15*time.Second, "the change applied", func() bool {
		return h.subscription(store.SubscriberKey(chat, 0)).Settings.MinSeverity == store.SeverityOutage
	})
}
