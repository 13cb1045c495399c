package bot

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// twoPageHarness offers the harness's page as openai (the default and
// legacy page) and a GitHub-like Statuspage as github, which also has a
// component named API.
func twoPageHarness(t *testing.T) (*harness, *fakes.Statuspage) {
	t.Helper()
	h := newHarness(t)
	gh := fakes.NewNamedStatuspage("GitHub", fakes.StatuspageComponent{ID: "git0000001", Name: "Git Operations"},
		fakes.StatuspageComponent{ID: "ghapi00001", Name: "API"})
	t.Cleanup(gh.Close)
	h.cfg.Pages = []pages.Page{{Name: "openai", URL: h.sp.URL(), Provider: "statuspage"}, {Name: "github", URL: gh.URL(), Provider: "statuspage"}}
	return h, gh
}

func TestPageCommands(t *testing.T) {
	h, _ := twoPageHarness(t)
	h.tg.ChatMembers(map[int64]map[int64]string{-100: {1: "administrator", 7: "member"}})
	h.start()
	const chat = 42
	h.ask(chat, 0, private(chat, "/start"))
	if got := h.subscription("42").Pages; !slices.Equal(got, []string{""}) {
		t.Fatalf("a new chat follows the default page: %v", got)
	}
	for _, c := range []struct {
		text  string
		want  []string
		pages []string
	}{
		{"/subscribe page gitlab", []string{"No page is called", "gitlab", "the pages on offer are openai, github"}, []string{""}},
		{"/subscribe page", []string{"<b>Pages on offer</b>", "✅ openai", "▫️ github"}, []string{""}},
		{"/subscribe page GitHub", []string{"now follows <b>github</b>", "Pages followed: openai, github", "Each notice names its page"}, []string{"", "github"}},
		{"/subscribe page github", []string{"already follows <b>github</b>"}, []string{"", "github"}},
		{"/unsubscribe page openai", []string{"no longer follows <b>openai</b>", "Pages followed: github."}, []string{"github"}},
		{"/unsubscribe page github", []string{"<b>github</b> is the only page this chat follows", "/stop"}, []string{"github"}},
		{"/unsubscribe", []string{"/unsubscribe page &lt;name&gt;", "openai, github", "/stop"}, []string{"github"}},
		{"/unsubscribe page nope", []string{"No page is called", "nope"}, []string{"github"}},
	} {
		got := h.ask(chat, 0, private(chat, c.text))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: reply %q lacks %q", c.text, got, w)
			}
		}
		if p := h.subscription("42").Pages; !slices.Equal(p, c.pages) {
			t.Errorf("%s: pages %v, want %v", c.text, p, c.pages)
		}
	}
	// In a group only administrators change the pages.
	h.ask(-100, 0, group(-100, 1, "/start"))
	if got := h.ask(-100, 0, group(-100, 7, "/subscribe page github")); got != commands.ReplyNotAdmin {
		t.Errorf("a member: %q", got)
	}
	if p := h.subscription("-100").Pages; !slices.Equal(p, []string{""}) {
		t.Errorf("a member changed the pages: %v", p)
	}
}

