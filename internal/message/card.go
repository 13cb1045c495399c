package message

import (
	"sort"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Step is one entry of an incident card's status timeline.
type Step struct {
	Status string    `json:"status"`
	At     time.Time `json:"at"`
	// Text is the update's text as the page has it now (an edit shows
	// here); the card shows the start of it for every step but the latest,
	// whose whole text is the card's "Latest".
	Text string `json:"text,omitempty"`
	// Component: the step is a note that one of the incident's components
	// changed status (Status is the component's new status), folded into
	// the card instead of a notice of its own.
	Component string `json:"component,omitempty"`
}

// ComponentState is one of the incident's components with its status as
// the page last showed it.
type ComponentState struct {
	Name   string `json:"name"`
	Status string `json:"status,omitempty"`
}

// maxCardComponents bounds the components a card lists one by one.
const maxCardComponents = 12

// maxSteps bounds the timeline a card shows: the first update and the
// latest ones, with a line saying how many were left out.
const maxSteps = 30

// Timeline is the status timeline of the incident up to the event's place
// in the story, from the page as last read: the updates handed over up to
// and including the event (up to its CardAt; events from before CardAt:
// up to its own time). The event's own update is always there, as the
// event has it.
func Timeline(inc *statuspage.Incident, e event.Event) []Step {
	steps, _ := story(inc, e)
	return steps
}

// CardState is the incident as its card shows it at the event: the
// newest update of the timeline (the event's own, as the event has it,
// unless a later one was handed over before it: an edit of an old update
// never moves the card back), with the event's incident-wide fields.
func CardState(inc *statuspage.Incident, e event.Event) event.Event {
	_, latest := story(inc, e)
	return latest
}

func story(inc *statuspage.Incident, e event.Event) ([]Step, event.Event) {
	cut := e.At
	if e.CardAt != nil && e.CardAt.After(cut) {
		cut = *e.CardAt
	}
	latest := e
	var steps []Step
	seen := false
	if inc != nil {
		for _, u := range inc.Updates {
			at := event.UpdateAt(u)
			if u.ID == e.UpdateID {
				seen = true
				steps = append(steps, Step{Status: e.UpdateStatus, At: e.At, Text: e.Body})
				continue
			}
			if at.After(cut) {
				continue
			}
			steps = append(steps, Step{Status: u.Status, At: at, Text: u.Body})
			if at.After(latest.At) {
				latest.UpdateStatus, latest.Body, latest.At = u.Status, u.Body, at
			}
		}
	}
	if !seen {
		steps = append(steps, Step{Status: e.UpdateStatus, At: e.At, Text: e.Body})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].At.Before(steps[j].At) })
	return steps, latest
}

// Final reports whether an incident update closes the incident.
func Final(status string) bool {
	return status == "resolved" || status == "postmortem" || status == "completed"
}

// Card is the incident card: one message per incident and chat, edited as
// the incident moves on. It shows the name, impact, affected components,
// the status timeline (UTC) and the latest update's text.
func Card(e event.Event, steps []Step) string { return CardIn(e, steps, time.UTC) }

// CardIn is the card with its timeline in loc (nil is UTC), the zone named
// in the timeline's heading ("Timeline (Europe/Berlin)").
func CardIn(e event.Event, steps []Step, loc *time.Location) string {
	return CardOf(e, steps, nil, loc)
}

// CardOf is CardOfIn in English.
func CardOf(e event.Event, steps []Step, comps []ComponentState, loc *time.Location) string {
	return CardOfIn(en, e, steps, comps, loc)
}

// CardOfIn is the card with the affected components' statuses, one line
// each (comps; none: the names the event lists), and the timeline in loc,
// its frame in c's language; the page's words (names, texts) as written.
func CardOfIn(c i18n.Catalog, e event.Event, steps []Step, comps []ComponentState, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	header := c.T("card.header")
	if Final(e.UpdateStatus) {
		header = c.T("card.headerResolved")
	}
	name := firstNonEmpty(e.IncidentName, c.T("card.untitled"))
	segs := []segment{
		static(header + "\n\n<b>"),
		short(Escape(name), maxNameLen),
		static("</b>\n" + c.T("card.impactStatus",
			"Impact", Escape(truncateRunes(LabelIn(c, e.Impact), maxLabelLen)),
			"Status", Escape(truncateRunes(LabelIn(c, e.UpdateStatus), maxLabelLen)))),
	}
	switch {
	case len(comps) > 0:
		segs = append(segs, static("\n"+c.T("card.components")))
		for i, cs := range comps {
			if i == maxCardComponents {
				segs = append(segs, static("\n"+c.N("card.more", len(comps)-maxCardComponents)))
				break
			}
			segs = append(segs, static("\n"+statusDot(cs.Status)+" "), short(Escape(cs.Name), maxLabelLen),
				static(": "), short(Escape(LabelIn(c, firstNonEmpty(cs.Status, "unknown"))), maxLabelLen))
		}
	case len(e.ComponentNames) > 0:
		segs = append(segs, static("\n"+c.T("card.componentsLabel")+" "), short(Escape(strings.Join(e.ComponentNames, ", ")), maxNameLen))
	}
	// The page's text goes on a line of its own after a right-to-left
	// label: Telegram lays a line out by its first strong character.
	sep := " "
	if c.RTL() {
		sep = "\n"
	}
	segs = append(segs, static("\n\n"+c.T("card.timeline", "Zone", Escape(loc.String()))+"\n"+timelineHTML(c, steps, loc)+"\n\n"+c.T("card.latest")+sep))
	body := bodyHTML(c, e.Body)
	segs = append(segs, segment{html: body, body: true})
	if l := Link(e.URL, c.T("card.view")); l != "" {
		segs = append(segs, static("\n\n"+l))
	}
	return assemble(segs)
}

