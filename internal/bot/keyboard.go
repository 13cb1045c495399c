package bot

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// The /settings keyboard. Every button's callback_data is
// "op[:arg...]:token" (at most 64 bytes): op says what to show or set,
// components are referred to by their index in the page's component list
// (with a token of that list, so a changed page is noticed), and token is
// a hash of the chat's settings when the keyboard was drawn, so a tap on
// buttons drawn before a change made elsewhere is not applied blindly.

// maxCallbackData is Telegram's limit for callback_data, in bytes.
const maxCallbackData = 64

// Keyboard paging.
const (
	groupsPerScreen = 8
	compsPerScreen  = 8
	maxButtonText   = 40
)

// Choices offered as buttons; anything else is typed.
var (
	quietPresets   = [][2]string{{"22:00", "07:00"}, {"23:00", "08:00"}, {"00:00", "06:00"}, {"20:00", "08:00"}}
	zonePresets    = []string{"UTC", "Europe/London", "Europe/Berlin", "Europe/Moscow", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Australia/Sydney", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo"}
	reminderOpts   = []int{15, 30, 60, 120}
	severityLabels = []string{"Everything", "Outages only, skip the rest", "Outages loud, the rest silently"}
)

// kbGroup is one of the page's component groups.
type kbGroup struct {
	name    string
	members []int // indices into pageIndex.comps
}

// pageIndex numbers the page's components for callback_data.
type pageIndex struct {
	comps  []statuspage.Component
	groups []kbGroup
	names  map[string]string
	tok    string
}

// indexPage groups the components as the page does: group rows (Group
// set) name the groups, leaves carry GroupName or GroupID; components in
// no group come last, as "Other".
func indexPage(p *statuspage.Page) *pageIndex {
	comps := components(p)
	rowNames := map[string]string{}
	for _, c := range p.Components {
		if c.Group {
			rowNames[c.ID] = c.Name
		}
	}
	idx := &pageIndex{comps: comps, names: componentNames(comps)}
	at := map[string]int{}
	var other []int
	h := fnv.New32a()
	for i, c := range comps {
		h.Write([]byte(c.ID + "\x00"))
		g := c.GroupName
		if g == "" {
			g = rowNames[c.GroupID]
		}
		if g == "" {
			other = append(other, i)
			continue
		}
		j, ok := at[g]
		if !ok {
			j = len(idx.groups)
			at[g] = j
			idx.groups = append(idx.groups, kbGroup{name: g})
		}
		idx.groups[j].members = append(idx.groups[j].members, i)
	}
	if len(other) > 0 {
		idx.groups = append(idx.groups, kbGroup{name: "Other", members: other})
	}
	idx.tok = strconv.FormatUint(uint64(h.Sum32()), 36)
	return idx
}

// groupOf is the group index and position of component ci.
func (x *pageIndex) groupOf(ci int) (gi, pos int) {
	for gi, g := range x.groups {
		for pos, m := range g.members {
			if m == ci {
				return gi, pos
			}
		}
	}
	return -1, -1
}

// stateToken hashes what the keyboard shows of a subscription.
func stateToken(sub *store.Subscriber) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v|%v|%+v", sub.Kinds, sub.Components, sub.Settings)
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

// callback is a decoded callback_data.
type callback struct {
	op   string
	args []string
	tok  string
}

func (c callback) encode() string {
	return strings.Join(append(append([]string{c.op}, c.args...), c.tok), ":")
}

// argc is how many arguments each op takes.
var argc = map[string]int{
	"m": 0, "k": 0, "g": 1, "G": 3, "s": 0, "q": 0, "z": 0, "d": 0, "x": 0,
	"v": 1, "a": 1,
	"K": 2, "c": 4, "C": 0, "S": 1, "Q": 1, "r": 1, "Z": 1, "o": 1, "p": 1, "e": 1, "E": 1,
}