// The read commands cover the chat's pages, or the one page named; a
// component name found on two of them is told apart by the page.
func TestReadCommandsCoverTheChatsPages(t *testing.T) {
	h, _ := twoPageHarness(t)
	h.start()
	const chat = 43
	h.ask(chat, 0, private(chat, "/start"))
	if got := h.ask(chat, 0, private(chat, "/status")); strings.Contains(got, "GitHub") {
		t.Fatalf("a chat of openai alone: %q", got)
	}
	h.ask(chat, 0, private(chat, "/subscribe page github"))

	status := h.ask(chat, 0, private(chat, "/status"))
	if !strings.Contains(status, "<b>OpenAI status:</b>") || !strings.Contains(status, "<b>GitHub status:</b>") {
		t.Errorf("/status covers both pages: %q", status)
	}
	if got := h.ask(chat, 0, private(chat, "/status github")); strings.Contains(got, "OpenAI") || !strings.Contains(got, "GitHub status") {
		t.Errorf("/status github: %q", got)
	}
	comps := h.ask(chat, 0, private(chat, "/components"))
	for _, w := range []string{"📄 <b>openai</b>", "📄 <b>github</b>", "Git Operations", "ChatGPT"} {
		if !strings.Contains(comps, w) {
			t.Errorf("/components lacks %q: %q", w, comps)
		}
	}
	if got := h.ask(chat, 0, private(chat, "/status github API")); !strings.Contains(got, "<b>API:</b>") {
		t.Errorf("/status github API: one page, its own name: %q", got)
	}
	got := h.exchange(chat, 0, private(chat, "/status API"))
	if len(got) != 1 || !strings.Contains(got[0].ReplyMarkup, "API (openai)") || !strings.Contains(got[0].ReplyMarkup, "API (github)") {
		t.Errorf("/status API asks which, by page: %+v", got)
	}
	if got := h.ask(chat, 0, private(chat, "/uptime")); !strings.Contains(got, "Git Operations") || !strings.Contains(got, "ChatGPT") {
		t.Errorf("/uptime covers both pages: %q", got)
	}
	if got := h.ask(chat, 0, private(chat, "/history github 3")); strings.Contains(got, "📄") {
		t.Errorf("/history github is the one page: %q", got)
	}

	// The filter of another page holds its scoped IDs.
	if got := h.ask(chat, 0, private(chat, "/subscribe component github Git Operations")); !strings.Contains(got, "Added <b>Git Operations</b>") {
		t.Fatalf("filter: %q", got)
	}
	if f := h.subscription("43").Components; !slices.Equal(f, []string{"github/git0000001"}) {
		t.Fatalf("filter %v", f)
	}
	if got := h.ask(chat, 0, private(chat, "/subscribe")); !strings.Contains(got, "Git Operations") {
		t.Errorf("the filter is shown by name: %q", got)
	}
}

// The Pages screen of /settings follows and leaves pages, and keeps one.
func TestSettingsPagesScreen(t *testing.T) {
	h, _ := twoPageHarness(t)
	h.start()
	const chat = 44
	h.ask(chat, 0, private(chat, "/start"))
	m := h.openSettings(private(chat, "/settings"), chat)
	if !strings.Contains(m.Text, "Pages: openai") {
		t.Fatalf("main screen names the pages: %q", m.Text)
	}
	pt := models.ChatTypePrivate
	_, m = h.tap(m, pt, chat, button(t, m, "Pages").CallbackData)
	if !strings.Contains(m.Text, "<b>Pages</b>") || !strings.Contains(button(t, m, "openai").Text, "✅") || !strings.Contains(button(t, m, "github").Text, "▫️") {
		t.Fatalf("pages screen: %q %s", m.Text, m.ReplyMarkup)
	}
	a, m := h.tap(m, pt, chat, button(t, m, "github").CallbackData)
	if a.Text != commands.AnsSaved || !strings.Contains(button(t, m, "github").Text, "✅") {
		t.Fatalf("follow github: %+v %s", a, m.ReplyMarkup)
	}
	a, m = h.tap(m, pt, chat, button(t, m, "openai").CallbackData)
	if a.Text != commands.AnsSaved {
		t.Fatalf("leave openai: %+v", a)
	}
	if p := h.subscription("44").Pages; !slices.Equal(p, []string{"github"}) {
		t.Fatalf("pages %v", p)
	}
	a, _ = h.tap(m, pt, chat, button(t, m, "github").CallbackData)
	if a.Text != commands.AnsKeepOnePage {
		t.Fatalf("the last page: %+v", a)
	}
	if p := h.subscription("44").Pages; !slices.Equal(p, []string{"github"}) {
		t.Fatalf("pages %v", p)
	}
}

// With one page on offer nothing changes: no Pages screen, and a first word
// that is the page's name is not taken for it.
func TestOnePageOfferedShowsNoPages(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 45
	h.ask(chat, 0, private(chat, "/start"))
	m := h.openSettings(private(chat, "/settings"), chat)
	if strings.Contains(m.Text, "Pages:") || strings.Contains(m.ReplyMarkup, `"Pages"`) {
		t.Fatalf("one page: no Pages screen: %q %s", m.Text, m.ReplyMarkup)
	}
}