// en is the English catalog, of the exported English renderings.
var en = i18n.Of(i18n.Default)

// LabelIn is a status or impact as c's language names it (statuspage.Label
// in English; a status no catalog names, as the page wrote it).
func LabelIn(c i18n.Catalog, status string) string {
	id := "label." + status
	switch status {
	case "":
		id = "label.unknown"
	case "full_outage":
		id = "label.major_outage"
	}
	if s := c.T(id); s != id {
		return s
	}
	return statuspage.Label(status)
}

// timelineHTML renders at most maxSteps steps: the first and the latest,
// each but the newest with the start of its text (shorter the more steps
// there are, so the timeline stays a fraction of a message).
func timelineHTML(c i18n.Catalog, steps []Step, loc *time.Location) string {
	excerpt := min(maxExcerpt, max(minExcerpt, timelineBudget/max(1, min(len(steps), maxSteps))))
	newest := len(steps) - 1
	layout := c.T("time.card")
	var lines []string
	line := func(i int) string {
		s := steps[i]
		at := TimeHTML(s.At, loc, layout, FormatDateTime)
		l := "• " + at + " " + Escape(truncateRunes(LabelIn(c, s.Status), maxLabelLen))
		if s.Component != "" {
			l = "• " + at + " " + Escape(truncateRunes(s.Component, maxLabelLen)) + ": " +
				Escape(truncateRunes(LabelIn(c, s.Status), maxLabelLen))
			return l
		}
		if text := firstLine(PageText(c, s.Text)); text != "" && i != newest {
			l += " — " + Escape(truncateRunes(text, excerpt))
		}
		return l
	}
	first := 0
	if len(steps) > maxSteps {
		lines = append(lines, line(0), c.N("card.more", len(steps)-maxSteps))
		first = len(steps) - maxSteps + 1
	}
	for i := first; i < len(steps); i++ {
		lines = append(lines, line(i))
	}
	return strings.Join(lines, "\n")
}

// statusDot marks a component's status at a glance.
func statusDot(status string) string {
	switch status {
	case "operational":
		return "🟢"
	case "degraded_performance":
		return "🟡"
	case "partial_outage":
		return "🟠"
	case "major_outage", "full_outage":
		return "🔴"
	case "under_maintenance":
		return "🔧"
	}
	return "⚪"
}

// WithNotes is the timeline with the component notes placed by time.
func WithNotes(steps, notes []Step) []Step {
	if len(notes) == 0 {
		return steps
	}
	out := append(append([]Step{}, steps...), notes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// Excerpts of the timeline, in runes.
const (
	minExcerpt     = 40
	maxExcerpt     = 100
	timelineBudget = 1500
)

// firstLine is a text's first paragraph on one line.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// CardReply is CardReplyIn in English.
func CardReply(e event.Event, edited bool) string { return CardReplyIn(en, e, edited) }

// CardReplyIn is the reply under the card for a later update: its status
// and full text, so members see what changed without opening the card, in
// c's language. edited says the page changed the text of an update
// already shown.
func CardReplyIn(c i18n.Catalog, e event.Event, edited bool) string {
	status := Escape(truncateRunes(LabelIn(c, e.UpdateStatus), maxLabelLen))
	header := "🔄 <b>" + status + "</b>"
	switch {
	case edited:
		header = c.T("card.edited", "Status", status)
	case Final(e.UpdateStatus):
		header = "✅ <b>" + status + "</b>"
	}
	body := bodyHTML(c, e.Body)
	segs := []segment{static(header + "\n\n"), {html: body, body: true}}
	if earlier := EarlierOf(c, e, time.UTC); earlier != "" && !edited {
		segs = append(segs, static("\n\n"+earlier))
	}
	return assemble(segs)
}
