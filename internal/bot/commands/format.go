package commands

import (
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Every reply is Telegram HTML. Dynamic text goes through esc (escaping,
// invalid UTF-8 replaced) and long values are cut before escaping, so tags
// stay balanced; lists stop on a line boundary before the message limit.

// escEcho quotes a user's value back, cut and escaped.
func escEcho(s string) string { return message.Escape(echo(s)) }

// bounded joins head, lines and foot, dropping the lines that do not fit
// the reply budget and saying how many were left out.
func bounded(head string, lines []string, foot string) string {
	used := screens.UTF16Len(head) + screens.UTF16Len(foot) + 40
	var b strings.Builder
	b.WriteString(head)
	for i, l := range lines {
		n := screens.UTF16Len(l) + 1
		if used+n > screens.ReplyBudget {
			b.WriteString("\n…and " + strconv.Itoa(len(lines)-i) + " more.")
			break
		}
		used += n
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	if foot != "" {
		b.WriteString("\n\n" + foot)
	}
	return b.String()
}

// place names where the command came from, for replies.
func place(topic, channel bool) string {
	switch {
	case topic:
		return "this topic"
	case channel:
		return "this channel"
	}
	return "this chat"
}

// capitalize upper-cases the first letter (of any script: a menu
// description may be Cyrillic).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Fixed replies, in English (the catalogs have them in every language).
var (
	ReplyUnknown    = en.T("reply.unknown")
	ReplyNotAdmin   = en.T("reply.notAdmin")
	ReplyAdminError = en.T("reply.adminError")
	ReplyStoreError = en.T("reply.storeError")
	ReplyNoPage     = en.T("reply.noPage")
)

// NotSubscribedReply is NotSubscribedIn in English.
func NotSubscribedReply(topic, channel bool) string { return NotSubscribedIn(en, topic, channel) }

// NotSubscribedIn says the chat (topic, channel) is not subscribed.
func NotSubscribedIn(c i18n.Catalog, topic, channel bool) string {
	return c.T("notSubscribed." + placeKey(topic, channel))
}

// staleNote is added when a reply uses an old snapshot because the page
// could not be fetched.
func staleNote(at time.Time, loc *time.Location) string {
	return "<i>The status page could not be reached; this is the status as of " + notice.FormatTimeHTML(at, loc) + ".</i>"
}

// statusOverview answers /status without arguments.
func statusOverview(p *statuspage.Page) string {
	name := p.Name
	if strings.TrimSpace(name) == "" {
		name = "OpenAI"
	}
	desc := p.Description
	if strings.TrimSpace(desc) == "" {
		desc = statuspage.Label(p.Indicator)
	}
	head := "<b>" + screens.EscName(name) + " status:</b> " + screens.EscName(desc)
	if p.ComponentsErr != "" {
		return head + "\nComponent statuses are unavailable right now."
	}
	var lines []string
	comps := screens.Components(p)
	names := screens.ComponentNames(comps)
	for _, c := range comps {
		if c.Status != "operational" {
			lines = append(lines, "• "+screens.EscName(names[c.ID])+": "+screens.EscName(statuspage.Label(c.Status)))
		}
	}
	if len(lines) == 0 {
		return head + "\nAll components are operational."
	}
	return bounded(head+"\n\n<b>Components not operational</b>", lines, "")
}

// componentStatus answers /status <component>.
func componentStatus(c statuspage.Component) string { return componentStatusIn(c, time.UTC) }

// componentStatusIn shows the time in the chat's zone.
func componentStatusIn(c statuspage.Component, loc *time.Location) string {
	s := "<b>" + screens.EscName(c.Name) + ":</b> " + screens.EscName(statuspage.Label(c.Status))
	s += "\nLast change: " + notice.FormatTimeHTML(c.UpdatedAt, loc)
	return s
}

// componentsList answers /components.
func componentsList(p *statuspage.Page) string {
	if p.ComponentsErr != "" {
		return "Component statuses are unavailable right now. Please try again later."
	}
	comps := screens.Components(p)
	if len(comps) == 0 {
		return "The status page lists no components."
	}
	names := screens.ComponentNames(comps)
	lines := make([]string, 0, len(comps))
	group := ""
	for _, c := range comps {
		if c.GroupName != group {
			// The page's own grouping (APIs, ChatGPT, Codex, ...).
			group = c.GroupName
			header := group
			if header == "" {
				header = "Other"
			}
			lines = append(lines, "\n<b>"+screens.EscName(header)+"</b>")
		}
		lines = append(lines, "• "+screens.EscName(names[c.ID])+": "+screens.EscName(statuspage.Label(c.Status)))
	}
	return bounded("<b>Components</b>", lines, "Filter notices with /subscribe component &lt;name&gt;.")
}

// ambiguousReply lists the components a query matched by the names
// /components shows, which can be typed back.
func ambiguousReply(query string, found []statuspage.Component, names map[string]string, buttons bool) string {
	lines := make([]string, len(found))
	for i, c := range found {
		n := names[c.ID]
		if n == "" {
			n = c.Name
		}
		lines[i] = "• " + screens.EscName(n)
	}
	head := "“" + escEcho(query) + "” matches several components. Type its name as shown:"
	if buttons {
		head = "“" + escEcho(query) + "” matches several components. Tap one, or type its name as shown:"
	}
	return bounded(head, lines, "")
}

func notFoundReply(query string) string {
	return "No component matches “" + escEcho(query) + "”. See /components for the list."
}

// historyReply answers /history: the n most recent incidents, newest first.
func historyReply(p *statuspage.Page, n int) string { return historyReplyIn(p, n, time.UTC) }

// historyReplyIn shows times in the chat's zone.
func historyReplyIn(p *statuspage.Page, n int, loc *time.Location) string {
	// Incidents only: maintenances are announced, not incidents.
	var incs []statuspage.Incident
	for _, inc := range p.Incidents {
		if !inc.IsMaintenance() {
			incs = append(incs, inc)
		}
	}
	// The maintenances may have been read when the incidents were not.
	if p.IncidentsErr != "" && len(incs) == 0 {
		return "Incident history is unavailable right now. Please try again later."
	}
	sort.SliceStable(incs, func(i, j int) bool {
		if !incs[i].CreatedAt.Equal(incs[j].CreatedAt) {
			return incs[i].CreatedAt.After(incs[j].CreatedAt)
		}
		return incs[i].ID > incs[j].ID
	})
	if len(incs) == 0 {
		return "No recent incidents."
	}
	incs = incs[:min(n, len(incs))]
	lines := make([]string, 0, len(incs))
	for i, inc := range incs {
		title := inc.Name
		if strings.TrimSpace(title) == "" {
			title = "Untitled incident"
		}
		entry := "<b>" + strconv.Itoa(i+1) + ". " + screens.EscName(title) + "</b>\n" +
			"Impact: " + screens.EscName(statuspage.Label(inc.Impact)) + " · Status: " + screens.EscName(statuspage.Label(inc.Status)) + "\n" +
			"Created: " + notice.FormatTimeHTML(inc.CreatedAt, loc)
		url := inc.Shortlink
		if message.Link(url, "x") == "" {
			url = strings.TrimRight(p.URL, "/") + "/incidents/" + inc.ID
		}
		if l := message.Link(url, "Details"); l != "" {
			entry += "\n" + l
		}
		lines = append(lines, entry+"\n")
	}
	head := "<b>Recent incidents</b>\n"
	return strings.TrimRight(bounded(head, lines, ""), "\n")
}

// uptimeReply answers /uptime.
// UptimeByPage is /uptime for the pages a command covers: with several,
// a section per page under its name, each component named as that page's
// /components names it (not the merged page's "Login (openai · ChatGPT)").
func UptimeByPage(ups []ComponentUptime, parts []pageset.Part) string {
	if len(parts) < 2 {
		return uptimeReply(ups)
	}
	byID := make(map[string]ComponentUptime, len(ups))
	for _, u := range ups {
		byID[u.Component.ID] = u
	}
	return sections(parts, func(p pageset.Part) string {
		var own []ComponentUptime
		for _, c := range screens.Components(p.Page) {
			if u, ok := byID[pages.Scope(p.EventPage, c.ID)]; ok {
				own = append(own, ComponentUptime{Component: c, Fractions: u.Fractions})
			}
		}
		return uptimeReply(own)
	}, true)
}

func uptimeReply(ups []ComponentUptime) string {
	if len(ups) == 0 {
		return "The status page lists no components."
	}
	names := make([]statuspage.Component, len(ups))
	for i, u := range ups {
		names[i] = u.Component
	}
	display := screens.ComponentNames(names)
	lines := make([]string, len(ups))
	for i, u := range ups {
		parts := make([]string, len(u.Fractions))
		for j, f := range u.Fractions {
			parts[j] = formatPercent(f)
		}
		lines[i] = "• " + screens.EscName(display[u.Component.ID]) + ": " + strings.Join(parts, " · ")
	}
	return bounded("<b>Uptime</b> (last 24 hours · 7 days · 30 days)", lines,
		"<i>Operational and under maintenance count as up; degraded performance and outages as down.</i>")
}

// infoReplyIn answers /info in c's language: the IDs, whether and since
// when the chat is subscribed, its language and its settings. names is nil
// when the page is unavailable.
func infoReplyIn(c i18n.Catalog, chatID int64, thread int, sub *store.Subscriber, names map[string]string) string {
	var b strings.Builder
	b.WriteString(c.T("info.chat", "ID", strconv.FormatInt(chatID, 10)))
	if thread != 0 {
		b.WriteString("\n" + c.T("info.topic", "ID", strconv.Itoa(thread)))
	}
	if sub == nil {
		b.WriteString("\n" + c.T("info.notSubscribed"))
		return b.String()
	}
	b.WriteString("\n" + c.T("info.since", "When", message.Escape(notice.FormatTime(sub.CreatedAt, notice.Zone(sub.Settings)))))
	b.WriteString("\n" + c.T("info.language", "Name", i18n.Name(i18n.Of(sub.Settings.Lang).Tag())))
	b.WriteString("\n" + screens.SummaryIn(c, sub, names))
	s := b.String()
	if screens.UTF16Len(s) > screens.ReplyBudget {
		s = message.Truncate(s, screens.ReplyBudget)
	}
	return s
}

// subscribeUsage answers /subscribe without arguments.
func subscribeUsage(sub *store.Subscriber, names map[string]string, topic, channel bool) string {
	s := SubscribeHelp()
	if sub == nil {
		return s + "\n\n" + NotSubscribedReply(topic, channel)
	}
	s += "\n\n<b>Current settings</b>\nNotice types: " + screens.KindList(sub.Kinds) +
		"\nComponents: " + screens.FilterList(sub.Components, names)
	if screens.UTF16Len(s) > screens.ReplyBudget {
		s = message.Truncate(s, screens.ReplyBudget)
	}
	return s
}

func SubscribeHelp() string {
	return strings.Join([]string{
		"<b>Usage</b>",
		"/subscribe incident|component|maintenance|all — notice types (several at once: /subscribe incident maintenance)",
		"/subscribe component &lt;name or ID&gt; — add a component to the filter",
		"/subscribe component remove &lt;name or ID&gt; — drop one component from the filter",
		"/subscribe component all — clear the filter: every component",
	}, "\n")
}

func kindsReply(kinds []event.Kind) string {
	return "Notice types set to: " + screens.KindList(kinds) + "."
}