// parseCallback decodes callback_data; ok is false for anything the bot
// did not make (the client sends what it was given, but check anyway).
func parseCallback(data string) (callback, bool) {
	if len(data) > maxCallbackData {
		return callback{}, false
	}
	f := strings.Split(data, ":")
	if len(f) < 2 {
		return callback{}, false
	}
	n, ok := argc[f[0]]
	if !ok || len(f) != n+2 {
		return callback{}, false
	}
	return callback{op: f[0], args: f[1 : n+1], tok: f[n+1]}, true
}

// arg is argument i as a number in [0, n); ok false otherwise.
func (c callback) arg(i, n int) (int, bool) {
	if i >= len(c.args) {
		return 0, false
	}
	v, err := strconv.Atoi(c.args[i])
	if err != nil || v < 0 || v >= n || strconv.Itoa(v) != c.args[i] {
		return 0, false
	}
	return v, true
}

// changes reports whether the op changes settings (rather than showing a
// screen).
func (c callback) changes() bool { return changeOps[c.op] }

var changeOps = map[string]bool{"K": true, "c": true, "C": true, "S": true, "Q": true, "r": true, "Z": true, "o": true, "p": true, "e": true, "E": true}

// screen is a rendered keyboard message.
type screen struct {
	text string
	rows [][]models.InlineKeyboardButton
}

func (s screen) markup() *models.InlineKeyboardMarkup {
	return &models.InlineKeyboardMarkup{InlineKeyboard: s.rows}
}

// kb draws screens for one subscription.
type kb struct {
	sub *store.Subscriber
	idx *pageIndex // nil: the page is unavailable
	tok string
}

func newKB(sub *store.Subscriber, idx *pageIndex) *kb {
	return &kb{sub: sub, idx: idx, tok: stateToken(sub)}
}

func (k *kb) btn(text, op string, args ...string) models.InlineKeyboardButton {
	return models.InlineKeyboardButton{Text: cutButton(text), CallbackData: callback{op: op, args: args, tok: k.tok}.encode()}
}

func cutButton(s string) string {
	r := []rune(s)
	if len(r) > maxButtonText {
		return string(r[:maxButtonText-1]) + "…"
	}
	return s
}

func (k *kb) back() []models.InlineKeyboardButton {
	return []models.InlineKeyboardButton{k.btn("« Back", "m")}
}

func mark(on bool, label string) string {
	if on {
		return "✅ " + label
	}
	return "▫️ " + label
}

func (k *kb) names() map[string]string {
	if k.idx == nil {
		return nil
	}
	return k.idx.names
}

// main is the first screen: a summary and a button per topic.
func (k *kb) main() screen {
	return screen{
		text: "<b>Settings</b>\n" + settingsSummary(k.sub, k.names()) +
			"\n\nTap to change. Every setting can be typed too: /settings &lt;name&gt; &lt;value&gt;.",
		rows: [][]models.InlineKeyboardButton{
			{k.btn("Notice types", "k"), k.btn("Components", "g", "0")},
			{k.btn("Severity", "s"), k.btn("Quiet hours", "q")},
			{k.btn("Time zone", "z"), k.btn("Cards & reminders", "d")},
			{k.btn("Done", "x")},
		},
	}
}

func (k *kb) kinds() screen {
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
		rows = append(rows, []models.InlineKeyboardButton{k.btn(mark(on, kindTitle(kind)), "K", strconv.Itoa(i), set)})
	}
	return screen{text: "<b>Notice types</b>\nTap a type to turn it on or off.", rows: append(rows, k.back())}
}

func kindTitle(k event.Kind) string {
	switch k {
	case event.KindIncident:
		return "Incidents"
	case event.KindComponent:
		return "Component changes"
	}
	return "Maintenance"
}

