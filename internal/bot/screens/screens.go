package screens

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	offered "github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Keyboard paging.
const (
	groupsPerScreen = 8
	compsPerScreen  = 8
	MaxButtonText   = 40
)

// Choices offered as buttons; anything else is typed.
var (
	quietPresets   = [][2]string{{"22:00", "07:00"}, {"23:00", "08:00"}, {"00:00", "06:00"}, {"20:00", "08:00"}}
	zonePresets    = []string{"UTC", "Europe/London", "Europe/Berlin", "Europe/Moscow", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Australia/Sydney", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo"}
	reminderOpts   = []int{15, 30, 60, 120}
	severityLabels = []string{"btn.sev.all", "btn.sev.outage", "btn.sev.outageSilent"} // message ids
)

// Screen is a rendered keyboard message.
type Screen struct {
	Text string
	Rows [][]models.InlineKeyboardButton
}

func (s Screen) Markup() *models.InlineKeyboardMarkup {
	return &models.InlineKeyboardMarkup{InlineKeyboard: s.Rows}
}

// KB draws screens for one subscription.
type KB struct {
	sub *store.Subscriber
	idx *PageIndex // nil: the page is unavailable
	Tok string
	// chat, title and typed: the channel whose settings a keyboard in a
	// private chat changes (0: the chat it is shown in), how it is shown
	// and how it is typed in a command.
	chat         int64
	title, typed string
	// offer: the pages on offer (Offering), for the Pages screen.
	offer offered.Offer
	// lang: the catalog the screens speak (the chat's language).
	lang i18n.Catalog
}

// New draws the screens of sub's settings (idx nil: the page is not
// known), in the chat's language.
func New(sub *store.Subscriber, idx *PageIndex) *KB {
	return &KB{sub: sub, idx: idx, Tok: StateToken(sub), lang: i18n.Of(sub.Settings.Lang)}
}

// Speaking draws the screens in c (a private chat that changes a
// channel's settings reads them in its own language).
func (k *KB) Speaking(c i18n.Catalog) *KB {
	k.lang = c
	return k
}

// For makes the buttons change chat's settings (a channel's, shown in a
// private chat); title names it in the first screen, typed is how a
// command names it ("@name" or its ID).
func (k *KB) For(chat int64, title, typed string) *KB {
	k.chat, k.title, k.typed = chat, title, typed
	return k
}

// Button is a button with op and args, for the settings as drawn.
func (k *KB) Button(text, op string, args ...string) models.InlineKeyboardButton {
	return models.InlineKeyboardButton{Text: CutButton(text), CallbackData: Callback{Chat: k.chat, Op: op, Args: args, Tok: k.Tok}.Encode()}
}

// typedRef is the channel as typed before a setting ("" for the chat's own).
func (k *KB) typedRef() string {
	if k.typed == "" {
		return ""
	}
	return message.Escape(k.typed) + " "
}

// heading is the first screen's title.
func (k *KB) heading() string {
	if k.title != "" {
		return k.lang.T("settings.headingOf", "Title", EscName(k.title))
	}
	return k.lang.T("settings.heading")
}

func CutButton(s string) string {
	r := []rune(s)
	if len(r) > MaxButtonText {
		return string(r[:MaxButtonText-1]) + "…"
	}
	return s
}

func (k *KB) back() []models.InlineKeyboardButton {
	return []models.InlineKeyboardButton{k.Button(k.lang.T("btn.back"), "m")}
}

func mark(on bool, label string) string {
	if on {
		return "✅ " + label
	}
	return "▫️ " + label
}

func (k *KB) Names() map[string]string {
	if k.idx == nil {
		return nil
	}
	return k.idx.Names
}

// Main is the first screen: a summary and a button per topic.
func (k *KB) Main() Screen {
	summary := SummaryIn(k.lang, k.sub, k.Names())
	rows := [][]models.InlineKeyboardButton{
		{k.Button(k.lang.T("btn.kinds"), "k"), k.Button(k.lang.T("btn.components"), "g", "0")},
		{k.Button(k.lang.T("btn.severity"), "s"), k.Button(k.lang.T("btn.quiet"), "q")},
		{k.Button(k.lang.T("btn.zone"), "z"), k.Button(k.lang.T("btn.delivery"), "d")},
		{k.Button(k.lang.T("btn.language"), "l"), k.Button(k.lang.T("btn.done"), "x")},
	}
	if l := PagesLineIn(k.lang, k.sub.Pages, k.offer); l != "" {
		summary = l + "\n" + summary
	}
	if k.ShowsPages() {
		rows = append([][]models.InlineKeyboardButton{{k.Button(k.lang.T("btn.pages"), "pg")}}, rows...)
	}
	return Screen{
		Text: k.heading() + "\n" + summary + "\n\n" + k.lang.T("settings.tap", "Ref", k.typedRef()),
		Rows: rows,
	}
}

