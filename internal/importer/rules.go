// Package importer moves the previous bot's subscribers (one Go process on
// MongoDB, before Temporal) into ours: `statusbot import --from-mongo`.
//
// The rules here are plain functions: what a previous record's key, types
// and component filter become today. The page has moved from Atlassian
// Statuspage to incident.io, so component IDs changed; a filter entry is
// carried over by ID when today's page still has it, otherwise by name.
package importer

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Previous is one subscriber of the previous bot.
type Previous struct {
	Key        string   // "chatID" or "chatID:threadID"; "" when Err
	ID         string   // its _id as stored, for reports: "1001", 1001, ObjectId("...")
	Types      []string // incident, component (all: both)
	Components []string // component IDs of the old page; names in old records
	Err        string   // why the record cannot be imported
}

// OldComponent is the previous bot's record of a component of the old page.
type OldComponent struct {
	ID, Name, Group string
}

// ParseKey splits "chatID" or "chatID:threadID".
func ParseKey(key string) (chatID int64, threadID int, err error) {
	chat, thread, hasThread := strings.Cut(strings.TrimSpace(key), ":")
	chatID, err = strconv.ParseInt(chat, 10, 64)
	if err != nil || chatID == 0 {
		return 0, 0, fmt.Errorf("key %q is not chatID or chatID:threadID", key)
	}
	if hasThread {
		threadID, err = strconv.Atoi(thread)
		if err != nil || threadID <= 0 {
			return 0, 0, fmt.Errorf("key %q is not chatID or chatID:threadID", key)
		}
	}
	return chatID, threadID, nil
}

// Kinds maps the previous types. Both incident and component (the
// previous default, or "all") become today's default, which adds
// maintenance notices: the previous bot had none. Unknown types are
// returned apart; with nothing known left the defaults apply.
func Kinds(types []string) (kinds []event.Kind, unknown []string) {
	var incident, component bool
	for _, t := range types {
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "incident", "incidents":
			incident = true
		case "component", "components":
			component = true
		case "all":
			incident, component = true, true
		default:
			unknown = append(unknown, t)
		}
	}
	switch {
	case incident && !component:
		return []event.Kind{event.KindIncident}, unknown
	case component && !incident:
		return []event.Kind{event.KindComponent}, unknown
	}
	return slices.Clone(event.DefaultKinds), unknown
}

// Unmapped is a filter entry with no component of today's page.
type Unmapped struct {
	Entry string // as stored by the previous bot
	Why   string
}

// Mapping is what a filter became.
type Mapping struct {
	IDs      []string // today's filter
	ByID     int      // entries whose ID today's page still has
	ByName   int      // entries found by their name
	Unmapped []Unmapped
}

// MapFilter maps a previous component filter to today's component IDs:
// an entry that is one of today's IDs stays; otherwise its name (from the
// previous bot's component records, or the entry itself: old records
// stored names) is looked up among today's components, exactly and
// ignoring case. A name two components share (Login) is settled by the
// group when the previous record has one. An entry that maps to nothing
// stays in the filter as it was: the filter never widens to every
// component, and /subscribe shows and replaces it.
func MapFilter(filter []string, old map[string]OldComponent, today []statuspage.Component) Mapping {
	var m Mapping
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			m.IDs = append(m.IDs, id)
		}
	}
	for _, entry := range filter {
		if c, ok := byID(today, entry); ok {
			m.ByID++
			add(c.ID)
			continue
		}
		name, group := entry, ""
		if o, ok := old[entry]; ok && o.Name != "" {
			name, group = o.Name, o.Group
		}
		found := named(today, name)
		if len(found) > 1 && group != "" {
			found = slices.DeleteFunc(found, func(c statuspage.Component) bool { return !strings.EqualFold(c.GroupName, group) })
		}
		switch len(found) {
		case 1:
			m.ByName++
			add(found[0].ID)
		case 0:
			why := fmt.Sprintf("no component named %q on today's page", name)
			if _, known := old[entry]; !known && looksLikeID(entry) {
				why = "an ID today's page does not have, and the previous bot's records give no name for it"
			}
			m.Unmapped = append(m.Unmapped, Unmapped{Entry: entry, Why: why})
			add(entry)
		default:
			ids := make([]string, len(found))
			for i, c := range found {
				ids[i] = c.ID + " (" + c.GroupName + ")"
			}
			m.Unmapped = append(m.Unmapped, Unmapped{Entry: entry, Why: fmt.Sprintf("%d components are named %q: %s", len(found), name, strings.Join(ids, ", "))})
			add(entry)
		}
	}
	if m.IDs == nil {
		m.IDs = []string{}
	}
	return m
}

func byID(today []statuspage.Component, id string) (statuspage.Component, bool) {
	for _, c := range today {
		if !c.Group && strings.EqualFold(c.ID, id) {
			return c, true
		}
	}
	return statuspage.Component{}, false
}

func named(today []statuspage.Component, name string) []statuspage.Component {
	var out []statuspage.Component
	for _, c := range today {
		if !c.Group && strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(name)) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// looksLikeID: Statuspage IDs are 12 lower-case letters and digits,
// incident.io's 26-character ULIDs; names have spaces or capitals.
func looksLikeID(s string) bool {
	if len(s) < 8 || strings.ContainsAny(s, " -") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return strings.ToLower(s) == s || strings.ToUpper(s) == s
}
