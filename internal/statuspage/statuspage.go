// Package statuspage reads an Atlassian Statuspage public API (v2).
package statuspage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Page is the subset of summary.json and incidents.json the bot needs.
type Page struct {
	Name        string      `json:"name"`
	URL         string      `json:"url"`
	Indicator   string      `json:"indicator"`
	Description string      `json:"description"`
	Components  []Component `json:"components"`
	// Incidents holds the recent incidents and the scheduled maintenances,
	// each once, as the API lists them.
	Incidents []Incident `json:"incidents"`
	// ComponentsErr / IncidentsErr say which half could not be fetched: one
	// failing endpoint must not hide the other's changes.
	ComponentsErr string `json:"components_err,omitempty"`
	IncidentsErr  string `json:"incidents_err,omitempty"`
	// MaintenancesErr: scheduled-maintenances.json failed; maintenances
	// then come from summary.json alone (upcoming and in progress only).
	MaintenancesErr string `json:"maintenances_err,omitempty"`
}

type Component struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	UpdatedAt   time.Time `json:"updated_at"`
	Position    int       `json:"position"`
	Description string    `json:"description,omitempty"`
	GroupID     string    `json:"group_id,omitempty"`
	Group       bool      `json:"group"`
	Components  []string  `json:"components,omitempty"`
}

type Incident struct {
	ID             string           `json:"id"`
	Name           string           `json:"name"`
	Status         string           `json:"status"`
	Impact         string           `json:"impact"`
	Shortlink      string           `json:"shortlink"`
	CreatedAt      time.Time        `json:"created_at"`
	UpdatedAt      time.Time        `json:"updated_at"`
	ResolvedAt     *time.Time       `json:"resolved_at"`
	ScheduledFor   *time.Time       `json:"scheduled_for,omitempty"`
	ScheduledUntil *time.Time       `json:"scheduled_until,omitempty"`
	Components     []IncidentComp   `json:"components"`
	Updates        []IncidentUpdate `json:"incident_updates"`
}

// IsMaintenance reports whether the incident is a scheduled maintenance.
func (i Incident) IsMaintenance() bool {
	return i.Impact == "maintenance" || i.ScheduledFor != nil
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

type summaryJSON struct {
	Page struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"page"`
	Status struct {
		Indicator   string `json:"indicator"`
		Description string `json:"description"`
	} `json:"status"`
	Components            []Component `json:"components"`
	ScheduledMaintenances []Incident  `json:"scheduled_maintenances"`
}

type maintenancesJSON struct {
	ScheduledMaintenances []Incident `json:"scheduled_maintenances"`
}

type incidentsJSON struct {
	Incidents []Incident `json:"incidents"`
}

// MaxBodyBytes bounds every response: a misbehaving page cannot exhaust memory.
const MaxBodyBytes = 4 << 20

// ErrTooLarge is returned for a response over MaxBodyBytes.
var ErrTooLarge = errors.New("response exceeds size limit")

// Client fetches one status page.
type Client struct {
	BaseURL string
	HTTP    *http.Client

	// Validators and bodies of the last answers, for conditional requests:
	// an unchanged page costs a 304 instead of the whole body.
	mu    sync.Mutex
	cache map[string]cachedBody
}

type cachedBody struct {
	etag, lastModified string
	body               []byte
}

// NewClient returns a client whose every request ends after timeout.
func NewClient(baseURL string, timeout time.Duration) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{Timeout: timeout}}
}

// Fetch reads summary.json and incidents.json. It fails only when both fail;
// a half that failed is reported in ComponentsErr or IncidentsErr.
func (c *Client) Fetch(ctx context.Context) (*Page, int64, error) {
	var p Page
	var s summaryJSON
	var inc incidentsJSON
	n1, errS := c.get(ctx, "/api/v2/summary.json", &s)
	n2, errI := c.get(ctx, "/api/v2/incidents.json", &inc)
	// The full maintenance list: the only place a completed one shows.
	var sm maintenancesJSON
	n3, errM := c.get(ctx, "/api/v2/scheduled-maintenances.json", &sm)
	n2 += n3
	if errM != nil {
		p.MaintenancesErr = errM.Error()
	}
	if errS != nil && errI != nil {
		// %w keeps both causes for errors.Is (ErrTooLarge, timeouts).
		return nil, n1 + n2, fmt.Errorf("summary: %w; incidents: %w", errS, errI)
	}
	if errS != nil {
		p.ComponentsErr = errS.Error()
	} else {
		p.Name, p.URL = s.Page.Name, s.Page.URL
		p.Indicator, p.Description = s.Status.Indicator, s.Status.Description
		p.Components = s.Components
	}
	if errI != nil {
		p.IncidentsErr = errI.Error()
	}
	seen := map[string]bool{}
	for _, list := range [][]Incident{inc.Incidents, sm.ScheduledMaintenances, s.ScheduledMaintenances} {
		for _, i := range list {
			if i.ID == "" || seen[i.ID] {
				continue
			}
			seen[i.ID] = true
			p.Incidents = append(p.Incidents, i)
		}
	}
	if p.URL == "" {
		p.URL = c.BaseURL
	}
	return &p, n1 + n2, nil
}

func (c *Client) get(ctx context.Context, path string, into any) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "openai-status-bot")
	c.mu.Lock()
	prev, havePrev := c.cache[path]
	c.mu.Unlock()
	if havePrev {
		if prev.etag != "" {
			req.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			req.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	n := int64(len(body))
	if err != nil {
		return n, fmt.Errorf("GET %s: %w", path, err)
	}
	if n > MaxBodyBytes {
		return n, fmt.Errorf("GET %s: %w (%d bytes)", path, ErrTooLarge, MaxBodyBytes)
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && havePrev:
		body = prev.body
	case resp.StatusCode != http.StatusOK:
		return n, fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return n, fmt.Errorf("GET %s: malformed JSON: %w", path, err)
	}
	if resp.StatusCode == http.StatusOK {
		etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		c.mu.Lock()
		if c.cache == nil {
			c.cache = map[string]cachedBody{}
		}
		if etag != "" || lm != "" {
			c.cache[path] = cachedBody{etag: etag, lastModified: lm, body: body}
		} else {
			delete(c.cache, path)
		}
		c.mu.Unlock()
	}
	return n, nil
}

// Label turns an API status word into the words users read.
func Label(status string) string {
	switch status {
	case "operational":
		return "Operational"
	case "degraded_performance":
		return "Degraded Performance"
	case "partial_outage":
		return "Partial Outage"
	case "major_outage":
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
