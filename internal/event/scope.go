package event

import (
	"strings"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Scoped is the event as delivered for the page whose event.Event.Page is
// page: Page set and every identifier the page gives scoped by it
// (pages.Scope), so that keys, delivery IDs, cards, ledgers and history of
// two pages never meet. The checkpoint keeps the page's own identifiers
// (Diff compares them with the page); the legacy page ("") is unchanged.
func (e Event) Scoped(page string) Event {
	if page == "" {
		return e
	}
	scope := func(id string) string {
		if id == "" {
			return ""
		}
		return pages.Scope(page, id)
	}
	e.Page = page
	e.Key, e.OrderKey, e.Predecessor = scope(e.Key), scope(e.OrderKey), scope(e.Predecessor)
	e.ComponentID, e.IncidentID = scope(e.ComponentID), scope(e.IncidentID)
	e.ComponentIDs = scopeAll(e.ComponentIDs, scope)
	return e
}

// Unscoped undoes Scoped: the event in its page's own identifiers, as the
// checkpoint records it. Identifiers of other pages are left alone.
func (e Event) Unscoped() Event {
	if e.Page == "" {
		return e
	}
	prefix := e.Page + "/"
	bare := func(id string) string { return strings.TrimPrefix(id, prefix) }
	e.Key, e.OrderKey, e.Predecessor = bare(e.Key), bare(e.OrderKey), bare(e.Predecessor)
	e.ComponentID, e.IncidentID = bare(e.ComponentID), bare(e.IncidentID)
	e.ComponentIDs = scopeAll(e.ComponentIDs, bare)
	e.Page = ""
	return e
}

func scopeAll(ids []string, f func(string) string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = f(id)
	}
	return out
}

// ScopedAll scopes every event (Scoped).
func ScopedAll(page string, evs []Event) []Event {
	if page == "" {
		return evs
	}
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = e.Scoped(page)
	}
	return out
}

// UnscopedAll unscopes every event (Unscoped).
func UnscopedAll(evs []Event) []Event {
	if len(evs) == 0 {
		return evs
	}
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = e.Unscoped()
	}
	return out
}
