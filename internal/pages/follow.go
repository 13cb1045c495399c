package pages

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// What a chat follows, as plain rules (docs/pages.md, "What a chat
// follows"). A subscription stores the pages it follows the way events name
// them (event.Event.Page, Offer.EventPage): "" for the legacy page, any other
// page by its name. So the legacy page's followers are found by the same
// equality whatever the legacy page is called in STATUS_PAGES, and a
// subscription recorded before pages existed (no list at all) follows the
// legacy page, which is what it followed.

// Followed is the pages a stored list names; none (a subscription from
// before pages): the legacy page alone.
func Followed(stored []string) []string {
	if len(stored) == 0 {
		return []string{""}
	}
	return stored
}

// Follows reports whether a stored list follows the event page.
func Follows(stored []string, eventPage string) bool {
	return slices.Contains(Followed(stored), eventPage)
}

// ErrLastPage: a chat cannot stop following its last page (that is /stop).
var ErrLastPage = errors.New("the last page a chat follows")

// Follow adds an event page to a stored list; false when it is there.
func Follow(stored []string, eventPage string) ([]string, bool) {
	have := Followed(stored)
	if slices.Contains(have, eventPage) {
		return have, false
	}
	return append(slices.Clone(have), eventPage), true
}

// Unfollow removes an event page from a stored list; false when it was not
// there, ErrLastPage when it is the only one.
func Unfollow(stored []string, eventPage string) ([]string, bool, error) {
	have := Followed(stored)
	i := slices.Index(have, eventPage)
	if i < 0 {
		return have, false, nil
	}
	if len(have) == 1 {
		return have, false, ErrLastPage
	}
	return slices.Delete(slices.Clone(have), i, i+1), true, nil
}

// FilterOf is the part of a component filter that belongs to an event page:
// a non-legacy page's entries are its scoped IDs (Scope), the legacy page's
// the bare IDs (and names) filters held before pages. Empty: the chat filters
// nothing of that page, it hears every component of it.
func FilterOf(filter []string, eventPage string) []string {
	var out []string
	for _, id := range filter {
		if p, _ := Unscope(id); p == eventPage {
			out = append(out, id)
		}
	}
	return out
}

// WithoutPage is the filter without the event page's entries (what remains
// once a chat stops following the page).
func WithoutPage(filter []string, eventPage string) []string {
	out := []string{}
	for _, id := range filter {
		if p, _ := Unscope(id); p != eventPage {
			out = append(out, id)
		}
	}
	return out
}

// Names are the names of the event pages, in the offer's order, then any
// the offer no longer lists, as stored.
func (o Offer) Names(eventPages []string) []string {
	var out []string
	for _, p := range o.List {
		if slices.Contains(eventPages, o.EventPage(p.Name)) {
			out = append(out, p.Name)
		}
	}
	for _, ep := range eventPages {
		if n := o.NameOf(ep); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Label is how a notice names its page for a chat: the page's name when the
// chat follows more than one page, "" otherwise (a chat of one page reads
// notices as it always did).
func (o Offer) Label(stored []string, eventPage string) string {
	if len(Followed(stored)) < 2 {
		return ""
	}
	return o.NameOf(eventPage)
}

// Lookup finds an offered page by a name as a user types it (any case,
// spaces around). Its error lists the pages on offer.
func (o Offer) Lookup(typed string) (Page, error) {
	name := strings.ToLower(strings.TrimSpace(typed))
	if p, ok := o.Find(name); ok {
		return p, nil
	}
	if name == "" {
		return Page{}, fmt.Errorf("say which page: %s", o.OnOffer())
	}
	return Page{}, fmt.Errorf("no page is called %q; %s", CutName(typed), o.OnOffer())
}

// OnOffer lists the offered pages' names for a reply.
func (o Offer) OnOffer() string { return "the pages on offer are " + o.NameList() }

// NameList is the offered pages' names, comma-separated, for a catalog
// message that says in its own words that they are on offer.
func (o Offer) NameList() string {
	names := make([]string, len(o.List))
	for i, p := range o.List {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// CutName bounds a typed name echoed back.
func CutName(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > MaxNameLen+10 {
		return string(r[:MaxNameLen+10]) + "…"
	}
	return s
}

// ConfigOffer is the offer of the configured list, its first (default)
// page taken for the legacy page. Provisional (issue 22): which page is
// legacy is the worker's record (the pages collection, docs/pages.md) once
// its store function is in; until then each process builds its Offer here,
// and only here, so that wiring the record in changes this one function.
func ConfigOffer(list []Page) Offer {
	if len(list) == 0 {
		return Offer{}
	}
	return Offer{List: list, Legacy: list[0].Name}
}

// Live is the followed pages (a stored list) the offer still lists, in the
// stored order: a page removed from STATUS_PAGES is followed no more,
// whatever the subscription still names.
func (o Offer) Live(stored []string) []string {
	var out []string
	for _, ep := range Followed(stored) {
		if o.Lists(ep) {
			out = append(out, ep)
		}
	}
	return out
}

// LiveNames are the names of the live pages of a stored list, in the
// offer's order (none: the chat follows no page the bot watches).
func (o Offer) LiveNames(stored []string) []string {
	var out []string
	for _, p := range o.List {
		if slices.Contains(Followed(stored), o.EventPage(p.Name)) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Gone is the followed pages (a stored list) the offer no longer lists.
func (o Offer) Gone(stored []string) []string {
	var out []string
	for _, ep := range Followed(stored) {
		if !o.Lists(ep) {
			out = append(out, ep)
		}
	}
	return out
}

// UnfollowLive is Unfollow for a chat whose list may name pages removed
// from the offer: leaving the last page the bot still watches is
// ErrLastPage too (what remains would be followed in name only), and the
// removed pages go with any change.
func (o Offer) UnfollowLive(stored []string, eventPage string) ([]string, bool, error) {
	have := Followed(stored)
	if !slices.Contains(have, eventPage) {
		return have, false, nil
	}
	if live := o.Live(stored); len(live) == 1 && live[0] == eventPage {
		return have, false, ErrLastPage
	}
	out := []string{}
	for _, ep := range have {
		if ep != eventPage && o.Lists(ep) {
			out = append(out, ep)
		}
	}
	if len(out) == 0 {
		return have, false, ErrLastPage
	}
	return out, true, nil
}

// Restorable is what a restored list (kept settings brought back by
// /start) follows: the pages still on offer (listed reports it), or, when
// none is, def (the default page); dropped are the pages it no longer can.
func Restorable(stored []string, listed func(string) bool, def string) (kept, dropped []string) {
	for _, ep := range Followed(stored) {
		if listed(ep) {
			kept = append(kept, ep)
		} else {
			dropped = append(dropped, ep)
		}
	}
	if len(kept) == 0 {
		kept = []string{def}
	}
	return kept, dropped
}
