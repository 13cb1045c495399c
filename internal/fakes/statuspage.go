package fakes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Statuspage is a fake Atlassian Statuspage serving /api/v2/summary.json and
// /api/v2/incidents.json in the real shapes.
type Statuspage struct {
	Server *httptest.Server
	pageFaults

	mu         sync.Mutex
	components []map[string]any
	incidents  []map[string]any
	maints     []map[string]any
	windows    map[string][2]string // maintenance id: scheduled_for, scheduled_until
	clock      time.Time
	name       string // the page's name, as its summary gives it
	pageID     string
}

// StatuspageComponent is a component a fake Statuspage starts with.
type StatuspageComponent struct{ ID, Name string }

// NewStatuspage starts a page named OpenAI with two components, both
// operational.
func NewStatuspage() *Statuspage {
	return newStatuspage("OpenAI", "page00001", StatuspageComponent{"api0000001", "API"}, StatuspageComponent{"chatgpt001", "ChatGPT"})
}

// NewNamedStatuspage starts a page of its own (its own name and page ID)
// with the components, all operational: a second page beside
// NewStatuspage's, such as GitHubComponents.
func NewNamedStatuspage(name string, components ...StatuspageComponent) *Statuspage {
	sum := sha256.Sum256([]byte(name))
	return newStatuspage(name, hex.EncodeToString(sum[:6]), components...)
}

// GitHubComponents are components shaped like www.githubstatus.com's
// (real names, made-up IDs of Statuspage's 12-character form).
var GitHubComponents = []StatuspageComponent{
	{"ghgitops0001", "Git Operations"}, {"ghwebhooks01", "Webhooks"}, {"ghapireqs001", "API Requests"},
	{"ghissues0001", "Issues"}, {"ghpulls00001", "Pull Requests"}, {"ghactions001", "Actions"},
	{"ghpackages01", "Packages"}, {"ghpages00001", "Pages"}, {"ghcodespace1", "Codespaces"}, {"ghcopilot001", "Copilot"},
}

func newStatuspage(name, pageID string, components ...StatuspageComponent) *Statuspage {
	s := &Statuspage{clock: time.Date(2026, 3, 8, 1, 0, 0, 0, time.FixedZone("PST", -8*3600)), name: name, pageID: pageID}
	for _, c := range components {
		s.SetComponent(c.ID, c.Name, "operational")
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// ServeHTTP makes the fake usable behind any server (cmd/fakeapis).
func (s *Statuspage) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r) }

// URL is the value for STATUSPAGE_URL.
func (s *Statuspage) URL() string { return s.Server.URL }

// Close stops the server.
func (s *Statuspage) Close() { s.Server.Close() }

func (s *Statuspage) tick() string {
	s.clock = s.clock.Add(time.Minute)
	return s.clock.Format("2006-01-02T15:04:05.000-07:00")
}

// SetComponent adds a component or changes its status.
func (s *Statuspage) SetComponent(id, name, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.tick()
	for _, c := range s.components {
		if c["id"] == id {
			c["status"], c["updated_at"] = status, now
			return
		}
	}
	s.components = append(s.components, map[string]any{
		"id": id, "name": name, "status": status, "created_at": now, "updated_at": now,
		"position": len(s.components) + 1, "description": nil, "showcase": true, "start_date": nil,
		"group_id": nil, "page_id": s.pageID, "group": false, "only_show_if_degraded": false,
	})
}

// AddIncidentUpdate adds an update to an incident, creating the incident.
func (s *Statuspage) AddIncidentUpdate(incidentID, name, status, impact, updateID, body string) {
	s.addUpdate(&s.incidents, incidentID, name, status, impact, updateID, body, false)
}

// AddMaintenanceUpdate adds an update to a scheduled maintenance, creating
// it. Summary lists it while it is not completed; the full list
// (scheduled-maintenances.json) always.
func (s *Statuspage) AddMaintenanceUpdate(id, name, status, updateID, body string) {
	s.addUpdate(&s.maints, id, name, status, "maintenance", updateID, body, true)
}

