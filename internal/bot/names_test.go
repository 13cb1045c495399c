package bot

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// loginsPage has "Login" twice, as status.openai.com does.
func loginsPage(url string) *statuspage.Page {
	p := testPage(url)
	at := p.Components[1].UpdatedAt
	p.Components = append(p.Components,
		statuspage.Component{ID: "01JMXBRMFE6N1TDSS8XZX5PRWP", Name: "Login", GroupName: "APIs", Status: "operational", UpdatedAt: at},
		statuspage.Component{ID: "01JMXBRMFEWRDYJ26G3BFD8YXV", Name: "Login", GroupName: "ChatGPT", Status: "partial_outage", UpdatedAt: at})
	return p
}

// A name /components shows ("Login (ChatGPT)") can be typed back into
// /status and /subscribe component; on the old code both said "No
// component matches", and plain "Login" answered with two 26-character
// IDs to copy. Now plain "Login" offers a button per component.
func TestComponentNamesAsShownCanBeTypedBack(t *testing.T) {
	h := newHarness(t)
	h.snapshot(loginsPage(h.sp.URL()))
	h.start()
	const chat = 47
	ask := func(text string) string { t.Helper(); return h.ask(chat, 0, private(chat, text)) }
	list := ask("/components")
	if !strings.Contains(list, "Login (ChatGPT): Partial Outage") {
		t.Fatalf("/components: %q", list)
	}
	if got := ask("/status Login (ChatGPT)"); !strings.HasPrefix(got, "<b>Login (ChatGPT):</b> Partial Outage") {
		t.Fatalf("/status Login (ChatGPT): %q", got)
	}
	ask("/start")
	if got := ask("/subscribe component login (chatgpt)"); !strings.HasPrefix(got, "Added <b>Login (ChatGPT)</b>") {
		t.Fatalf("/subscribe component login (chatgpt): %q", got)
	}

	// Plain "Login": a button each, named as /components names them.
	got := h.exchange(chat, 0, private(chat, "/status Login"))
	if len(got) != 1 || strings.Contains(got[0].Text, "01JMX") {
		t.Fatalf("/status Login: %+v", got)
	}
	q := got[0]
	if !strings.Contains(q.Text, "Login (APIs)") || !strings.Contains(q.Text, "Tap one") {
		t.Fatalf("ambiguous reply: %q", q.Text)
	}
	a, now := h.tap(q, models.ChatTypePrivate, chat, button(t, q, "Login (ChatGPT)").CallbackData)
	if a.Text != "" || !strings.HasPrefix(now.Text, "<b>Login (ChatGPT):</b> Partial Outage") {
		t.Fatalf("tap: %+v, message %q", a, now.Text)
	}

	got = h.exchange(chat, 0, private(chat, "/subscribe component Login"))
	if len(got) != 1 {
		t.Fatalf("/subscribe component Login: %+v", got)
	}
	a, now = h.tap(got[0], models.ChatTypePrivate, chat, button(t, got[0], "Login (APIs)").CallbackData)
	if a.Text != commands.AnsSaved || !strings.HasPrefix(now.Text, "Added <b>Login (APIs)</b>") {
		t.Fatalf("tap: %+v, message %q", a, now.Text)
	}
	if sub := h.subscription("47"); !slices.Equal(sub.Components, []string{"01JMXBRMFEWRDYJ26G3BFD8YXV", "01JMXBRMFE6N1TDSS8XZX5PRWP"}) {
		t.Fatalf("filter %v", sub.Components)
	}
}
