// Package message renders the Telegram notifications (parse_mode HTML) for
// status events. Everything here is pure: no I/O.
//
// Every message is bounded: at most MaxLength UTF-16 code units of visible
// text (Telegram's limit after entity parsing) and at most MaxLength Unicode
// characters of raw HTML. Dynamic text is escaped first and truncated after,
// on token boundaries, so entities and tags are never split.
package message

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// bodyHTML is an update's text for a notice: as the page wrote it
// (PageText), or a note in c's language that it wrote none.
func bodyHTML(c i18n.Catalog, text string) string {
	body := Escape(strings.TrimSpace(PageText(c, text)))
	if body == "" {
		return "<i>" + c.T("card.noBody") + "</i>"
	}
	return body
}

// PageText is an update's text as the page wrote it, but for the words
// the bot wrote itself for a maintenance that started or ended with no
// update (statuspage.MaintenanceStartedText): those in c's language.
func PageText(c i18n.Catalog, text string) string {
	switch strings.TrimSpace(text) {
	case statuspage.MaintenanceStartedText:
		return c.T("misc.maintStarted")
	case statuspage.MaintenanceCompleteText:
		return c.T("misc.maintComplete")
	}
	return text
}

// NoBody stands in for an update without text.
const NoBody = "No update message provided."

// Caps applied to the short fields only when a message is over the limit.
const (
	maxNameLen  = 512 // incident name, component label
	maxLabelLen = 128 // status and impact labels
	// minBody is the body length worth keeping before the short fields
	// are capped.
	minBody = 1024
)

// Notification returns the Telegram HTML for an event, times in UTC.
func Notification(e event.Event) string { return NotificationIn(e, time.UTC) }

// NotificationIn returns the Telegram HTML for an event with every time it
// shows in loc (nil is UTC): a chat's time zone.
func NotificationIn(e event.Event, loc *time.Location) string { return NotificationOf(en, e, loc) }

// NotificationOf is NotificationIn with its frame (headings, field names,
// statuses, counts) in c's language; the page's words (names, texts) stay
// as the page wrote them.
func NotificationOf(c i18n.Catalog, e event.Event, loc *time.Location) string {
	switch e.Kind {
	case event.KindComponent:
		return componentNotice(c, e)
	case event.KindMaintenance:
		if e.Reminder != nil {
			return reminderNotice(c, e, loc)
		}
		return incidentNotice(c, e, c.T("notice.maintenance"), loc)
	default:
		header := c.T("notice.incident")
		if e.UpdateStatus == "resolved" || e.UpdateStatus == "postmortem" {
			header = c.T("notice.incidentResolved")
		}
		return incidentNotice(c, e, header, loc)
	}
}

// ShowsTimes reports whether the notification of e shows a time, that is
// whether NotificationIn depends on the zone: then each zone needs its own
// text. Keep it in step with what NotificationIn renders.
func ShowsTimes(e event.Event) bool {
	return e.Kind != event.KindComponent && ((e.WindowStart != nil && !e.WindowStart.IsZero()) || e.Together() > 0)
}

func componentNotice(c i18n.Catalog, e event.Event) string {
	label := firstNonEmpty(e.ComponentLabel, e.ComponentName, e.ComponentID, c.T("notice.unknownComponent"))
	segs := []segment{
		static(c.T("notice.component") + "\n\n<b>"),
		short(Escape(label), maxNameLen),
		static("</b>\n"),
	}
	if strings.TrimSpace(e.OldStatus) == "" {
		segs = append(segs, frame(c, "notice.newComponent", field{"Status", Escape(noticeLabel(c, e.NewStatus)), maxLabelLen})...)
	} else {
		segs = append(segs,
			short(Escape(noticeLabel(c, e.OldStatus)), maxLabelLen),
			static(" -&gt; "),
			short(Escape(noticeLabel(c, e.NewStatus)), maxLabelLen))
	}
	if l := Link(e.PageURL, c.T("notice.openPage")); l != "" {
		segs = append(segs, static("\n\n"+l))
	}
	return assemble(segs)
}

func incidentNotice(c i18n.Catalog, e event.Event, header string, loc *time.Location) string {
	name := firstNonEmpty(e.IncidentName, c.T("card.untitled"))
	body := bodyHTML(c, e.Body)
	segs := []segment{
		static(header + "\n\n<b>"),
		short(Escape(name), maxNameLen),
		static("</b>\n"),
	}
	segs = append(segs, frame(c, "notice.status", field{"Status", Escape(noticeLabel(c, e.UpdateStatus)), maxLabelLen})...)
	segs = append(segs, static("\n"))
	segs = append(segs, frame(c, "notice.impact", field{"Impact", Escape(noticeLabel(c, e.Impact)), maxLabelLen})...)
	segs = append(segs, windowAndComponents(c, e, loc)...)
	segs = append(segs, static("\n\n"), segment{html: body, body: true})
	if earlier := EarlierOf(c, e, loc); earlier != "" {
		segs = append(segs, static("\n\n"+earlier))
	}
	if l := Link(e.URL, c.T("card.view")); l != "" {
		segs = append(segs, static("\n\n"+l))
	}
	return assemble(segs)
}