// followsOnly makes a subscribed chat follow the event pages given.
func (h *harness) followsOnly(key string, eventPages ...string) {
	h.t.Helper()
	ctx := context.Background()
	for _, ep := range eventPages {
		if _, _, err := h.st.FollowPage(ctx, key, ep); err != nil {
			h.t.Fatal(err)
		}
	}
	if !slices.Contains(eventPages, "") {
		if _, _, err := h.st.UnfollowPage(ctx, key, ""); err != nil {
			h.t.Fatal(err)
		}
	}
}

// Issue 30, item 5: a chat whose page was removed from the list (github,
// no longer offered) is told the truth. /status says the page it shows is
// not followed, /info and /settings say the chat follows no page and how
// to choose one (with one page left on offer); a /start restore of kept
// settings cannot bring the removed page back; and /unsubscribe page
// openai is refused when the only other page followed is no longer
// offered. On the old code /status and /info showed openai as if
// followed (no word of it), /settings had no Pages line, the restore
// followed github again, and the /unsubscribe was accepted, leaving the
// chat with no page the bot watches.
func TestRemovedPageIsNotShownAsFollowed(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 47
	h.ask(chat, 0, private(chat, "/start"))
	h.followsOnly("47", "github")

	status := h.ask(chat, 0, private(chat, "/status"))
	for _, w := range []string{"follows no page the bot watches", "does not follow", "/subscribe page page"} {
		if !strings.Contains(status, w) {
			t.Errorf("/status %q lacks %q", status, w)
		}
	}
	info := h.ask(chat, 0, private(chat, "/info"))
	if !strings.Contains(info, "Pages: none") || !strings.Contains(info, "/subscribe page page") {
		t.Errorf("/info: %q", info)
	}
	m := h.openSettings(private(chat, "/settings"), chat)
	if !strings.Contains(m.Text, "Pages: none") {
		t.Errorf("/settings: %q", m.Text)
	}

	// /stop keeps the settings; /start brings them back without github.
	h.ask(chat, 0, private(chat, "/stop"))
	h.ask(chat, 0, private(chat, "/start"))
	if p := h.subscription("47").Pages; !slices.Equal(p, []string{""}) {
		t.Errorf("restored pages %v, want the default page alone", p)
	}

	// Following the one page on offer and github: leaving the page on
	// offer would leave github alone, which nothing polls.
	h.followsOnly("47", "", "github")
	got := h.ask(chat, 0, private(chat, "/unsubscribe page page"))
	if !strings.Contains(got, "is the only page") {
		t.Errorf("/unsubscribe of the last page on offer: %q", got)
	}
	if p := h.subscription("47").Pages; !slices.Equal(p, []string{"", "github"}) {
		t.Errorf("pages %v after a refused /unsubscribe", p)
	}
}

// Issue 30, item 5: Pages buttons name their page by its key, so a
// keyboard drawn before the list was reordered follows the page its label
// says; a button drawn by the list's place ("P:<index>", before keys) is
// refused as out of date, nothing changed, and the screen drawn afresh.
func TestPagesButtonsNameThePage(t *testing.T) {
	h, _ := twoPageHarness(t)
	h.start()
	const chat = 48
	h.ask(chat, 0, private(chat, "/start"))
	m := h.openSettings(private(chat, "/settings"), chat)
	pt := models.ChatTypePrivate
	_, m = h.tap(m, pt, chat, button(t, m, "Pages").CallbackData)
	gh := button(t, m, "github").CallbackData
	if !strings.HasPrefix(gh, "F:github:1:") {
		t.Fatalf("github's button: %q", gh)
	}
	tok := gh[strings.LastIndex(gh, ":")+1:]
	a, m := h.tap(m, pt, chat, "P:1:1:"+tok)
	if a.Text != commands.AnsOldPages {
		t.Fatalf("an old button: %+v", a)
	}
	if p := h.subscription("48").Pages; !slices.Equal(p, []string{""}) {
		t.Fatalf("an old button changed the pages: %v", p)
	}
	if !strings.HasPrefix(button(t, m, "github").CallbackData, "F:github:") {
		t.Fatalf("not drawn afresh: %s", m.ReplyMarkup)
	}
	a, _ = h.tap(m, pt, chat, button(t, m, "github").CallbackData)
	if a.Text != commands.AnsSaved {
		t.Fatalf("follow github: %+v", a)
	}
	if p := h.subscription("48").Pages; !slices.Equal(p, []string{"", "github"}) {
		t.Fatalf("pages %v", p)
	}
}
