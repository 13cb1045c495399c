// Package statuspage reads a public status page into one normalized model.
// Two providers fill it: incident.io's native API (status.openai.com since
// about February 2025) and the Atlassian Statuspage v2 API (many other
// pages, and the fallback). Everything downstream (the diff, the messages,
// the bot's commands) reads only the model.
package statuspage

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Provider names, as STATUSPAGE_PROVIDER takes them.
const (
	ProviderAuto       = "auto"
	ProviderIncidentIO = "incidentio"
	ProviderStatuspage = "statuspage"
)

// Fetcher reads the whole page once. It fails only when nothing could be
// read; a part that failed is named in the page's *Err fields.
type Fetcher interface {
	Fetch(ctx context.Context) (*Page, int64, error)
}

// Page is a status page as the bot sees it, whichever provider filled it.
type Page struct {
	// Provider that filled the page: ProviderIncidentIO or ProviderStatuspage.
	Provider    string      `json:"provider,omitempty"`
	Name        string      `json:"name"`
	URL         string      `json:"url"`
	Indicator   string      `json:"indicator"`
	Description string      `json:"description"`
	Components  []Component `json:"components"`
	// ComponentsComplete: Components is the page's whole list, so a
	// component missing from it is gone (incident.io's summary). Statuspage
	// shims list a rotating subset: there, absence means nothing.
	ComponentsComplete bool `json:"components_complete,omitempty"`
	// Incidents holds the recent incidents and the maintenances, each once.
	Incidents []Incident `json:"incidents"`
	// ComponentsErr / IncidentsErr say which part could not be fetched: one
	// failing endpoint must not hide the other's changes. With IncidentsErr
	// set, Incidents holds what the summary alone lists (ongoing ones).
	ComponentsErr string `json:"components_err,omitempty"`
	IncidentsErr  string `json:"incidents_err,omitempty"`
	// MaintenancesErr: the full maintenance list failed; maintenances then
	// come from the summary alone (upcoming and in progress only).
	MaintenancesErr string `json:"maintenances_err,omitempty"`
}

// Component is a component, or a group row (Group set, Components listing
// its members' IDs).
type Component struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	UpdatedAt   time.Time `json:"updated_at"`
	Position    int       `json:"position"`
	Description string    `json:"description,omitempty"`
	GroupID     string    `json:"group_id,omitempty"`
	GroupName   string    `json:"group_name,omitempty"`
	Group       bool      `json:"group"`
	Components  []string  `json:"components,omitempty"`
}

type Incident struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Status     string     `json:"status"`
	Impact     string     `json:"impact"`
	Shortlink  string     `json:"shortlink"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	ResolvedAt *time.Time `json:"resolved_at"`
	// Maintenance marks a maintenance whose impact word says nothing
	// (incident.io's type "maintenance").
	Maintenance    bool             `json:"maintenance,omitempty"`
	ScheduledFor   *time.Time       `json:"scheduled_for,omitempty"`
	ScheduledUntil *time.Time       `json:"scheduled_until,omitempty"`
	Components     []IncidentComp   `json:"components"`
	Updates        []IncidentUpdate `json:"incident_updates"`
}

// IsMaintenance reports whether the incident is a scheduled maintenance.
func (i Incident) IsMaintenance() bool {
	return i.Maintenance || i.Impact == "maintenance" || i.ScheduledFor != nil
}

type IncidentComp struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type IncidentUpdate struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	DisplayAt time.Time `json:"display_at"`
}

// Open reports whether an incident (not a maintenance) is unresolved.
func (p *Page) Open() bool {
	for _, i := range p.Incidents {
		if !i.IsMaintenance() && i.Status != "resolved" && i.Status != "postmortem" && i.Status != "completed" {
			return true
		}
	}
	return false
}

// KnownComponentStatus reports whether the model knows a component status
// word; an unknown one is shown as text but never announced on its own.
func KnownComponentStatus(s string) bool {
	switch s {
	case "operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance":
		return true
	}
	return false
}

// Label turns an API status word into the words users read. Unknown words
// are shown as they are, underscores as spaces.
func Label(status string) string {
	switch status {
	case "operational":
		return "Operational"
	case "degraded_performance":
		return "Degraded Performance"
	case "partial_outage":
		return "Partial Outage"
	case "major_outage", "full_outage":
		return "Major Outage"
	case "under_maintenance":
		return "Under Maintenance"
	case "none":
		return "None"
	case "minor":
		return "Minor"
	case "major":
		return "Major"
	case "critical":
		return "Critical"
	case "investigating":
		return "Investigating"
	case "identified":
		return "Identified"
	case "monitoring":
		return "Monitoring"
	case "resolved":
		return "Resolved"
	case "":
		return "Unknown"
	}
	s := strings.ReplaceAll(status, "_", " ")
	// Capitalise the first character, not the first byte.
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
