package pages

import "strings"

// Scope names a page-scoped identifier (an event or order key, an incident,
// component or maintenance ID) of the page named page. The legacy page (""),
// the one page a deployment watched before STATUS_PAGES, keeps today's
// identifiers unchanged, so that ledgers, cards and running deliveries
// recorded before the upgrade are still found by them. Every other page puts
// its name and a slash in front: "github/incident:abc:u1:v".
func Scope(page, id string) string {
	if page == "" {
		return id
	}
	return page + "/" + id
}

// Unscope splits an identifier Scope made into its page ("" for the legacy
// page) and the identifier the page itself gives. A legacy identifier never
// has a slash before its first colon with a page name in front of it: the
// keys begin with their kind ("incident:", "component:", "reminder:"), and
// incident.io and Statuspage IDs are letters and digits.
func Unscope(id string) (page, bare string) {
	slash := strings.IndexByte(id, '/')
	if slash <= 0 {
		return "", id
	}
	if colon := strings.IndexByte(id, ':'); colon >= 0 && colon < slash {
		return "", id
	}
	if name := id[:slash]; len(name) <= MaxNameLen && namePattern.MatchString(name) {
		return name, id[slash+1:]
	}
	return "", id
}

// Offer is the pages a deployment offers, the default first, and which of
// them is the legacy page (its name; the worker records it the first time it
// runs with STATUS_PAGES, see docs/pages.md). Everything that turns a page's
// name into an event's Page or a scoped identifier goes through it, so that
// the legacy page is told apart in one place.
//
// Keys, when set (store.Offer sets it), is each listed page's key: what
// its events, documents and followers are named by, decided once per page
// (by its URL) and kept when the operator renames it, so that a name is
// only a label (docs/pages.md, "A page's identity"). A page without a key
// there is keyed by its name, the legacy page by "".
type Offer struct {
	List   []Page
	Legacy string
	Keys   map[string]string
}

// SingleOffer is the offer of a deployment without STATUS_PAGES: one page, legacy.
func SingleOffer(p Page) Offer { return Offer{List: []Page{p}, Legacy: p.Name} }

// Default is the page new chats follow.
func (o Offer) Default() Page {
	if len(o.List) == 0 {
		return Page{}
	}
	return o.List[0]
}

// EventPage is what event.Event.Page holds for the page named name: "" for
// the legacy page.
func (o Offer) EventPage(name string) string {
	if k, ok := o.Keys[name]; ok {
		return k
	}
	if name == o.Legacy {
		return ""
	}
	return name
}

// NameOf is the name of the page an event.Event.Page names ("" is the legacy
// page).
func (o Offer) NameOf(eventPage string) string {
	for name, k := range o.Keys {
		if k == eventPage {
			return name
		}
	}
	if eventPage == "" {
		return o.Legacy
	}
	return eventPage
}

// Scope scopes a page's identifier by the page's name (pages.Scope, with
// the legacy page's identifiers unchanged).
func (o Offer) Scope(name, id string) string { return Scope(o.EventPage(name), id) }

// Lists reports whether an offered page has the event page (key): false
// for a page removed from the list.
func (o Offer) Lists(eventPage string) bool {
	for _, p := range o.List {
		if o.EventPage(p.Name) == eventPage {
			return true
		}
	}
	return false
}

// Find returns the offered page with the name.
func (o Offer) Find(name string) (Page, bool) { return Find(o.List, name) }
