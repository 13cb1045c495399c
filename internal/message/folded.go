package message

import (
	"strconv"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// A notice that tells earlier steps too (event.FoldStories) ends with
// them, newest first, one line each: its time, status and the start of
// its text. The list keeps to earlierBudget characters, so the newest
// update's own text keeps most of the message; steps that do not fit are
// counted ("and 12 earlier updates"), never left out unsaid.

// earlierBudget bounds the list of earlier steps (raw HTML characters).
const earlierBudget = 1800

// earlierExcerpt bounds the text shown of one earlier step.
const earlierExcerpt = 140

// EarlierHTML is the list of the steps e tells too, in loc; "" for none.
func EarlierHTML(e event.Event, loc *time.Location) string { return EarlierOf(en, e, loc) }

// EarlierOf is EarlierHTML in c's language: its heading, statuses, times
// and counts; the steps' texts as the page wrote them.
func EarlierOf(c i18n.Catalog, e event.Event, loc *time.Location) string {
	n := e.Together()
	if n == 0 {
		return ""
	}
	head := c.N("notice.earlier", n)
	lines := []string{head}
	used := len([]rune(head))
	shown := 0
	layout := c.T("time.card")
	for _, s := range e.Folded {
		l := "• " + TimeHTML(s.At, loc, layout, FormatDateTime) + " " + Escape(truncateRunes(noticeLabel(c, s.Status), maxLabelLen))
		if text := firstLine(PageText(c, s.Body)); text != "" {
			l += " — " + Escape(truncateRunes(text, earlierExcerpt))
		}
		if used+len([]rune(l))+1 > earlierBudget-60 {
			break
		}
		lines, used, shown = append(lines, l), used+len([]rune(l))+1, shown+1
	}
	if rest := n - shown; rest > 0 {
		lines = append(lines, c.N("notice.earlierMore", rest))
	}
	return strings.Join(lines, "\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// TogetherLine names, for /why, the steps e told too: "3 earlier updates
// (Investigating, Jan 2 10:02 UTC; ...)"; "" for none.
func TogetherLine(e event.Event) string {
	n := e.Together()
	if n == 0 {
		return ""
	}
	var parts []string
	for i, s := range e.Folded {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, statuspage.Label(s.Status)+", "+s.At.UTC().Format("Jan 2 15:04 UTC"))
	}
	return strconv.Itoa(n) + " earlier update" + plural(n) + " (" + strings.Join(parts, "; ") + ")"
}
