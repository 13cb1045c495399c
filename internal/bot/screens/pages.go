package screens

import (
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	offered "github.com/openai-status-bot/statusbot/internal/pages"
)

// The Pages screen: the pages on offer, each followed or not, one tap to
// follow or leave it ("F:<key>:<on>": the page by its key, which a rename
// or a reordered list leaves as it is; the legacy page's key "" is written
// "-", which no key is). Drawn only when more than one page is offered; the
// last page followed cannot be left here (/stop does that). Keyboards drawn
// before named pages by their place in the list ("P:<index>:<on>"): a tap
// is refused as out of date and the screen drawn afresh (OldPagesButton).

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
	for _, p := range k.offer.List {
		on := offered.Follows(followed, k.offer.EventPage(p.Name))
		rows = append(rows, []models.InlineKeyboardButton{k.Button(mark(on, p.Name), "F", keyArg(k.offer.EventPage(p.Name)), boolArg(!on))})
	}
	return Screen{Text: k.lang.T("scr.pages"), Rows: append(rows, k.back())}
}

// legacyKeyArg is the legacy page's key ("") in a button.
const legacyKeyArg = "-"

func keyArg(key string) string {
	if key == "" {
		return legacyKeyArg
	}
	return key
}

// PageChoice is what an "F" button asks: the offered page, and whether to
// follow it (false: stop following it); ok is false for a page no longer
// offered.
func PageChoice(cb Callback, o offered.Offer) (offered.Page, bool, bool) {
	if cb.Op != "F" || len(cb.Args) != 2 {
		return offered.Page{}, false, false
	}
	key := cb.Args[0]
	if key == legacyKeyArg {
		key = ""
	}
	on, ok := cb.Arg(1, 2)
	if !ok {
		return offered.Page{}, false, false
	}
	for _, p := range o.List {
		if o.EventPage(p.Name) == key {
			return p, on == 1, true
		}
	}
	return offered.Page{}, false, false
}

// OldPagesButton reports a Pages button drawn before buttons named their
// page by its key ("P:<index>"): its index may be another page's now.
func OldPagesButton(cb Callback) bool { return cb.Op == "P" }

// PagesLine is PagesLineIn in English.
func PagesLine(sub []string, o offered.Offer) string {
	return PagesLineIn(i18n.Of(i18n.Default), sub, o)
}

// PagesLineIn is the Summary line of the pages a chat follows, in c's
// language: "" when one page is on offer and the chat follows it, as
// before pages. Only pages still on offer count as followed; a chat whose
// pages were all removed is told so and how to choose one (FollowsNoPage).
func PagesLineIn(c i18n.Catalog, sub []string, o offered.Offer) string {
	live := o.LiveNames(sub)
	if len(live) == 0 && len(o.List) > 0 {
		return FollowsNoPageIn(c, o)
	}
	if len(o.List) < 2 {
		return ""
	}
	return c.T("follow.pagesLine", "Pages", message.Escape(strings.Join(live, ", ")))
}

// FollowsNoPage is FollowsNoPageIn in English.
func FollowsNoPage(o offered.Offer) string { return FollowsNoPageIn(i18n.Of(i18n.Default), o) }

// FollowsNoPageIn says that a chat follows no page the bot still watches
// (its pages were removed from the list), and how to follow one.
func FollowsNoPageIn(c i18n.Catalog, o offered.Offer) string {
	if len(o.List) == 1 {
		return c.T("follow.noneOne", "Page", message.Escape(o.List[0].Name))
	}
	return c.T("follow.noneMany", "Pages", message.Escape(o.NameList()))
}
