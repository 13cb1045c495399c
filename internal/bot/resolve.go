package bot

import (
	"strings"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// components returns the page's components without group rows, each ID
// once (first row wins), in page order.
func components(p *statuspage.Page) []statuspage.Component {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []statuspage.Component
	for _, c := range p.Components {
		if c.Group || c.ID == "" || seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		out = append(out, c)
	}
	return out
}

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
	shown := componentNames(comps)
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

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// componentNames maps IDs to display names; a name two components share
// gets its group ("Login (ChatGPT)"), or else the ID, appended so the user
// can tell them apart.
func componentNames(comps []statuspage.Component) map[string]string {
	count, inGroup := map[string]int{}, map[string]int{}
	for _, c := range comps {
		count[c.Name]++
		inGroup[c.Name+"\x00"+c.GroupName]++
	}
	out := make(map[string]string, len(comps))
	for _, c := range comps {
		name := c.Name
		if strings.TrimSpace(name) == "" {
			name = c.ID
		}
		switch {
		case count[c.Name] > 1 && c.GroupName != "" && inGroup[c.Name+"\x00"+c.GroupName] == 1:
			name += " (" + c.GroupName + ")"
		case count[c.Name] > 1:
			name += " (" + c.ID + ")"
		}
		out[c.ID] = name
	}
	return out
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
