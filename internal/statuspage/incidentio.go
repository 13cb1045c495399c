package statuspage

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// IncidentIO reads an incident.io status page through the native endpoints
// its own web page uses: GET {base}/proxy/{host} (summary) and
// GET {base}/proxy/{host}/incidents (recent incidents and maintenances,
// with update texts, affected components and impact windows).
type IncidentIO struct {
	http *Client
	// proxy is "/proxy/{host}", host taken from the page's URL.
	proxy string
	now   func() time.Time
}

// NewIncidentIO returns a client for the page at baseURL.
func NewIncidentIO(baseURL string, timeout time.Duration) *IncidentIO {
	c := NewClient(baseURL, timeout)
	host := baseURL
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return &IncidentIO{http: c, proxy: "/proxy/" + host, now: time.Now}
}

// The native shapes, as far as the bot reads them. Times are strings and
// parsed leniently: one odd value must not make the whole page unreadable.
type ioSummaryJSON struct {
	Summary *struct {
		Name               string        `json:"name"`
		PublicURL          string        `json:"public_url"`
		Components         []ioComponent `json:"components"`
		AffectedComponents []ioAffected  `json:"affected_components"`
		OngoingIncidents   []ioIncident  `json:"ongoing_incidents"`
		Maintenances       []ioIncident  `json:"scheduled_maintenances"`
		InProgress         []ioIncident  `json:"in_progress_maintenances"`
		Structure          struct {
			Items []ioStructureItem `json:"items"`
		} `json:"structure"`
	} `json:"summary"`
}

type ioComponent struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type ioAffected struct {
	ComponentID   string `json:"component_id"`
	Status        string `json:"status"`
	CurrentStatus string `json:"current_status"`
}

type ioLeaf struct {
	ComponentID string `json:"component_id"`
	Name        string `json:"name"`
	Hidden      bool   `json:"hidden"`
}

type ioStructureItem struct {
	Group *struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Hidden     bool     `json:"hidden"`
		Components []ioLeaf `json:"components"`
	} `json:"group"`
	Component *ioLeaf `json:"component"`
}

type ioIncident struct {
	ID                 string       `json:"id"`
	Name               string       `json:"name"`
	Status             string       `json:"status"`
	Type               string       `json:"type"`
	PublishedAt        string       `json:"published_at"`
	AffectedComponents []ioAffected `json:"affected_components"`
	ComponentImpacts   []ioImpact   `json:"component_impacts"`
	Updates            []ioUpdate   `json:"updates"`
}

type ioImpact struct {
	ID          string  `json:"id"`
	ComponentID string  `json:"component_id"`
	IncidentID  string  `json:"status_page_incident_id"`
	Status      string  `json:"status"`
	StartAt     string  `json:"start_at"`
	EndAt       *string `json:"end_at"`
}

type ioUpdate struct {
	ID            string  `json:"id"`
	ToStatus      string  `json:"to_status"`
	MessageString string  `json:"message_string"`
	PublishedAt   string  `json:"published_at"`
	Message       *ioNode `json:"message"`
}

type ioIncidentsJSON struct {
	Incidents []ioIncident `json:"incidents"`
}

// Fetch reads the summary and the incident list. It fails only when the
// summary fails: without it there are no components, no names and no
// ongoing incidents. A failed incident list is reported in IncidentsErr;
// the ongoing incidents and maintenances of the summary are still there.
func (c *IncidentIO) Fetch(ctx context.Context) (*Page, int64, error) {
	var sum ioSummaryJSON
	n1, err := c.http.get(ctx, c.proxy, &sum)
	if err == nil && sum.Summary == nil {
		err = fmt.Errorf("GET %s: no summary object: %w", c.proxy, errNotServed)
	}
	if err != nil {
		return nil, n1, fmt.Errorf("summary: %w", err)
	}
	var list ioIncidentsJSON
	n2, errI := c.http.get(ctx, c.proxy+"/incidents", &list)
	s := sum.Summary
	p := &Page{Provider: ProviderIncidentIO, Name: s.Name, URL: strings.TrimRight(s.PublicURL, "/"), ComponentsComplete: true}
	if p.URL == "" {
		p.URL = c.http.BaseURL
	}
	var incidents []ioIncident
	if errI != nil {
		p.IncidentsErr = errI.Error()
	} else {
		incidents = list.Incidents
	}
	// The list first: it is the fuller view of an incident in both.
	incidents = append(incidents, s.OngoingIncidents...)
	incidents = append(incidents, s.InProgress...)
	incidents = append(incidents, s.Maintenances...)
	names := componentNames(s.Components)
	seen := map[string]bool{}
	for _, in := range incidents {
		if in.ID == "" || seen[in.ID] {
			continue
		}
		seen[in.ID] = true
		p.Incidents = append(p.Incidents, normalizeIncident(in, p.URL, names))
	}
	p.Components = normalizeComponents(s.Components, s.AffectedComponents, s.Structure.Items, incidents, c.now())
	p.Indicator, p.Description = overall(p.Components)
	return p, n1 + n2, nil
}

// ComponentUptime is the page's own uptime figure for a component or a
// group over a window (incident.io computes it; "99.97" means 99.97%).
type ComponentUptime struct {
	ComponentID string
	GroupID     string
	Percent     float64
}

type ioImpactsJSON struct {
	ComponentUptimes []struct {
		ComponentID *string `json:"component_id"`
		GroupID     *string `json:"status_page_component_group_id"`
		Uptime      string  `json:"uptime"`
	} `json:"component_uptimes"`
}

// Uptimes asks the page for its uptime figures over [start, end).
func (c *IncidentIO) Uptimes(ctx context.Context, start, end time.Time) ([]ComponentUptime, error) {
	q := url.Values{"start_at": {start.UTC().Format(time.RFC3339)}, "end_at": {end.UTC().Format(time.RFC3339)}}
	var body ioImpactsJSON
	if _, err := c.http.get(ctx, c.proxy+"/component_impacts?"+q.Encode(), &body); err != nil {
		return nil, err
	}
	var out []ComponentUptime
	for _, u := range body.ComponentUptimes {
		pct, ok := parsePercent(u.Uptime)
		if !ok {
			continue
		}
		cu := ComponentUptime{Percent: pct}
		if u.ComponentID != nil {
			cu.ComponentID = *u.ComponentID
		}
		if u.GroupID != nil {
			cu.GroupID = *u.GroupID
		}
		out = append(out, cu)
	}
	return out, nil
}