// chosenIn counts the filter's components in a group.
func (k *kb) chosenIn(g kbGroup) int {
	n := 0
	for _, m := range g.members {
		if inFilter(k.sub.Components, k.idx.comps[m].ID) {
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
func (k *kb) pager(pg, total int, op string, before, after []string) []models.InlineKeyboardButton {
	if total <= 1 {
		return nil
	}
	var row []models.InlineKeyboardButton
	at := func(p int) []string {
		return append(append(append([]string(nil), before...), strconv.Itoa(p)), after...)
	}
	if pg > 0 {
		row = append(row, k.btn("‹ Previous", op, at(pg-1)...))
	}
	if pg < total-1 {
		row = append(row, k.btn("Next ›", op, at(pg+1)...))
	}
	return row
}

func (k *kb) groups(pg int) screen {
	if k.idx == nil || len(k.idx.comps) == 0 {
		return screen{text: "<b>Components</b>\nThe status page's components are unavailable right now. Please try again later.",
			rows: [][]models.InlineKeyboardButton{k.back()}}
	}
	total := pages(len(k.idx.groups), groupsPerScreen)
	pg = min(pg, total-1)
	text := "<b>Components</b>\n"
	if len(k.sub.Components) == 0 {
		text += "Notices cover every component. Pick components to hear only about those."
	} else {
		text += "Notices cover " + countOf(len(k.sub.Components), "chosen component") + ": " + filterList(k.sub.Components, k.idx.names) + "."
	}
	var rows [][]models.InlineKeyboardButton
	for gi := pg * groupsPerScreen; gi < min(len(k.idx.groups), (pg+1)*groupsPerScreen); gi++ {
		g := k.idx.groups[gi]
		label := g.name + " · all"
		if len(k.sub.Components) > 0 {
			label = fmt.Sprintf("%s · %d/%d", g.name, k.chosenIn(g), len(g.members))
		}
		rows = append(rows, []models.InlineKeyboardButton{k.btn(label, "G", strconv.Itoa(gi), "0", k.idx.tok)})
	}
	if p := k.pager(pg, total, "g", nil, nil); p != nil {
		rows = append(rows, p)
	}
	if len(k.sub.Components) > 0 {
		rows = append(rows, []models.InlineKeyboardButton{k.btn("Every component (clear the choice)", "C")})
	}
	return screen{text: utf16Cut(text), rows: append(rows, k.back())}
}

func (k *kb) group(gi, pg int) screen {
	g := k.idx.groups[gi]
	total := pages(len(g.members), compsPerScreen)
	pg = min(pg, total-1)
	text := "<b>" + escName(g.name) + "</b>\nTap a component to add it to the chosen ones or remove it."
	if len(k.sub.Components) == 0 {
		text += " None chosen yet: notices cover every component."
	}
	var rows [][]models.InlineKeyboardButton
	for _, ci := range g.members[pg*compsPerScreen : min(len(g.members), (pg+1)*compsPerScreen)] {
		c := k.idx.comps[ci]
		on := inFilter(k.sub.Components, c.ID)
		set := "1"
		if on {
			set = "0"
		}
		rows = append(rows, []models.InlineKeyboardButton{k.btn(mark(on, c.Name), "c", strconv.Itoa(ci), set, strconv.Itoa(pg), k.idx.tok)})
	}
	if p := k.pager(pg, total, "G", []string{strconv.Itoa(gi)}, []string{k.idx.tok}); p != nil {
		rows = append(rows, p)
	}
	rows = append(rows, []models.InlineKeyboardButton{k.btn("« Groups", "g", strconv.Itoa(gi/groupsPerScreen))})
	return screen{text: text, rows: rows}
}

func (k *kb) severity() screen {
	cur := 0
	if k.sub.Settings.MinSeverity == store.SeverityOutage {
		cur = 1
		if k.sub.Settings.BelowSilent {
			cur = 2
		}
	}
	var rows [][]models.InlineKeyboardButton
	for i, l := range severityLabels {
		rows = append(rows, []models.InlineKeyboardButton{k.btn(mark(i == cur, l), "S", strconv.Itoa(i))})
	}
	return screen{text: "<b>Minimum severity</b>\n“Outages” are partial and full outages of components and major and critical incidents. " +
		"Resolutions follow what they resolve; maintenance is chosen by notice type.", rows: append(rows, k.back())}
}

func (k *kb) quiet() screen {
	s := k.sub.Settings
	var rows [][]models.InlineKeyboardButton
	var row []models.InlineKeyboardButton
	for i, p := range quietPresets {
		row = append(row, k.btn(mark(s.QuietStart == p[0] && s.QuietEnd == p[1], p[0]+"–"+p[1]), "Q", strconv.Itoa(i)))
		if len(row) == 2 {
			rows, row = append(rows, row), nil
		}
	}
	rows = append(rows, []models.InlineKeyboardButton{k.btn(mark(s.QuietStart == "", "Off"), "Q", "x")})
	res, set := "Resolutions: with sound", "1"
	if s.QuietResolutions {
		res, set = "Resolutions: silent too", "0"
	}
	rows = append(rows, []models.InlineKeyboardButton{k.btn(res, "r", set)})
	return screen{text: "<b>Quiet hours</b> (" + esc(zoneName(s)) + ")\nNotices in the window arrive without sound. " +
		"Other windows: /settings quiet 21:30-06:45.", rows: append(rows, k.back())}
}

func (k *kb) zones() screen {
	cur := zoneName(k.sub.Settings)
	var rows [][]models.InlineKeyboardButton
	var row []models.InlineKeyboardButton
	for i, z := range zonePresets {
		row = append(row, k.btn(mark(z == cur, strings.ReplaceAll(z, "_", " ")), "Z", strconv.Itoa(i)))
		if len(row) == 2 {
			rows, row = append(rows, row), nil
		}
	}
	if row != nil {
		rows = append(rows, row)
	}
	return screen{text: "<b>Time zone</b>: " + esc(cur) + "\nFor quiet hours and every time the bot shows. Others: /settings tz Asia/Singapore.",
		rows: append(rows, k.back())}
}

func (k *kb) delivery() screen {
	s := k.sub.Settings
	rows := [][]models.InlineKeyboardButton{
		{k.btn(mark(s.Cards(), "Incident cards"), "o", "c"), k.btn(mark(!s.Cards(), "Messages"), "o", "m")},
		{k.btn(mark(s.PinCards, "Pin open cards"), "p", boolArg(!s.PinCards))},
		{k.btn(mark(!s.NoReminders, "Maintenance reminders"), "e", boolArg(s.NoReminders))},
	}
	var row []models.InlineKeyboardButton
	for i, m := range reminderOpts {
		row = append(row, k.btn(mark(!s.NoReminders && reminderMinutes(s) == m, strconv.Itoa(m)+" min"), "E", strconv.Itoa(i)))
	}
	rows = append(rows, row)
	return screen{text: "<b>Cards and reminders</b>\nCards: one message per incident, edited as it changes, with each update as a reply. " +
		"Messages: one message per update. Reminders come before a maintenance starts.", rows: append(rows, k.back())}
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func reminderMinutes(s store.Settings) int {
	if s.ReminderMinutes == 0 {
		return store.DefaultReminderMinutes
	}
	return s.ReminderMinutes
}

func zoneName(s store.Settings) string {
	if s.TimeZone == "" {
		return "UTC"
	}
	return s.TimeZone
}

// utf16Cut keeps a screen's text within the reply budget.
func utf16Cut(s string) string {
	if utf16Len(s) > replyBudget {
		return message.Truncate(s, replyBudget)
	}
	return s
}

// settingsSummary lists the settings, for /info and the keyboard.
func settingsSummary(sub *store.Subscriber, names map[string]string) string {
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
		if s.QuietResolutions {
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
	rem := "off"
	if !s.NoReminders {
		rem = strconv.Itoa(reminderMinutes(s)) + " minutes before"
	}
	return strings.Join([]string{
		"<b>Notice types:</b> " + kindList(sub.Kinds),
		"<b>Components:</b> " + filterList(sub.Components, names),
		"<b>Severity:</b> " + sev,
		"<b>Quiet hours:</b> " + esc(quiet),
		"<b>Time zone:</b> " + esc(zoneName(s)),
		"<b>Delivery:</b> " + mode,
		"<b>Maintenance reminders:</b> " + rem,
	}, "\n")
}

// countOf is "1 chosen component", "2 chosen components".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
