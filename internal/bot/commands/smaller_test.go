package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func TestSmallerWordings(t *testing.T) {
	if got := screens.CountOf(1, "chosen component"); got != "1 chosen component" {
		t.Error(got)
	}
	if got := screens.CountOf(2, "chosen component"); got != "2 chosen components" {
		t.Error(got)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	at := time.Date(2026, 3, 8, 9, 2, 0, 0, time.UTC)
	if got := staleNote(at, berlin); !strings.Contains(got, "2026-03-08 10:02 CET") {
		t.Errorf("stale note not in the chat's zone: %q", got)
	}
	sub := &store.Subscriber{Components: []string{"a"}}
	k := screens.New(sub, screens.IndexPage(bottest.Page("")))
	if s := k.Groups(0); strings.Contains(s.Text, "1 chosen components") {
		t.Errorf("%q", s.Text)
	}
}
