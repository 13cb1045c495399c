package screens

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// How the page's components and a chat's settings are named, in the
// screens and in the commands' replies (Telegram HTML).

// maxNameLen cuts page-provided names (component, incident) in replies.
const maxNameLen = 200

// ReplyBudget keeps replies under Telegram's 4096 limit with room for a
// footer; lengths are counted in UTF-16 code units of the raw HTML, which
// is never less than what Telegram counts.
const ReplyBudget = 3900

// EscName escapes a page-provided name, cut to maxNameLen runes.
func EscName(s string) string {
	r := []rune(s)
	if len(r) > maxNameLen {
		s = string(r[:maxNameLen-1]) + "…"
	}
	return message.Escape(s)
}

func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if l := utf16.RuneLen(r); l > 0 {
			n += l
		} else {
			n++
		}
	}
	return n
}

func KindList(kinds []event.Kind) string {
	if len(kinds) == 0 {
		kinds = event.DefaultKinds
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = message.Escape(string(k))
	}
	return strings.Join(parts, ", ")
}

// FilterList shows a component filter by names; an entry the page does
// not list (an old name record, or a removed component) is shown as is.
func FilterList(filter []string, names map[string]string) string {
	if len(filter) == 0 {
		return "all components"
	}
	parts := make([]string, 0, len(filter))
	for _, f := range filter {
		if n, ok := names[f]; ok {
			parts = append(parts, EscName(n))
		} else if names == nil {
			parts = append(parts, "<code>"+EscName(f)+"</code>")
		} else {
			parts = append(parts, "<code>"+EscName(f)+"</code> (not on the status page)")
		}
	}
	return strings.Join(parts, ", ")
}

// Components returns the page's components without group rows, each ID
// once (first row wins), in page order.
func Components(p *statuspage.Page) []statuspage.Component {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []statuspage.Component
	for _, c := range p.Components {
		if c.Group || c.ID == "" || seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		out = append(out, c)
	}
	return out
}

// ComponentNames maps IDs to display names; a name two components share
// gets its group ("Login (ChatGPT)"), or else the ID, appended so the user
// can tell them apart.
func ComponentNames(comps []statuspage.Component) map[string]string {
	count, inGroup := map[string]int{}, map[string]int{}
	for _, c := range comps {
		count[c.Name]++
		inGroup[c.Name+"\x00"+c.GroupName]++
	}
	out := make(map[string]string, len(comps))
	for _, c := range comps {
		name := c.Name
		if strings.TrimSpace(name) == "" {
			name = c.ID
		}
		switch {
		case count[c.Name] > 1 && c.GroupName != "" && inGroup[c.Name+"\x00"+c.GroupName] == 1:
			name += " (" + c.GroupName + ")"
		case count[c.Name] > 1:
			name += " (" + c.ID + ")"
		}
		out[c.ID] = name
	}
	return out
}

func reminderMinutes(s store.Settings) int {
	if s.ReminderMinutes == 0 {
		return store.DefaultReminderMinutes
	}
	return s.ReminderMinutes
}

func ZoneName(s store.Settings) string {
	if s.TimeZone == "" {
		return "UTC"
	}
	return s.TimeZone
}

// utf16Cut keeps a screen's text within the reply budget.
func utf16Cut(s string) string {
	if UTF16Len(s) > ReplyBudget {
		return message.Truncate(s, ReplyBudget)
	}
	return s
}

// Summary lists the settings, for /info and the keyboard.
func Summary(sub *store.Subscriber, names map[string]string) string {
	s := sub.Settings
	sev := "everything"
	if s.MinSeverity == store.SeverityOutage {
		sev = "outages and major incidents only"
		if s.BelowSilent {
			sev += "; the rest silently"
		}
	}
	quiet := "off"
	if s.QuietStart != "" {
		quiet = s.QuietStart + "–" + s.QuietEnd + ", resolutions "
		if s.QuietHold {
			quiet = s.QuietStart + "–" + s.QuietEnd + ", held: one morning summary at " + s.QuietEnd
		} else if s.QuietResolutions {
			quiet += "silent"
		} else {
			quiet += "with sound"
		}
	}
	mode := "one message per update"
	if s.Cards() {
		mode = "incident cards"
		if s.PinCards {
			mode += ", pinned while open"
		}
	}
	ring := RingNewsLine
	if s.RingEvery {
		ring = RingEveryLine
	}
	rem := "off"
	if !s.NoReminders {
		rem = strconv.Itoa(reminderMinutes(s)) + " minutes before"
	}
	return strings.Join([]string{
		"<b>Notice types:</b> " + KindList(sub.Kinds),
		"<b>Components:</b> " + FilterList(sub.Components, names),
		"<b>Severity:</b> " + sev,
		"<b>Quiet hours:</b> " + message.Escape(quiet),
		"<b>Time zone:</b> " + message.Escape(ZoneName(s)),
		"<b>Delivery:</b> " + mode,
		ring,
		"<b>Maintenance reminders:</b> " + rem,
	}, "\n")
}

// The ring choice as Summary shows it (issue 28's rule: notice.News).
const (
	RingNewsLine  = "<b>Sound:</b> news rings (a new incident, a status or impact change, the end); other updates come silently"
	RingEveryLine = "<b>Sound:</b> every update rings"
)

// CountOf is "1 chosen component", "2 chosen components".
func CountOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
