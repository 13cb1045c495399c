package activities

import (
	"html"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// SummaryPart is one message of a morning summary and the held notices it
// tells: once Telegram accepts it, those are told and forgotten, whatever
// happens to the parts after it.
type SummaryPart struct {
	Text string
	Told []store.Held
}

// summaryLimit keeps a part under Telegram's 4,096 characters, visible and
// raw, with room to spare.
const summaryLimit = message.MaxLength - 96

// summaryLineLimit bounds one story's line (a page's long incident name and
// update on one line), so that any line fits a part with its headings.
const summaryLineLimit = 1000

// MorningSummary is what a held window ends with: its stories (incidents,
// maintenances, components) in the order first heard, sorted into what
// opened and is still open, what was already open and still is, and what
// resolved meanwhile, each with its last held step and a count of the
// others. It fits whatever the night was:
//   - one message with a line per story when that fits;
//   - else the components of each section on one line of names (an
//     outage of 45 components is one fact, not 45);
//   - else as few messages as hold those lines, every story told whole in
//     one of them.
//
// continued: an earlier part of the same summary already went out (the
// first part of what is left is headed as a continuation).
func MorningSummary(held []store.Held, loc *time.Location, continued bool) []SummaryPart {
	return MorningSummaryIn(i18n.Of(i18n.Default), held, loc, continued)
}

// MorningSummaryIn is MorningSummary in c's language (the page's own
// words, titles and updates, as the page wrote them).
func MorningSummaryIn(c i18n.Catalog, held []store.Held, loc *time.Location, continued bool) []SummaryPart {
	stories := storiesOf(held)
	if len(stories) == 0 {
		return nil
	}
	full := summaryItems(c, stories, loc, false)
	if parts := packSummary(c, full, continued); len(parts) == 1 {
		return parts
	}
	return packSummary(c, summaryItems(c, stories, loc, true), continued)
}

// heldStory is one story of a held window.
type heldStory struct {
	title, last   string
	component     bool
	opened, ended bool
	lastAt        time.Time
	held          []store.Held
}

// section is where a story goes in the summary, in the summary's order.
func (s *heldStory) section() int {
	switch {
	case s.ended:
		return sectionResolved
	case s.opened:
		return sectionOpened
	}
	return sectionOpen
}

const (
	sectionOpened = iota
	sectionOpen
	sectionResolved
)

// sectionTitles are the catalog keys of the sections' titles.
var sectionTitles = [...]string{"summary.opened", "summary.open", "summary.resolved"}

func storiesOf(held []store.Held) []*heldStory {
	var order []*heldStory
	byKey := map[string]*heldStory{}
	for _, h := range held {
		s, ok := byKey[h.Story]
		if !ok {
			s = &heldStory{title: h.Title, component: keyIs(h.Story, event.KindComponent)}
			byKey[h.Story] = s
			order = append(order, s)
		}
		s.opened = s.opened || h.Opens
		// A story that reopened after its end is open again.
		s.ended = h.Ends
		s.last, s.lastAt = h.Summary, h.EventAt
		s.held = append(s.held, h)
	}
	return order
}

// summaryItem is one line of a summary, in its section, and what it tells.
type summaryItem struct {
	section int
	line    string
	told    []store.Held
}

// summaryItems renders the stories' lines, section by section; condensed,
// each section's components share lines of names.
func summaryItems(c i18n.Catalog, stories []*heldStory, loc *time.Location, condensed bool) []summaryItem {
	var items []summaryItem
	for sec := range sectionTitles {
		var components []*heldStory
		for _, s := range stories {
			if s.section() != sec {
				continue
			}
			if condensed && s.component {
				components = append(components, s)
				continue
			}
			line := "• <b>" + html.EscapeString(s.title) + "</b>: " + html.EscapeString(s.last) +
				" (" + message.TimeHTML(s.lastAt, loc, c.T("time.card"), message.FormatDateTime) + updates(c, len(s.held)) + ")"
			items = append(items, summaryItem{section: sec, line: message.Truncate(line, summaryLineLimit), told: s.held})
		}
		items = append(items, componentLines(c, sec, components)...)
	}
	return items
}

// componentLines names a section's components on as few lines as fit a
// part: "• Components (45): API, Files, …", with each component's number
// of changes where it had more than its trip and recovery.
func componentLines(c i18n.Catalog, sec int, components []*heldStory) []summaryItem {
	if len(components) == 0 {
		return nil
	}
	label := "• <b>" + c.N("summary.components", len(components)) + "</b>: "
	var items []summaryItem
	cur := summaryItem{section: sec, line: label}
	for _, s := range components {
		name := html.EscapeString(s.title)
		if n := len(s.held); n > 2 {
			name += " (" + c.N("summary.changes", n) + ")"
		}
		name = message.Truncate(name, summaryLineLimit)
		sep := ", "
		if len(cur.told) == 0 {
			sep = ""
		}
		if len(cur.told) > 0 && !fitsSummary(cur.line+sep+name, summaryLineLimit*3) {
			items = append(items, cur)
			cur, sep = summaryItem{section: sec, line: "• "}, ""
		}
		cur.line += sep + name
		cur.told = append(cur.told, s.held...)
	}
	return append(items, cur)
}

// packSummary puts the items into as few parts as hold them, each part
// headed and its sections titled.
func packSummary(c i18n.Catalog, items []summaryItem, continued bool) []SummaryPart {
	var parts []SummaryPart
	var b strings.Builder
	var told []store.Held
	section := -1
	start := func() {
		b.Reset()
		told, section = nil, -1
		if continued || len(parts) > 0 {
			b.WriteString(c.T("summary.continued"))
		} else {
			b.WriteString(c.T("summary.title"))
		}
	}
	start()
	for _, it := range items {
		add := it.line
		if it.section != section {
			add = "\n\n<b>" + c.T(sectionTitles[it.section]) + "</b>\n" + add
		} else {
			add = "\n" + add
		}
		if len(told) > 0 && !fitsSummary(b.String()+add, summaryLimit) {
			parts = append(parts, SummaryPart{Text: b.String(), Told: told})
			start()
			add = "\n\n<b>" + c.T(sectionTitles[it.section]) + "</b>\n" + it.line
		}
		b.WriteString(add)
		section = it.section
		told = append(told, it.told...)
	}
	return append(parts, SummaryPart{Text: b.String(), Told: told})
}

// fitsSummary: within limit as Telegram counts (visible UTF-16 units) and
// as raw characters (tags included).
func fitsSummary(s string, limit int) bool {
	return utf8.RuneCountInString(s) <= limit && message.VisibleLength(s) <= limit
}

// updates counts a story's held steps after its time: nothing for one.
func updates(c i18n.Catalog, n int) string {
	if n == 1 {
		return ""
	}
	return ", " + c.N("summary.updates", n)
}
