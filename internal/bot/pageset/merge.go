package pageset

import (
	"strings"

	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Part is one page of those a command covers, as read.
type Part struct {
	Name string // the page's short name
	// EventPage is what events and filters name it by ("" the legacy page).
	EventPage string
	Page      *statuspage.Page
}

// Merge is the one page the component commands and the filter read
// for a chat of several pages: every part's components with the IDs filters
// hold for them (pages.Scope: the legacy page's bare), a name that two of
// the parts share told apart by the page's name ("API (github)"), and, with
// more than one part, each part's groups named after it ("github · Git
// Operations"; ungrouped components under the page's name). One part alone
// keeps its names; its IDs are scoped all the same.
func Merge(parts []Part) *statuspage.Page {
	out := &statuspage.Page{ComponentsComplete: true}
	if len(parts) == 1 {
		p := parts[0].Page
		out.Provider, out.Name, out.URL, out.Indicator, out.Description = p.Provider, p.Name, p.URL, p.Indicator, p.Description
		out.IncidentsErr, out.MaintenancesErr = p.IncidentsErr, p.MaintenancesErr
	}
	names := map[string]map[string]bool{} // component name -> parts
	for _, part := range parts {
		for _, c := range part.Page.Components {
			if !c.Group {
				if names[c.Name] == nil {
					names[c.Name] = map[string]bool{}
				}
				names[c.Name][part.Name] = true
			}
		}
	}
	var failed []string
	for _, part := range parts {
		p := part.Page
		if p.ComponentsErr != "" {
			failed = append(failed, part.Name)
		}
		out.ComponentsComplete = out.ComponentsComplete && p.ComponentsComplete
		scope := func(id string) string {
			if id == "" {
				return ""
			}
			return pages.Scope(part.EventPage, id)
		}
		for _, c := range p.Components {
			c.ID, c.GroupID = scope(c.ID), scope(c.GroupID)
			if len(c.Components) > 0 {
				members := make([]string, len(c.Components))
				for i, m := range c.Components {
					members[i] = scope(m)
				}
				c.Components = members
			}
			if !c.Group && len(names[c.Name]) > 1 {
				c.Name += " (" + part.Name + ")"
			}
			if len(parts) > 1 {
				switch {
				case c.Group:
					c.Name = part.Name + " · " + c.Name
				case c.GroupName != "":
					c.GroupName = part.Name + " · " + c.GroupName
				case c.GroupID == "":
					c.GroupName = part.Name
				} // else the group row's name, prefixed above
			}
			out.Components = append(out.Components, c)
		}
		for _, inc := range p.Incidents {
			inc.ID = scope(inc.ID)
			out.Incidents = append(out.Incidents, inc)
		}
	}
	if len(failed) == len(parts) && len(parts) > 0 {
		// Only when no part has components: the others' still serve.
		out.ComponentsErr = "components unavailable: " + strings.Join(failed, ", ")
	}
	return out
}

// Unavailable names the parts whose components (or incidents) could not
// be read, for a note under a reply that covers the others.
func Unavailable(parts []Part, incidents bool) []string {
	var out []string
	for _, p := range parts {
		if (!incidents && p.Page.ComponentsErr != "") || (incidents && p.Page.IncidentsErr != "") {
			out = append(out, p.Name)
		}
	}
	return out
}