// SetMaintenanceWindow sets the window a scheduled maintenance announces
// (scheduled_for, scheduled_until), now or, when it does not exist yet,
// when AddMaintenanceUpdate creates it (otherwise with both at the page's
// clock).
func (s *Statuspage) SetMaintenanceWindow(id string, from, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.windows == nil {
		s.windows = map[string][2]string{}
	}
	w := [2]string{from.Format("2006-01-02T15:04:05.000Z07:00"), until.Format("2006-01-02T15:04:05.000Z07:00")}
	s.windows[id] = w
	for _, m := range s.maints {
		if m["id"] == id {
			m["scheduled_for"], m["scheduled_until"] = w[0], w[1]
		}
	}
}

// Update is one update of AddIncidentUpdates.
type Update struct{ ID, Status, Body string }

// AddIncidentUpdates adds several updates to an incident at once (one
// minute apart on the page's clock), creating it: a poll sees all or none
// of them, as when a page posted them between two polls.
func (s *Statuspage) AddIncidentUpdates(incidentID, name, impact string, updates ...Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range updates {
		s.addUpdateLocked(&s.incidents, incidentID, name, u.Status, impact, u.ID, u.Body, false)
	}
}

func (s *Statuspage) addUpdate(list *[]map[string]any, id, name, status, impact, updateID, body string, scheduled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addUpdateLocked(list, id, name, status, impact, updateID, body, scheduled)
}

func (s *Statuspage) addUpdateLocked(list *[]map[string]any, id, name, status, impact, updateID, body string, scheduled bool) {
	now := s.tick()
	var inc map[string]any
	for _, i := range *list {
		if i["id"] == id {
			inc = i
		}
	}
	if inc == nil {
		inc = map[string]any{"id": id, "name": name, "impact": impact, "created_at": now,
			"shortlink": "https://stspg.io/" + id, "page_id": s.pageID, "monitoring_at": nil,
			"resolved_at": nil, "started_at": now, "components": []any{}, "incident_updates": []any{}}
		if scheduled {
			inc["scheduled_for"], inc["scheduled_until"] = now, now
			if w, ok := s.windows[id]; ok {
				inc["scheduled_for"], inc["scheduled_until"] = w[0], w[1]
			}
		}
		*list = append([]map[string]any{inc}, *list...)
	}
	inc["status"], inc["updated_at"] = status, now
	u := map[string]any{"id": updateID, "incident_id": id, "status": status, "body": body,
		"created_at": now, "updated_at": now, "display_at": now, "affected_components": nil}
	inc["incident_updates"] = append([]any{u}, inc["incident_updates"].([]any)...)
}

func (s *Statuspage) serve(w http.ResponseWriter, r *http.Request) {
	if s.faulted(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page := map[string]any{"id": s.pageID, "name": s.name, "url": "http://" + r.Host, "time_zone": "America/Los_Angeles", "updated_at": s.clock.Format(time.RFC3339)}
	switch r.URL.Path {
	case "/api/v2/summary.json":
		indicator, desc := "none", "All Systems Operational"
		for _, c := range s.components {
			if c["status"] != "operational" {
				indicator, desc = "minor", "Partially Degraded Service"
			}
		}
		var unresolved []any
		for _, i := range s.incidents {
			if i["status"] != "resolved" {
				unresolved = append(unresolved, i)
			}
		}
		var active []any
		for _, m := range s.maints {
			if m["status"] != "completed" {
				active = append(active, m)
			}
		}
		writeJSONTagged(w, r, map[string]any{"page": page, "status": map[string]any{"indicator": indicator, "description": desc},
			"components": s.components, "incidents": nonNil(unresolved), "scheduled_maintenances": nonNil(active)})
	case "/api/v2/scheduled-maintenances.json":
		writeJSONTagged(w, r, map[string]any{"page": page, "scheduled_maintenances": nonNil(anySlice(s.maints))})
	case "/api/v2/incidents.json":
		writeJSONTagged(w, r, map[string]any{"page": page, "incidents": nonNil(anySlice(s.incidents))})
	default:
		http.NotFound(w, r)
	}
}

func anySlice(m []map[string]any) []any {
	out := make([]any, len(m))
	for i := range m {
		out[i] = m[i]
	}
	return out
}

func nonNil(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}

// ServerError answers 500 with an HTML body, like a failing CDN.
func ServerError(w http.ResponseWriter, _ *http.Request) bool {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(500)
	_, _ = w.Write([]byte("<html><body>500 Internal Server Error</body></html>"))
	return true
}

// NotServed answers 404, as a page that does not serve an endpoint at all.
func NotServed(w http.ResponseWriter, r *http.Request) bool {
	http.NotFound(w, r)
	return true
}

// MalformedJSON answers 200 with broken JSON.
func MalformedJSON(w http.ResponseWriter, _ *http.Request) bool {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"page":{"id":"x"},"components":[{"id":`))
	return true
}

// Hang never answers until the client gives up.
func Hang(_ http.ResponseWriter, r *http.Request) bool {
	<-r.Context().Done()
	return true
}

// Huge answers a valid-looking JSON body of n bytes.
func Huge(n int) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"components":[],"pad":"`))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for written := 0; written < n; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return true
			}
		}
		_, _ = w.Write([]byte(`"}`))
		return true
	}
}