// windowAndComponents are a notice's lines of its maintenance window and
// its components, those it has.
func windowAndComponents(c i18n.Catalog, e event.Event, loc *time.Location) []segment {
	var segs []segment
	if w := WindowHTML(e.WindowStart, e.WindowEnd, loc); w != "" {
		segs = append(segs, static("\n"))
		segs = append(segs, frame(c, "notice.window", field{"Window", w, maxLabelLen * 2})...)
	}
	if len(e.ComponentNames) > 0 {
		segs = append(segs, static("\n"))
		segs = append(segs, frame(c, "notice.components", field{"Components", Escape(strings.Join(e.ComponentNames, ", ")), maxNameLen})...)
	}
	return segs
}

// reminderNotice says a maintenance starts soon: when, for how long, what.
func reminderNotice(c i18n.Catalog, e event.Event, loc *time.Location) string {
	segs := []segment{
		static(reminderHeading(c, e.Reminder.Lead) + "\n\n<b>"),
		short(Escape(firstNonEmpty(e.IncidentName, c.T("notice.untitledMaintenance"))), maxNameLen),
		static("</b>"),
	}
	segs = append(segs, windowAndComponents(c, e, loc)...)
	if l := Link(e.URL, c.T("notice.viewMaintenance")); l != "" {
		segs = append(segs, static("\n\n"+l))
	}
	return assemble(segs)
}

