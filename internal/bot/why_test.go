package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// /why and /info answer from the chat's records; a chat not subscribed is
// told so.
func TestWhyCommand(t *testing.T) {
	h := newHarness(t)
	h.start()
	ask := func(text string) string { return h.ask(77, 0, private(77, text)) }
	if got := ask("/why"); got != "This chat is not subscribed. Use /start first." {
		t.Fatalf("/why unsubscribed: %q", got)
	}
	ask("/start")
	if got := ask("/why"); !strings.HasPrefix(got, "No notices for this chat") {
		t.Fatalf("/why with no records: %q", got)
	}
	at := time.Date(2026, 12, 1, 13, 45, 0, 0, time.UTC)
	ctx := context.Background()
	if err := h.st.RecordFates(ctx, []store.Fate{
		{Sub: "77", Event: "component:api:x", Summary: "Component change: API, Operational → Major Outage", Outcome: store.FateWithheld, Why: "component-filter", At: at},
		{Sub: "77", Event: "incident:i:u1:v", Summary: "Incident update: Errors, Investigating", Outcome: store.FateSent, As: store.AsCard, At: at.Add(time.Minute)},
		{Sub: "78", Event: "incident:i:u1:v", Summary: "another chat's", Outcome: store.FateSent, At: at},
	}); err != nil {
		t.Fatal(err)
	}
	got := ask("/why")
	checkHTML(t, got)
	first, second := strings.Index(got, "Incident update: Errors"), strings.Index(got, "Component change: API")
	if first < 0 || second < first || strings.Contains(got, "another chat") {
		t.Fatalf("/why: newest first, this chat's only: %q", got)
	}
	if !strings.Contains(got, "Withheld: not about the components this chat follows") || !strings.Contains(got, "Sent ") {
		t.Fatalf("/why: %q", got)
	}
	if got := ask("/info"); !strings.Contains(got, "<b>Last notice:</b> Sent ") || !strings.Contains(got, "as the incident's card. More: /why") {
		t.Fatalf("/info: %q", got)
	}
}
