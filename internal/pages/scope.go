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
