package message

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
)

// A notice telling 35 earlier updates keeps within Telegram's limit, names
// them newest first, and counts those that do not fit.
func TestEarlierWithinTheLimit(t *testing.T) {
	t0 := time.Date(2026, 8, 17, 10, 0, 0, 0, time.UTC)
	e := event.Event{Kind: event.KindIncident, IncidentName: "Incident with GitHub.com", UpdateStatus: "investigating", Impact: "critical",
		Body: strings.Repeat("We are investigating. ", 300), URL: "https://www.githubstatus.com/incidents/x"}
	for i := 34; i >= 0; i-- {
		e.Folded = append(e.Folded, event.FoldedStep{Key: fmt.Sprint(i), Status: "investigating", At: t0.Add(time.Duration(i) * time.Minute),
			Body: fmt.Sprintf("Step %d: ", i) + strings.Repeat("x", 300)})
	}
	for name, text := range map[string]string{"message": Notification(e), "reply": CardReply(e, false)} {
		if !fits(text) {
			t.Errorf("%s: over the limit (%d raw, %d visible)", name, len([]rune(text)), VisibleLength(text))
		}
		if !strings.Contains(text, "35 earlier updates, newest first") || !strings.Contains(text, "Step 34") {
			t.Errorf("%s: the earlier updates are not named: %s", name, text)
		}
		if strings.Index(text, "Step 34") > strings.Index(text, "Step 33") {
			t.Errorf("%s: not newest first", name)
		}
		if !strings.Contains(text, "earlier updates (the card's timeline and the page show them)") {
			t.Errorf("%s: the steps that do not fit are not counted", name)
		}
	}
	if one := Notification(event.Event{Kind: event.KindIncident, UpdateStatus: "investigating"}); strings.Contains(one, "earlier update") {
		t.Errorf("a notice of one step lists earlier ones: %s", one)
	}
}