// Languages is the language screen: a button per catalog, named in its
// own language, two to a row.
func (k *KB) Languages() Screen {
	cur := i18n.Of(k.sub.Settings.Lang).Tag()
	var rows [][]models.InlineKeyboardButton
	var row []models.InlineKeyboardButton
	for i, l := range i18n.Languages {
		row = append(row, k.Button(mark(l.Tag == cur, l.Name), "L", strconv.Itoa(i)))
		if len(row) == 2 {
			rows, row = append(rows, row), nil
		}
	}
	if row != nil {
		rows = append(rows, row)
	}
	return Screen{Text: k.lang.T("settings.language", "Name", i18n.Name(cur)), Rows: append(rows, k.back())}
}

func (k *KB) Kinds() Screen {
	kinds := k.sub.Kinds
	if len(kinds) == 0 {
		kinds = event.DefaultKinds
	}
	var rows [][]models.InlineKeyboardButton
	for i, kind := range event.Kinds {
		on := false
		for _, x := range kinds {
			on = on || x == kind
		}
		set := "1"
		if on {
			set = "0"
		}
		rows = append(rows, []models.InlineKeyboardButton{k.Button(mark(on, k.kindTitle(kind)), "K", strconv.Itoa(i), set)})
	}
	return Screen{Text: k.lang.T("scr.kinds"), Rows: append(rows, k.back())}
}

func (k *KB) kindTitle(kind event.Kind) string {
	switch kind {
	case event.KindIncident:
		return k.lang.T("btn.kind.incident")
	case event.KindComponent:
		return k.lang.T("btn.kind.component")
	}
	return k.lang.T("btn.kind.maintenance")
}

// chosenIn counts the filter's components in a group.
func (k *KB) chosenIn(g ComponentGroup) int {
	n := 0
	for _, m := range g.Members {
		if inFilter(k.sub.Components, k.idx.Comps[m].ID) {
			n++
		}
	}
	return n
}

func inFilter(filter []string, id string) bool {
	for _, f := range filter {
		if f == id {
			return true
		}
	}
	return false
}

func pages(n, per int) int { return max(1, (n+per-1)/per) }

// pager is a "‹ Previous / Next ›" row, or nil for one page; the page
// number goes between the arguments before and after.
func (k *KB) pager(pg, total int, op string, before, after []string) []models.InlineKeyboardButton {
	if total <= 1 {
		return nil
	}
	var row []models.InlineKeyboardButton
	at := func(p int) []string {
		return append(append(append([]string(nil), before...), strconv.Itoa(p)), after...)
	}
	if pg > 0 {
		row = append(row, k.Button(k.lang.T("btn.prev"), op, at(pg-1)...))
	}
	if pg < total-1 {
		row = append(row, k.Button(k.lang.T("btn.next"), op, at(pg+1)...))
	}
	return row
}

func (k *KB) Groups(pg int) Screen {
	if k.idx == nil || len(k.idx.Comps) == 0 {
		return Screen{Text: k.lang.T("scr.groupsDown"),
			Rows: [][]models.InlineKeyboardButton{k.back()}}
	}
	total := pages(len(k.idx.Groups), groupsPerScreen)
	pg = min(pg, total-1)
	text := k.lang.T("scr.groupsAll")
	if len(k.sub.Components) > 0 {
		text = k.lang.N("scr.groupsChosen", len(k.sub.Components), "List", FilterListIn(k.lang, k.sub.Components, k.idx.Names))
	}
	var rows [][]models.InlineKeyboardButton
	for gi := pg * groupsPerScreen; gi < min(len(k.idx.Groups), (pg+1)*groupsPerScreen); gi++ {
		g := k.idx.Groups[gi]
		label := k.lang.T("btn.groupAll", "Group", g.Name)
		if len(k.sub.Components) > 0 {
			label = fmt.Sprintf("%s · %d/%d", g.Name, k.chosenIn(g), len(g.Members))
		}
		rows = append(rows, []models.InlineKeyboardButton{k.Button(label, "G", strconv.Itoa(gi), "0", k.idx.Tok)})
	}
	if p := k.pager(pg, total, "g", nil, nil); p != nil {
		rows = append(rows, p)
	}
	if len(k.sub.Components) > 0 {
		rows = append(rows, []models.InlineKeyboardButton{k.Button(k.lang.T("btn.clearChoice"), "C")})
	}
	return Screen{Text: utf16Cut(text), Rows: append(rows, k.back())}
}

