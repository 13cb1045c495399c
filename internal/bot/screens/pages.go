package screens

import (
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/message"
	offered "github.com/openai-status-bot/statusbot/internal/pages"
)

// The Pages screen: the pages on offer, each followed or not, one tap to
// follow or leave it ("P:<index>:<on>"). Drawn only when more than one page
// is offered; the last page followed cannot be left here (/stop does that).

// Offering gives the screens the pages on offer (none: no Pages screen).
func (k *KB) Offering(o offered.Offer) *KB {
	k.offer = o
	return k
}

// ShowsPages reports whether the keyboard has a Pages screen.
func (k *KB) ShowsPages() bool { return len(k.offer.List) > 1 }

// Pages is the screen of the pages on offer.
func (k *KB) Pages() Screen {
	var rows [][]models.InlineKeyboardButton
	followed := offered.Followed(k.sub.Pages)
	for i, p := range k.offer.List {
		on := offered.Follows(followed, k.offer.EventPage(p.Name))
		rows = append(rows, []models.InlineKeyboardButton{k.Button(mark(on, p.Name), "P", strconv.Itoa(i), boolArg(!on))})
	}
	return Screen{Text: "<b>Pages</b>\nTap a page to follow it or stop. Notices name their page when this chat follows more than one. " +
		"Typed: /subscribe page &lt;name&gt;, /unsubscribe page &lt;name&gt;.", Rows: append(rows, k.back())}
}

// PageChoice is what a "P" button asks: the offered page, and whether to
// follow it (false: stop following it).
func PageChoice(cb Callback, o offered.Offer) (offered.Page, bool, bool) {
	if cb.Op != "P" {
		return offered.Page{}, false, false
	}
	i, ok1 := cb.Arg(0, len(o.List))
	on, ok2 := cb.Arg(1, 2)
	if !ok1 || !ok2 {
		return offered.Page{}, false, false
	}
	return o.List[i], on == 1, true
}

// PagesLine is the Summary line of the pages a chat follows ("" when only
// one page is on offer).
func PagesLine(sub []string, o offered.Offer) string {
	if len(o.List) < 2 {
		return ""
	}
	return "Pages: " + message.Escape(strings.Join(o.Names(offered.Followed(sub)), ", "))
}
