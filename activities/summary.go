package activities

import (
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// MorningSummary is the one message a held window ends with: its stories
// (incidents, maintenances, components) in the order first heard, sorted
// into what opened and is still open, what was already open and still is,
// and what resolved meanwhile, each with its last held step.
func MorningSummary(held []store.Held, loc *time.Location) string {
	type story struct {
		title, last   string
		opened, ended bool
		first, lastAt time.Time
		updates       int
	}
	var order []string
	stories := map[string]*story{}
	for _, h := range held {
		s, ok := stories[h.Story]
		if !ok {
			s = &story{title: h.Title, first: h.EventAt}
			stories[h.Story] = s
			order = append(order, h.Story)
		}
		s.opened = s.opened || h.Opens
		// A story that reopened after its end is open again.
		s.ended = h.Ends
		s.last, s.lastAt = h.Summary, h.EventAt
		s.updates++
	}
	var opened, open, resolved []string
	for _, k := range order {
		s := stories[k]
		line := "• <b>" + html.EscapeString(s.title) + "</b>: " + html.EscapeString(s.last) +
			" (" + message.TimeHTML(s.lastAt, loc, "Jan 2 15:04", message.FormatDateTime) + plural(s.updates) + ")"
		switch {
		case s.ended:
			resolved = append(resolved, line)
		case s.opened:
			opened = append(opened, line)
		default:
			open = append(open, line)
		}
	}
	var b strings.Builder
	b.WriteString("☀️ <b>Morning summary</b>: what happened during your quiet hours")
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n\n<b>" + title + "</b>\n" + strings.Join(lines, "\n"))
	}
	section("Opened, still open", opened)
	section("Still open", open)
	section("Resolved meanwhile", resolved)
	return b.String()
}

func plural(updates int) string {
	if updates == 1 {
		return ""
	}
	return ", " + strconv.Itoa(updates) + " updates"
}