// writeJSONTagged answers with an ETag, and 304 when the client has it,
// like Statuspage's CDN.
func writeJSONTagged(w http.ResponseWriter, r *http.Request, v any) {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// AffectComponent lists a component as affected by an incident (as the
// real incidents.json does in "components") and gives it the status.
func (s *Statuspage) AffectComponent(incidentID, componentID, status string) {
	s.mu.Lock()
	var inc, comp map[string]any
	for _, list := range [][]map[string]any{s.incidents, s.maints} {
		for _, i := range list {
			if i["id"] == incidentID {
				inc = i
			}
		}
	}
	for _, c := range s.components {
		if c["id"] == componentID {
			comp = c
		}
	}
	if inc == nil || comp == nil {
		s.mu.Unlock()
		panic("fakes: AffectComponent needs an existing incident and component")
	}
	inc["components"] = append(inc["components"].([]any), map[string]any{"id": componentID, "name": comp["name"], "status": status})
	name := comp["name"].(string)
	s.mu.Unlock()
	if !strings.HasPrefix(status, "under_") || inc["impact"] != "maintenance" {
		s.SetComponent(componentID, name, status)
	}
}

// ComponentIDs lists the components, in page order.
func (s *Statuspage) ComponentIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, c := range s.components {
		ids = append(ids, c["id"].(string))
	}
	return ids
}

// SetIncidentImpact changes an incident's impact, as Statuspage pages do
// when an incident turns out smaller (or larger) than first announced.
func (s *Statuspage) SetIncidentImpact(incidentID, impact string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range s.incidents {
		if i["id"] == incidentID {
			i["impact"], i["updated_at"] = impact, s.tick()
		}
	}
}

// EditIncidentUpdate changes the text of an update already posted, as a
// status page's editor does for a typo fix: the body and updated_at
// change, display_at and created_at stay.
func (s *Statuspage) EditIncidentUpdate(incidentID, updateID, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range s.incidents {
		if i["id"] != incidentID {
			continue
		}
		for _, raw := range i["incident_updates"].([]any) {
			if u := raw.(map[string]any); u["id"] == updateID {
				u["body"], u["updated_at"] = body, s.tick()
			}
		}
	}
}

// ListIncidentComponents replaces the components an incident lists (its
// "components"), as when later updates name other components; their
// statuses are left alone.
func (s *Statuspage) ListIncidentComponents(incidentID string, componentIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byID := map[string]map[string]any{}
	for _, c := range s.components {
		byID[c["id"].(string)] = c
	}
	for _, i := range s.incidents {
		if i["id"] != incidentID {
			continue
		}
		list := []any{}
		for _, id := range componentIDs {
			if c, ok := byID[id]; ok {
				list = append(list, map[string]any{"id": id, "name": c["name"], "status": c["status"]})
			}
		}
		i["components"] = list
	}
}
