package activities

import (
	"strings"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// keyIs tells an event key's kind by its text, for the paths that hold only
// the key (a card's or fold's prepared texts, a queued turn's ticket),
// whatever page the key is scoped to (pages.Scope).
func keyIs(eventKey string, kind event.Kind) bool {
	_, bare := pages.Unscope(eventKey)
	return strings.HasPrefix(bare, string(kind)+":")
}
