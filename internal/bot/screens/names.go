package screens

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
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

func KindList(kinds []event.Kind) string { return KindListIn(i18n.Of(i18n.Default), kinds) }

// KindListIn names notice kinds in c's language (English: as typed).
func KindListIn(c i18n.Catalog, kinds []event.Kind) string {
	if len(kinds) == 0 {
		kinds = event.DefaultKinds
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		name := c.T("kind." + string(k))
		if name == "kind."+string(k) { // a kind no catalog names
			name = string(k)
		}
		parts[i] = message.Escape(name)
	}
	return strings.Join(parts, ", ")
}

// FilterList shows a component filter by names; an entry the page does
// not list (an old name record, or a removed component) is shown as is.
func FilterList(filter []string, names map[string]string) string {
	return FilterListIn(i18n.Of(i18n.Default), filter, names)
}

// FilterListIn is FilterList in c's language.
func FilterListIn(c i18n.Catalog, filter []string, names map[string]string) string {
	if len(filter) == 0 {
		return c.T("filter.all")
	}
	parts := make([]string, 0, len(filter))
	for _, f := range filter {
		if n, ok := names[f]; ok {
			parts = append(parts, EscName(n))
		} else if names == nil {
			parts = append(parts, "<code>"+EscName(f)+"</code>")
		} else {
			parts = append(parts, c.T("filter.notOnPage", "Code", "<code>"+EscName(f)+"</code>"))
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

// Summary is SummaryIn in English.
func Summary(sub *store.Subscriber, names map[string]string) string {
	return SummaryIn(i18n.Of(i18n.Default), sub, names)
}

// SummaryIn lists the settings in c's language, for /info and the
// keyboard: a line per setting, "label: value".
func SummaryIn(c i18n.Catalog, sub *store.Subscriber, names map[string]string) string {
	s := sub.Settings
	sev := "sev.all"
	if s.MinSeverity == store.SeverityOutage {
		sev = "sev.outage"
		if s.BelowSilent {
			sev = "sev.outageSilent"
		}
	}
	quiet := c.T("quiet.off")
	if s.QuietStart != "" {
		id := "quiet.loudRes"
		switch {
		case s.QuietHold:
			id = "quiet.hold"
		case s.QuietResolutions:
			id = "quiet.silentRes"
		}
		quiet = c.T(id, "Start", message.Escape(s.QuietStart), "End", message.Escape(s.QuietEnd))
	}
	mode := "mode.messages"
	if s.Cards() {
		mode = "mode.cards"
		if s.PinCards {
			mode = "mode.cardsPinned"
		}
	}
	ring := "sum.ringNews"
	if s.RingEvery {
		ring = "sum.ringEvery"
	}
	rem := c.T("rem.off")
	if !s.NoReminders {
		rem = c.N("rem.before", reminderMinutes(s))
	}
	return strings.Join([]string{
		c.T("sum.kinds", "Kinds", KindListIn(c, sub.Kinds)),
		c.T("sum.components", "List", FilterListIn(c, sub.Components, names)),
		c.T("sum.severity", "Value", c.T(sev)),
		c.T("sum.quiet", "Value", quiet),
		c.T("sum.zone", "Zone", message.Escape(ZoneName(s))),
		c.T("sum.delivery", "Value", c.T(mode)),
		c.T(ring),
		c.T("sum.reminders", "Value", rem),
	}, "\n")
}

// The ring choice as Summary shows it (issue 28's rule: notice.News).
var (
	RingNewsLine  = i18n.Of(i18n.Default).T("sum.ringNews")
	RingEveryLine = i18n.Of(i18n.Default).T("sum.ringEvery")
)

// CountOf is "1 chosen component", "2 chosen components".
func CountOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
