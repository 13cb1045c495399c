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
// c says how many in its language.
func bounded(c i18n.Catalog, head string, lines []string, foot string) string {
	used := screens.UTF16Len(head) + screens.UTF16Len(foot) + 40
	var b strings.Builder
	b.WriteString(head)
	for i, l := range lines {
		n := screens.UTF16Len(l) + 1
		if used+n > screens.ReplyBudget {
			b.WriteString("\n" + c.N("list.more", len(lines)-i))
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
func staleNote(at time.Time, loc *time.Location) string { return staleNoteIn(en, at, loc) }

func staleNoteIn(c i18n.Catalog, at time.Time, loc *time.Location) string {
	return c.T("reply.stale", "When", notice.FormatTimeHTMLIn(c, at, loc))
}

// statusOverview answers /status without arguments.
func statusOverview(p *statuspage.Page) string { return statusOverviewIn(en, p) }

// statusOverviewIn is statusOverview in c's language; the page's own
// description and names stay as it wrote them.
func statusOverviewIn(c i18n.Catalog, p *statuspage.Page) string {
	name := p.Name
	if strings.TrimSpace(name) == "" {
		name = "OpenAI"
	}
	desc := p.Description
	if strings.TrimSpace(desc) == "" {
		desc = message.LabelIn(c, p.Indicator)
	}
	head := c.T("status.head", "Page", screens.EscName(name), "Status", screens.EscName(desc))
	if p.ComponentsErr != "" {
		return head + "\n" + c.T("status.componentsDown")
	}
	var lines []string
	comps := screens.Components(p)
	names := screens.ComponentNames(comps)
	for _, comp := range comps {
		if comp.Status != "operational" {
			lines = append(lines, "• "+screens.EscName(names[comp.ID])+": "+screens.EscName(message.LabelIn(c, comp.Status)))
		}
	}
	if len(lines) == 0 {
		return head + "\n" + c.T("status.allUp")
	}
	return bounded(c, head+"\n\n"+c.T("status.downTitle"), lines, "")
}

// componentStatus answers /status <component>.
func componentStatus(c statuspage.Component) string { return componentStatusIn(en, c, time.UTC) }

// componentStatusIn shows the time in the chat's zone, in cat's language.
func componentStatusIn(cat i18n.Catalog, c statuspage.Component, loc *time.Location) string {
	return cat.T("status.component", "Name", screens.EscName(c.Name), "Status", screens.EscName(message.LabelIn(cat, c.Status)),
		"When", notice.FormatTimeHTMLIn(cat, c.UpdatedAt, loc))
}

// componentsList answers /components.
func componentsList(p *statuspage.Page) string { return componentsListIn(en, p) }

// componentsListIn is /components in c's language; the page's group and
// component names as it wrote them.
func componentsListIn(cat i18n.Catalog, p *statuspage.Page) string {
	if p.ComponentsErr != "" {
		return cat.T("reply.componentsDown")
	}
	comps := screens.Components(p)
	if len(comps) == 0 {
		return cat.T("components.none")
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
				header = cat.T("components.other")
			} else {
				header = screens.EscName(header)
			}
			lines = append(lines, "\n<b>"+header+"</b>")
		}
		lines = append(lines, "• "+screens.EscName(names[c.ID])+": "+screens.EscName(message.LabelIn(cat, c.Status)))
	}
	return bounded(cat, cat.T("components.title"), lines, cat.T("components.foot"))
}

// ambiguousReply lists the components a query matched by the names
// /components shows, which can be typed back.
func ambiguousReply(query string, found []statuspage.Component, names map[string]string, buttons bool) string {
	return ambiguousReplyIn(en, query, found, names, buttons)
}

func ambiguousReplyIn(cat i18n.Catalog, query string, found []statuspage.Component, names map[string]string, buttons bool) string {
	lines := make([]string, len(found))
	for i, c := range found {
		n := names[c.ID]
		if n == "" {
			n = c.Name
		}
		lines[i] = "• " + screens.EscName(n)
	}
	head := cat.T("components.ambiguous", "Query", escEcho(query))
	if buttons {
		head = cat.T("components.ambiguousTap", "Query", escEcho(query))
	}
	return bounded(cat, head, lines, "")
}

func notFoundReply(query string) string { return notFoundReplyIn(en, query) }

func notFoundReplyIn(cat i18n.Catalog, query string) string {
	return cat.T("components.notFound", "Query", escEcho(query))
}

// historyReply answers /history: the n most recent incidents, newest first.
func historyReply(p *statuspage.Page, n int) string { return historyReplyIn(en, p, n, time.UTC) }

// historyReplyIn shows times in the chat's zone, in cat's language; the
// incidents' titles as the page wrote them.
func historyReplyIn(cat i18n.Catalog, p *statuspage.Page, n int, loc *time.Location) string {
	// Incidents only: maintenances are announced, not incidents.
	var incs []statuspage.Incident
	for _, inc := range p.Incidents {
		if !inc.IsMaintenance() {
			incs = append(incs, inc)
		}
	}
	// The maintenances may have been read when the incidents were not.
	if p.IncidentsErr != "" && len(incs) == 0 {
		return cat.T("history.down")
	}
	sort.SliceStable(incs, func(i, j int) bool {
		if !incs[i].CreatedAt.Equal(incs[j].CreatedAt) {
			return incs[i].CreatedAt.After(incs[j].CreatedAt)
		}
		return incs[i].ID > incs[j].ID
	})
	if len(incs) == 0 {
		return cat.T("history.none")
	}
	incs = incs[:min(n, len(incs))]
	lines := make([]string, 0, len(incs))
	for i, inc := range incs {
		title := screens.EscName(inc.Name)
		if strings.TrimSpace(inc.Name) == "" {
			title = cat.T("card.untitled")
		}
		entry := cat.T("history.entry", "N", strconv.Itoa(i+1), "Title", title,
			"Impact", screens.EscName(message.LabelIn(cat, inc.Impact)), "Status", screens.EscName(message.LabelIn(cat, inc.Status)),
			"When", notice.FormatTimeHTMLIn(cat, inc.CreatedAt, loc))
		url := inc.Shortlink
		if message.Link(url, "x") == "" {
			url = strings.TrimRight(p.URL, "/") + "/incidents/" + inc.ID
		}
		if l := message.Link(url, cat.T("history.details")); l != "" {
			entry += "\n" + l
		}
		lines = append(lines, entry+"\n")
	}
	head := cat.T("history.title") + "\n"
	return strings.TrimRight(bounded(cat, head, lines, ""), "\n")
}

// uptimeReply answers /uptime.
// UptimeByPage is /uptime for the pages a command covers: with several,
// a section per page under its name, each component named as that page's
// /components names it (not the merged page's "Login (openai · ChatGPT)").
func UptimeByPage(ups []ComponentUptime, parts []pageset.Part) string {
	return UptimeByPageIn(en, ups, parts)
}

// UptimeByPageIn is UptimeByPage in c's language.
func UptimeByPageIn(c i18n.Catalog, ups []ComponentUptime, parts []pageset.Part) string {
	if len(parts) < 2 {
		return uptimeReplyIn(c, ups)
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
		return uptimeReplyIn(c, own)
	}, true)
}

