package commands

import (
	"strings"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Resolution is the outcome of looking a component up by name or ID.
type Resolution struct {
	// Match is set when exactly one component matched.
	Match *statuspage.Component
	// Ambiguous lists the matches when several matched at the same stage.
	Ambiguous []statuspage.Component
}

// ResolveComponent finds a component by exact ID (case-insensitive), then
// exact name, then the name /components shows ("Login (ChatGPT)" for a
// name two components share), then name substring (all case-insensitive).
// The first stage with any match decides; several matches there make the
// result ambiguous. Group rows are never matched.
func ResolveComponent(comps []statuspage.Component, query string) Resolution {
	q := strings.TrimSpace(trimQuotes(query))
	if q == "" {
		return Resolution{}
	}
	shown := screens.ComponentNames(comps)
	stages := []func(c statuspage.Component) bool{
		func(c statuspage.Component) bool { return strings.EqualFold(c.ID, q) },
		func(c statuspage.Component) bool { return strings.EqualFold(strings.TrimSpace(c.Name), q) },
		func(c statuspage.Component) bool { return strings.EqualFold(strings.TrimSpace(shown[c.ID]), q) },
		func(c statuspage.Component) bool { return containsFold(c.Name, q) },
	}
	for _, match := range stages {
		var found []statuspage.Component
		for _, c := range comps {
			if !c.Group && match(c) {
				found = append(found, c)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return Resolution{Match: &found[0]}
		default:
			return Resolution{Ambiguous: found}
		}
	}
	return Resolution{}
}

// ResolveIn is ResolveComponent over the merged page of a chat of several
// pages (comps: its components), and then over the names each page's own
// /components section shows: "Login (ChatGPT)", the name two of one
// page's components share told apart by their group, is not the merged
// page's name ("Login (openai · ChatGPT)"), yet it is what the chat was
// shown and types back.
func ResolveIn(comps []statuspage.Component, parts []pageset.Part, query string) Resolution {
	res := ResolveComponent(comps, query)
	if res.Match != nil || len(res.Ambiguous) > 0 || len(parts) < 2 {
		return res
	}
	q := strings.TrimSpace(trimQuotes(query))
	byID := map[string]statuspage.Component{}
	for _, c := range comps {
		byID[c.ID] = c
	}
	var found []statuspage.Component
	for _, part := range parts {
		for id, name := range screens.ComponentNames(screens.Components(part.Page)) {
			if c, ok := byID[pages.Scope(part.EventPage, id)]; ok && q != "" && strings.EqualFold(strings.TrimSpace(name), q) {
				found = append(found, c)
			}
		}
	}
	switch len(found) {
	case 0:
		return Resolution{}
	case 1:
		return Resolution{Match: &found[0]}
	}
	return Resolution{Ambiguous: found}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// filterIndex finds a stored filter entry equal to the query (an ID, or a
// name kept by older records), case-insensitive; -1 if none.
func filterIndex(filter []string, query string) int {
	q := strings.TrimSpace(trimQuotes(query))
	for i, f := range filter {
		if strings.EqualFold(f, q) {
			return i
		}
	}
	return -1
}