func (k *KB) Group(gi, pg int) Screen {
	g := k.idx.Groups[gi]
	total := pages(len(g.Members), compsPerScreen)
	pg = min(pg, total-1)
	text := k.lang.T("scr.group", "Group", EscName(g.Name))
	if len(k.sub.Components) == 0 {
		text = k.lang.T("scr.groupNone", "Group", EscName(g.Name))
	}
	var rows [][]models.InlineKeyboardButton
	for _, ci := range g.Members[pg*compsPerScreen : min(len(g.Members), (pg+1)*compsPerScreen)] {
		c := k.idx.Comps[ci]
		on := inFilter(k.sub.Components, c.ID)
		set := "1"
		if on {
			set = "0"
		}
		rows = append(rows, []models.InlineKeyboardButton{k.Button(mark(on, c.Name), "c", strconv.Itoa(ci), set, strconv.Itoa(pg), k.idx.Tok)})
	}
	if p := k.pager(pg, total, "G", []string{strconv.Itoa(gi)}, []string{k.idx.Tok}); p != nil {
		rows = append(rows, p)
	}
	rows = append(rows, []models.InlineKeyboardButton{k.Button(k.lang.T("btn.groups"), "g", strconv.Itoa(gi/groupsPerScreen))})
	return Screen{Text: text, Rows: rows}
}

func (k *KB) Severity() Screen {
	cur := 0
	if k.sub.Settings.MinSeverity == store.SeverityOutage {
		cur = 1
		if k.sub.Settings.BelowSilent {
			cur = 2
		}
	}
	var rows [][]models.InlineKeyboardButton
	for i, l := range severityLabels {
		rows = append(rows, []models.InlineKeyboardButton{k.Button(mark(i == cur, k.lang.T(l)), "S", strconv.Itoa(i))})
	}
	return Screen{Text: k.lang.T("scr.severity"), Rows: append(rows, k.back())}
}

func (k *KB) Quiet() Screen {
	s := k.sub.Settings
	var rows [][]models.InlineKeyboardButton
	var row []models.InlineKeyboardButton
	for i, p := range quietPresets {
		row = append(row, k.Button(mark(s.QuietStart == p[0] && s.QuietEnd == p[1], p[0]+"–"+p[1]), "Q", strconv.Itoa(i)))
		if len(row) == 2 {
			rows, row = append(rows, row), nil
		}
	}
	rows = append(rows, []models.InlineKeyboardButton{k.Button(mark(s.QuietStart == "", k.lang.T("btn.off")), "Q", "x")})
	res, set := k.lang.T("btn.resLoud"), "1"
	if s.QuietResolutions {
		res, set = k.lang.T("btn.resSilent"), "0"
	}
	hold, holdSet, text := k.lang.T("btn.holdOff"), "1", "scr.quietSilent"
	if s.QuietHold {
		hold, holdSet, text = k.lang.T("btn.holdOn"), "0", "scr.quietHold"
	} else {
		rows = append(rows, []models.InlineKeyboardButton{k.Button(res, "r", set)})
	}
	rows = append(rows, []models.InlineKeyboardButton{k.Button(hold, "H", holdSet)})
	return Screen{Text: k.lang.T(text, "Zone", message.Escape(ZoneName(s))), Rows: append(rows, k.back())}
}

func (k *KB) Zones() Screen {
	cur := ZoneName(k.sub.Settings)
	var rows [][]models.InlineKeyboardButton
	var row []models.InlineKeyboardButton
	for i, z := range zonePresets {
		row = append(row, k.Button(mark(z == cur, strings.ReplaceAll(z, "_", " ")), "Z", strconv.Itoa(i)))
		if len(row) == 2 {
			rows, row = append(rows, row), nil
		}
	}
	if row != nil {
		rows = append(rows, row)
	}
	return Screen{Text: k.lang.T("scr.zones", "Zone", message.Escape(cur)),
		Rows: append(rows, k.back())}
}

func (k *KB) Delivery() Screen {
	s := k.sub.Settings
	rows := [][]models.InlineKeyboardButton{
		{k.Button(mark(s.Cards(), k.lang.T("btn.cards")), "o", "c"), k.Button(mark(!s.Cards(), k.lang.T("btn.messages")), "o", "m")},
		{k.Button(mark(s.PinCards, k.lang.T("btn.pin")), "p", boolArg(!s.PinCards))},
		{k.Button(mark(!s.RingEvery, k.lang.T("btn.ringNews")), "R", "0"), k.Button(mark(s.RingEvery, k.lang.T("btn.ringEvery")), "R", "1")},
		{k.Button(mark(!s.NoReminders, k.lang.T("btn.reminders")), "e", boolArg(s.NoReminders))},
	}
	var row []models.InlineKeyboardButton
	for i, m := range reminderOpts {
		row = append(row, k.Button(mark(!s.NoReminders && reminderMinutes(s) == m, k.lang.N("btn.minutes", m)), "E", strconv.Itoa(i)))
	}
	rows = append(rows, row)
	return Screen{Text: k.lang.T("scr.delivery"), Rows: append(rows, k.back())}
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