// Lead says how long until a maintenance starts, to the nearest minute:
// "60 minutes" reads "1 hour", "150 minutes" stays as it is.
func Lead(d time.Duration) string {
	m, hours := leadOf(d)
	switch {
	case hours && m == 60:
		return "1 hour"
	case hours:
		return strconv.Itoa(m/60) + " hours"
	case m == 1:
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// leadOf is a reminder's lead in whole minutes (at least 1), and whether
// it reads in hours.
func leadOf(d time.Duration) (minutes int, hours bool) {
	m := max(1, int((d+30*time.Second)/time.Minute))
	return m, m%60 == 0
}

// reminderHeading is the reminder's first line, its lead counted in the
// language's plural forms: "Maintenance starts in 2 hours".
func reminderHeading(c i18n.Catalog, d time.Duration) string {
	m, hours := leadOf(d)
	if hours {
		return c.N("notice.reminderHours", m/60)
	}
	return c.N("notice.reminderMinutes", m)
}

// StatusIn is a step's status as c's notices name it.
func StatusIn(c i18n.Catalog, status string) string { return noticeLabel(c, status) }

// noticeLabel is a status or impact as c names it; in English exactly as
// statuspage.Label, as notices always read.
func noticeLabel(c i18n.Catalog, status string) string {
	if c.Tag() == i18n.Default {
		return statuspage.Label(status)
	}
	return LabelIn(c, status)
}

// field is a value a catalog's message places (escaped HTML), capped at
// cap when the message is over the limit.
type field struct {
	name, html string
	cap        int
}

// frame is message id of c as segments, its fields where the language
// puts them: each stays a short field that assemble may cap, as it was
// when the frame was English-only code.
func frame(c i18n.Catalog, id string, fields ...field) []segment {
	var data []any
	for i, f := range fields {
		data = append(data, f.name, "\x00"+strconv.Itoa(i)+"\x00")
	}
	parts := strings.Split(c.T(id, data...), "\x00")
	var segs []segment
	for i, p := range parts {
		if i%2 == 0 {
			if p != "" {
				segs = append(segs, static(p))
			}
			continue
		}
		if n, err := strconv.Atoi(p); err == nil && n < len(fields) {
			segs = append(segs, short(fields[n].html, fields[n].cap))
		}
	}
	return segs
}

// segment is one piece of a message: trusted static HTML, a short escaped
// field with a cap, or the escaped body, which takes the remaining budget.
type segment struct {
	html string
	cap  int // > 0: a short field capped when the message is too long
	body bool
}

func static(html string) segment       { return segment{html: html} }
func short(html string, n int) segment { return segment{html: html, cap: n} }

// assemble joins the segments, shortening the body first and then the short
// fields when the message would exceed MaxLength.
func assemble(segs []segment) string {
	join := func() string {
		var b strings.Builder
		for _, s := range segs {
			b.WriteString(s.html)
		}
		return b.String()
	}
	out := join()
	if fits(out) {
		return out
	}
	bi := -1
	for i, s := range segs {
		if s.body {
			bi = i
		}
	}
	// budget is what the body may use once everything else is counted.
	budget := func() (vis, raw int) {
		vis, raw = MaxLength, MaxLength
		for i, s := range segs {
			if i != bi {
				vis -= VisibleLength(s.html)
				raw -= utf8.RuneCountInString(s.html)
			}
		}
		return vis, raw
	}
	if bi >= 0 {
		vis, raw := budget()
		if min(vis, raw) < minBody {
			// The short fields are too long: cap them before the body.
			for i := range segs {
				if segs[i].cap > 0 {
					segs[i].html = Truncate(segs[i].html, segs[i].cap)
				}
			}
			vis, raw = budget()
		}
		segs[bi].html = truncate(segs[bi].html, vis, raw)
	} else {
		for i := range segs {
			if segs[i].cap > 0 {
				segs[i].html = Truncate(segs[i].html, segs[i].cap)
			}
		}
	}
	out = join()
	if !fits(out) {
		// Cannot happen with the caps above; never send an oversized message.
		out = Truncate(out, MaxLength)
	}
	return out
}

// Window shows a maintenance window in UTC: "2026-01-25 00:00 – 02:00 UTC",
// the end date repeated only when it differs.
func Window(start, end *time.Time) string { return WindowIn(start, end, time.UTC) }

// WindowIn shows a maintenance window in loc (nil is UTC), dates as they
// read there: "2026-01-25 01:00 – 03:00 CET", the end date repeated only
// when it differs in loc. The zone is named by its abbreviation, or its
// offset where it has none ("+03"); a window across a change of offset
// (daylight saving time) names it at both ends:
// "2026-03-29 01:30 CET – 04:30 CEST".
func WindowIn(start, end *time.Time, loc *time.Location) string {
	if start == nil || start.IsZero() {
		return ""
	}
	if loc == nil {
		loc = time.UTC
	}
	s := start.In(loc)
	out := s.Format("2006-01-02 15:04")
	zone := zoneName(s)
	if end != nil && end.After(s) {
		e := end.In(loc)
		if ez := zoneName(e); ez != zone || !sameOffset(s, e) {
			out += " " + zone
			zone = ez
		}
		if e.Format("2006-01-02") == s.Format("2006-01-02") {
			out += " – " + e.Format("15:04")
		} else {
			out += " – " + e.Format("2006-01-02 15:04")
		}
	}
	return out + " " + zone
}

// zoneName is the abbreviation of t's zone ("CET", "IST", "+03"); an offset
// like "+0530" where the zone has no name at all.
func zoneName(t time.Time) string {
	if name, _ := t.Zone(); name != "" {
		return name
	}
	return t.Format("-0700")
}

func sameOffset(a, b time.Time) bool {
	_, x := a.Zone()
	_, y := b.Zone()
	return x == y
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// Time formats of the date-time entities (the Bot API's date_time_format:
// w day of the week, d/D short/long date, t/T short/long time).
const (
	FormatDateTime = "dt"
	FormatTime     = "t"
	FormatWeekDay  = "wdt"
)

// TimeHTML is t as a date-time entity: Telegram apps show it in each
// reader's own zone and locale; the text inside, t in loc laid out by
// layout, is what apps that do not render the entity show (and what a send
// refused for its entities falls back to).
func TimeHTML(t time.Time, loc *time.Location, layout, format string) string {
	if loc == nil {
		loc = time.UTC
	}
	return timeTag(t, t.In(loc).Format(layout), format)
}

// timeTag wraps the plain text fallback (escaped here) in a date-time
// entity; a time the Bot API cannot carry (not after 1970) stays text.
func timeTag(t time.Time, fallback, format string) string {
	if t.Unix() <= 0 {
		return Escape(fallback)
	}
	return `<tg-time unix="` + strconv.FormatInt(t.Unix(), 10) + `" format="` + format + `">` + Escape(fallback) + `</tg-time>`
}

// WindowHTML is WindowIn with both ends as date-time entities; its text
// fallback reads exactly as WindowIn, the zone inside the entity that
// ends the window (a reader whose app renders the entities sees their own
// times, with no zone of another).
func WindowHTML(start, end *time.Time, loc *time.Location) string {
	if start == nil || start.IsZero() {
		return ""
	}
	if loc == nil {
		loc = time.UTC
	}
	s := start.In(loc)
	from, zone := s.Format("2006-01-02 15:04"), zoneName(s)
	if end == nil || !end.After(s) {
		return timeTag(s, from+" "+zone, FormatWeekDay)
	}
	e := end.In(loc)
	if ez := zoneName(e); ez != zone || !sameOffset(s, e) {
		from += " " + zone
		zone = ez
	}
	until, format := e.Format("2006-01-02 15:04"), FormatDateTime
	if e.Format("2006-01-02") == s.Format("2006-01-02") {
		until, format = e.Format("15:04"), FormatTime
	}
	return timeTag(s, from, FormatWeekDay) + " – " + timeTag(e, until+" "+zone, format)
}