func uptimeReply(ups []ComponentUptime) string { return uptimeReplyIn(en, ups) }

func uptimeReplyIn(c i18n.Catalog, ups []ComponentUptime) string {
	if len(ups) == 0 {
		return c.T("components.none")
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
			parts[j] = formatPercentIn(c.Tag(), f)
		}
		lines[i] = "• " + screens.EscName(display[u.Component.ID]) + ": " + strings.Join(parts, " · ")
	}
	return bounded(c, c.T("uptime.title"), lines, c.T("uptime.foot"))
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
	b.WriteString("\n" + c.T("info.since", "When", message.Escape(notice.FormatTimeIn(c, sub.CreatedAt, notice.Zone(sub.Settings)))))
	b.WriteString("\n" + c.T("info.language", "Name", i18n.Name(i18n.Of(sub.Settings.Lang).Tag())))
	b.WriteString("\n" + screens.SummaryIn(c, sub, names))
	s := b.String()
	if screens.UTF16Len(s) > screens.ReplyBudget {
		s = message.Truncate(s, screens.ReplyBudget)
	}
	return s
}

// subscribeUsage answers /subscribe without arguments.
func subscribeUsageIn(c i18n.Catalog, sub *store.Subscriber, names map[string]string, topic, channel bool) string {
	s := SubscribeHelpIn(c)
	if sub == nil {
		return s + "\n\n" + NotSubscribedIn(c, topic, channel)
	}
	s += "\n\n" + c.T("sub.current", "Kinds", screens.KindListIn(c, sub.Kinds), "List", screens.FilterListIn(c, sub.Components, names))
	if screens.UTF16Len(s) > screens.ReplyBudget {
		s = message.Truncate(s, screens.ReplyBudget)
	}
	return s
}

// SubscribeHelp is /subscribe's usage in English.
func SubscribeHelp() string { return SubscribeHelpIn(en) }

// SubscribeHelpIn is /subscribe's usage in c's language.
func SubscribeHelpIn(c i18n.Catalog) string { return c.T("sub.usage") }

func kindsReplyIn(c i18n.Catalog, kinds []event.Kind) string {
	return c.T("sub.kindsSet", "Kinds", screens.KindListIn(c, kinds))
}
