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
)

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
	Incidents             []Incident  `json:"incidents"`
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

// errNotServed marks a 404: the page does not serve that endpoint at all
// (incident.io's Statuspage shim answers 404 for scheduled maintenances).
var errNotServed = errors.New("not served (HTTP 404)")

// Client fetches an Atlassian Statuspage (v2 API).
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

// Fetch reads summary.json, incidents.json and scheduled-maintenances.json.
// It fails only when summary and incidents both fail; a part that failed is
// reported in ComponentsErr, IncidentsErr or MaintenancesErr. A maintenance
// list the page does not serve (404) is no error while the summary, which
// lists the upcoming ones too, answers.
func (c *Client) Fetch(ctx context.Context) (*Page, int64, error) {
	p := Page{Provider: ProviderStatuspage}
	var s summaryJSON
	var inc incidentsJSON
	n1, errS := c.get(ctx, "/api/v2/summary.json", &s)
	n2, errI := c.get(ctx, "/api/v2/incidents.json", &inc)
	// The full maintenance list: the only place a completed one shows.
	var sm maintenancesJSON
	n3, errM := c.get(ctx, "/api/v2/scheduled-maintenances.json", &sm)
	n2 += n3
	switch {
	case errM == nil:
	case !errors.Is(errM, errNotServed):
		p.MaintenancesErr = errM.Error()
	case errS != nil:
		// Then the summary is the page's only list of maintenances, and it
		// failed: a window missing now may still be scheduled.
		p.MaintenancesErr = fmt.Sprintf("%v; the summary, the only other list, failed", errM)
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
		p.Components = nameGroups(s.Components)
	}
	if errI != nil {
		p.IncidentsErr = errI.Error()
	}
	seen := map[string]bool{}
	for _, list := range [][]Incident{inc.Incidents, sm.ScheduledMaintenances, s.Incidents, s.ScheduledMaintenances} {
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
	case resp.StatusCode == http.StatusNotFound:
		return n, fmt.Errorf("GET %s: %w", path, errNotServed)
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

// nameGroups gives each member of a group row its group's name.
func nameGroups(comps []Component) []Component {
	names := map[string]string{}
	for _, c := range comps {
		if c.Group {
			names[c.ID] = c.Name
		}
	}
	for i := range comps {
		if !comps[i].Group && comps[i].GroupID != "" {
			comps[i].GroupName = names[comps[i].GroupID]
		}
	}
	return comps
}
