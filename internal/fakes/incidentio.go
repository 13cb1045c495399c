package fakes

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
)

// IncidentIO is a fake incident.io status page, served the way
// status.openai.com is served today (../shared/reference/status-openai-com.md):
//   - native: GET /proxy/{host} (summary), /proxy/{host}/incidents,
//     /proxy/{host}/incidents/{id}, /proxy/{host}/component_impacts;
//   - the lossy Statuspage shim: /api/v2/summary.json (no incidents, no
//     maintenances, a rotating subset of the components), components.json,
//     status.json, incidents.json (empty bodies, no components, impact only
//     none/minor), and 404 HTML for incidents/unresolved.json and the
//     scheduled-maintenance endpoints.
//
// No ETag, no 304; gzip when asked; times with trimmed fraction digits;
// links with the real //incidents/ double slash in the shim.
type IncidentIO struct {
	Server *httptest.Server
	pageFaults

	mu        sync.Mutex
	groups    []ioGroup
	comps     []ioComp
	status    map[string]string // native status of components in trouble
	impacts   []*ioImpact       // impacts not tied to an incident (SetComponent)
	incidents []*ioInc          // newest first, as the real list
	bytesOut  int64
	shimCalls int
	clock     time.Time
	seq       int
}

type ioGroup struct{ id, name string }

type ioComp struct{ id, name, group string }

type ioImpact struct {
	id, comp, incident, status string
	start                      time.Time
	end                        *time.Time
}

type ioInc struct {
	id, name, status, kind string
	published              time.Time
	affected               map[string]string // component -> worst status
	order                  []string
	impacts                []*ioImpact
	updates                []map[string]any
}

// OpenAI's groups, with their real IDs.
const (
	IOGroupAPIs    = "01K5H8S53SY1KMS4GQMNMQM1K5"
	IOGroupChatGPT = "01K5H8S53SY1KMS4GQMNMZXTR1"
	IOGroupCodex   = "01KMKF9EBTCD8BN9PG8DJZXRSQ"
	IOGroupFedRAMP = "01KKACDSZF5G5JTBJY83GF176Z"
	IOGroupAds     = "01KTQBYDGR2AKA7D6HW6RVAGZC"
)

// Components tests refer to (CLI, Images and Search carry real IDs).
const (
	IOComponentCLI          = "01KMKFAMWKNQ84Z1766MV08ZDE"
	IOComponentImages       = "01JMXBRMFE4MAP2BHSJNZ787WX"
	IOComponentSearch       = "01JMXBNJXGKKP51D4DEJ2HZJ8Q"
	IOComponentResponses    = "01JMXBNJXG1S2D9V65P1ZZTD94"
	IOComponentAPILogin     = "01JMXBQ0000000000000APILGN"
	IOComponentChatGPTLogin = "01JMXBQ0000000000000CGTLGN"
)

// NewIncidentIO starts a page shaped like status.openai.com: five groups,
// 34 components (Login twice, in APIs and in ChatGPT), all operational.
func NewIncidentIO() *IncidentIO {
	f := &IncidentIO{status: map[string]string{}, clock: time.Date(2026, 7, 18, 8, 0, 0, 0, time.UTC)}
	f.groups = []ioGroup{{IOGroupAPIs, "APIs"}, {IOGroupChatGPT, "ChatGPT"}, {IOGroupCodex, "Codex"},
		{IOGroupFedRAMP, "FedRAMP"}, {IOGroupAds, "Ads"}}
	named := map[string]string{"Responses": IOComponentResponses, "Images": IOComponentImages,
		"Search": IOComponentSearch, "CLI": IOComponentCLI}
	add := func(group string, names ...string) {
		for _, n := range names {
			id := named[n]
			switch {
			case n == "Login" && group == IOGroupAPIs:
				id = IOComponentAPILogin
			case n == "Login":
				id = IOComponentChatGPTLogin
			case id == "":
				id = fakeULID(len(f.comps))
			}
			f.comps = append(f.comps, ioComp{id: id, name: n, group: group})
		}
	}
	add(IOGroupAPIs, "Responses", "Chat Completions", "Realtime", "Batch", "Files", "Fine-tuning", "Embeddings",
		"Images", "Moderations", "Audio", "Assistants", "Login")
	add(IOGroupChatGPT, "Login", "Conversations", "Voice mode", "Search", "Deep Research", "File uploads",
		"Agent", "Connectors", "Sora", "GPTs", "Image Generation")
	add(IOGroupCodex, "CLI", "Codex Web", "VS Code extension", "Code Review")
	add(IOGroupFedRAMP, "FedRAMP API", "FedRAMP ChatGPT", "FedRAMP Login")
	add(IOGroupAds, "Ads Manager", "Ads Delivery", "Ads Reporting", "Ads API")
	f.Server = httptest.NewServer(f)
	return f
}

// fakeULID makes a stable 26-character Crockford base-32 ID.
func fakeULID(n int) string {
	const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	b := []byte("01JMXC0000000000000000000")
	for i, v := len(b)-1, n+1; v > 0 && i > 6; i, v = i-1, v/32 {
		b[i] = digits[v%32]
	}
	return string(b) + "Z"
}

// URL is the value for STATUSPAGE_URL.
func (f *IncidentIO) URL() string { return f.Server.URL }

// Close stops the server.
func (f *IncidentIO) Close() { f.Server.Close() }

func (f *IncidentIO) tick() time.Time {
	f.clock = f.clock.Add(time.Minute + 237*time.Millisecond)
	return f.clock
}

func (f *IncidentIO) nextID() string {
	f.seq++
	return fakeULID(1000 + f.seq)
}

// ComponentIDs lists the components, in page order.
func (f *IncidentIO) ComponentIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, len(f.comps))
	for i, c := range f.comps {
		ids[i] = c.id
	}
	return ids
}

// SetComponent sets a component's status directly (an impact without an
// incident), adding the component, ungrouped, if it is new. Statuspage's
// major_outage is taken as the native full_outage.
func (f *IncidentIO) SetComponent(id, name, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.hasComp(id) {
		f.comps = append(f.comps, ioComp{id: id, name: name})
	}
	now := f.tick()
	for _, im := range f.impacts {
		if im.comp == id && im.end == nil {
			im.end = &now
		}
	}
	status = nativeStatus(status)
	if status == "operational" {
		delete(f.status, id)
		return
	}
	f.status[id] = status
	f.impacts = append(f.impacts, &ioImpact{id: f.nextID(), comp: id, status: status, start: now})
}

// RenameComponentIDs gives every component a new ID, as the move from
// Statuspage to incident.io did; it returns old -> new.
func (f *IncidentIO) RenameComponentIDs() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[string]string{}
	for i := range f.comps {
		n := fakeULID(5000 + i)
		m[f.comps[i].id] = n
		f.comps[i].id = n
	}
	return m
}

func (f *IncidentIO) hasComp(id string) bool {
	for _, c := range f.comps {
		if c.id == id {
			return true
		}
	}
	return false
}

func nativeStatus(s string) string {
	if s == "major_outage" {
		return "full_outage"
	}
	return s
}

func (f *IncidentIO) incident(id string) *ioInc {
	for _, in := range f.incidents {
		if in.id == id {
			return in
		}
	}
	return nil
}

// AddIncidentUpdate adds an update to an incident, creating it. impact is
// Statuspage's word and ignored: incident.io derives it from components.
// Resolving an incident closes its impacts and makes its components
// operational again.
func (f *IncidentIO) AddIncidentUpdate(incidentID, name, status, impact, updateID, body string) {
	f.addUpdate(incidentID, name, "incident", status, updateID, body)
}

// AddMaintenanceUpdate adds an update to a maintenance, creating it with a
// window an hour from now. Statuspage's words (scheduled, in_progress,
// completed) are taken as the native maintenance_* ones.
func (f *IncidentIO) AddMaintenanceUpdate(id, name, status, updateID, body string) {
	switch status {
	case "scheduled":
		status = "maintenance_scheduled"
	case "in_progress", "verifying":
		status = "maintenance_in_progress"
	case "completed":
		status = "maintenance_complete"
	}
	f.addUpdate(id, name, "maintenance", status, updateID, body)
}

func (f *IncidentIO) addUpdate(id, name, kind, status, updateID, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.tick()
	in := f.incident(id)
	if in == nil {
		in = &ioInc{id: id, name: name, kind: kind, published: now, affected: map[string]string{}}
		f.incidents = append([]*ioInc{in}, f.incidents...)
	}
	in.status = status
	compStatuses := []any{}
	for _, c := range in.order {
		compStatuses = append(compStatuses, map[string]any{"component_id": c, "status": in.affected[c]})
	}
	in.updates = append(in.updates, map[string]any{
		"id": updateID, "to_status": status, "published_at": ioTime(now), "message_string": body,
		"message": messageTree(body, len(in.updates)%2 == 1), "component_statuses": compStatuses, "automated_update": false,
	})
	if status == "resolved" || status == "maintenance_complete" {
		for _, im := range in.impacts {
			if im.end == nil {
				im.end = &now
			}
		}
		for _, c := range in.order {
			delete(f.status, c)
		}
	}
	if status == "maintenance_in_progress" {
		for _, c := range in.order {
			f.status[c] = "under_maintenance"
		}
	}
}

// SetMaintenanceStatus moves a maintenance on without an update, as
// incident.io does when one starts or ends on schedule.
func (f *IncidentIO) SetMaintenanceStatus(id, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if in := f.incident(id); in != nil {
		in.status = status
		if status == "maintenance_complete" {
			for _, c := range in.order {
				delete(f.status, c)
			}
		}
	}
}

// SetMaintenanceWindow (re)schedules a maintenance: incident.io keeps the
// window only in its component impacts, so every impact of the maintenance
// takes the new start and end. Call it after AffectComponent.
func (f *IncidentIO) SetMaintenanceWindow(id string, start, end time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in := f.incident(id)
	if in == nil || len(in.impacts) == 0 {
		panic("fakes: SetMaintenanceWindow before the maintenance affects a component: " + id)
	}
	start, end = start.UTC(), end.UTC()
	for _, im := range in.impacts {
		im.start, im.end = start, &end
	}
}

// AffectComponent marks a component as affected by an incident with the
// given status (degraded_performance, partial_outage, full_outage or
// under_maintenance), opening an impact; the component takes that status
// (a maintenance's only once it is in progress).
func (f *IncidentIO) AffectComponent(incidentID, componentID, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in := f.incident(incidentID)
	if in == nil {
		panic("fakes: AffectComponent before the incident exists: " + incidentID)
	}
	status = nativeStatus(status)
	if _, ok := in.affected[componentID]; !ok {
		in.order = append(in.order, componentID)
	}
	in.affected[componentID] = status
	start := f.tick()
	if in.kind == "maintenance" {
		status = "under_maintenance"
		start = in.published.Add(time.Hour).Truncate(time.Hour)
		end := start.Add(2 * time.Hour)
		in.impacts = append(in.impacts, &ioImpact{id: f.nextID(), comp: componentID, incident: in.id, status: status, start: start, end: &end})
		return
	}
	in.impacts = append(in.impacts, &ioImpact{id: f.nextID(), comp: componentID, incident: in.id, status: status, start: start})
	f.status[componentID] = status
}

// messageTree is the ProseMirror form of a text, bare or (alternately) in
// the mrkdwn wrapper seen in 2026 captures.
func messageTree(body string, wrapped bool) map[string]any {
	var paras []any
	for _, p := range strings.Split(body, "\n\n") {
		paras = append(paras, map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": p}}})
	}
	doc := map[string]any{"type": "doc", "content": paras}
	if wrapped {
		return map[string]any{"feature_set": "mrkdwn", "markdown": body, "schema_version": 1, "text_node": doc}
	}
	return doc
}

// BytesServed is the body bytes written on the wire (after compression).
func (f *IncidentIO) BytesServed() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bytesOut
}

func (f *IncidentIO) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.faulted(w, r) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	body, ok := f.route(r)
	if !ok {
		notFoundHTML(w)
		return
	}
	f.writeJSON(w, r, body)
}

func (f *IncidentIO) route(r *http.Request) (any, bool) {
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/proxy/"); ok {
		_, sub, _ := strings.Cut(rest, "/")
		switch {
		case sub == "" || sub == "summary":
			return map[string]any{"summary": f.nativeSummary(r)}, true
		case sub == "incidents":
			return map[string]any{"incidents": f.nativeIncidents(nil)}, true
		case strings.HasPrefix(sub, "incidents/"):
			if in := f.incident(strings.TrimPrefix(sub, "incidents/")); in != nil {
				return map[string]any{"incident": f.nativeIncident(in)}, true
			}
		case sub == "component_impacts":
			return f.componentImpacts(r)
		}
		return nil, false
	}
	switch path {
	case "/api/v2/summary.json":
		return f.shimSummary(r), true
	case "/api/v2/status.json":
		s := f.shimSummary(r)
		return map[string]any{"page": s["page"], "status": s["status"]}, true
	case "/api/v2/components.json":
		return map[string]any{"page": f.shimPage(r), "components": f.shimComponents(false)}, true
	case "/api/v2/incidents.json":
		return map[string]any{"page": f.shimPage(r), "incidents": f.shimIncidents(r)}, true
	}
	return nil, false
}

// notFoundHTML is how the real page answers the shim paths it dropped.
func notFoundHTML(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>404: This page could not be found.</title></head><body><h1>404</h1><h2>This page could not be found.</h2></body></html>"))
}

func (f *IncidentIO) writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	b, _ := json.Marshal(v)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		cw := &countingWriter{w: w}
		zw := gzip.NewWriter(cw)
		_, _ = zw.Write(b)
		_ = zw.Close()
		f.bytesOut += cw.n
		return
	}
	n, _ := w.Write(b)
	f.bytesOut += int64(n)
}

type countingWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ioTime formats like incident.io: UTC, 0-3 fraction digits, trailing
// zeros trimmed.
func ioTime(t time.Time) string {
	s := t.UTC().Format("2006-01-02T15:04:05.000")
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return s + "Z"
}

func (f *IncidentIO) publicURL(r *http.Request) string { return "http://" + r.Host }

func (f *IncidentIO) nativeSummary(r *http.Request) map[string]any {
	comps := []any{}
	for _, c := range f.comps {
		comps = append(comps, map[string]any{"id": c.id, "name": c.name, "status_page_id": "01J0PAGE000000000000000000"})
	}
	affected := []any{}
	for _, c := range f.comps {
		if st, ok := f.status[c.id]; ok {
			affected = append(affected, map[string]any{"component_id": c.id, "status": st, "current_status": st})
		}
	}
	var items []any
	for _, g := range f.groups {
		var leaves []any
		for _, c := range f.comps {
			if c.group == g.id {
				leaves = append(leaves, f.leaf(c))
			}
		}
		items = append(items, map[string]any{"group": map[string]any{"id": g.id, "name": g.name, "hidden": false,
			"display_aggregated_uptime": true, "components": leaves}})
	}
	for _, c := range f.comps {
		if c.group == "" {
			items = append(items, map[string]any{"component": f.leaf(c)})
		}
	}
	ongoing, scheduled := []any{}, []any{}
	for _, in := range f.incidents {
		switch {
		case in.kind == "incident" && in.status != "resolved":
			ongoing = append(ongoing, f.nativeIncident(in))
		case in.status == "maintenance_in_progress":
			ongoing = append(ongoing, f.nativeIncident(in))
		case in.status == "maintenance_scheduled":
			scheduled = append(scheduled, f.nativeIncident(in))
		}
	}
	return map[string]any{
		"id": "01J0PAGE000000000000000000", "name": "OpenAI", "subpath": "openai", "public_url": f.publicURL(r),
		"components": comps, "affected_components": affected, "ongoing_incidents": ongoing,
		"scheduled_maintenances": scheduled, "expose_status_summary_api": true,
		"data_available_since": "2021-03-02T02:07:24.886Z", "theme": "light", "locale": "en",
		"structure": map[string]any{"id": "01J0STRUCT0000000000000000", "status_page_id": "01J0PAGE000000000000000000", "items": items},
	}
}

func (f *IncidentIO) leaf(c ioComp) map[string]any {
	return map[string]any{"component_id": c.id, "name": c.name, "hidden": false, "display_uptime": true,
		"data_available_since": "2021-03-02T02:07:24.886Z"}
}

func (f *IncidentIO) nativeIncidents(_ *http.Request) []any {
	out := []any{}
	for _, in := range f.incidents {
		out = append(out, f.nativeIncident(in))
	}
	return out
}

func (f *IncidentIO) nativeIncident(in *ioInc) map[string]any {
	affected, impacts := []any{}, []any{}
	for _, c := range in.order {
		cur := f.status[c]
		if cur == "" {
			cur = "operational"
		}
		affected = append(affected, map[string]any{"component_id": c, "status": in.affected[c], "current_status": cur})
	}
	var start, end *time.Time
	worst := "operational"
	for _, im := range in.impacts {
		impacts = append(impacts, impactJSON(im, false))
		if start == nil || im.start.Before(*start) {
			s := im.start
			start = &s
		}
		if im.end != nil && (end == nil || im.end.After(*end)) {
			end = im.end
		}
		if rank(im.status) > rank(worst) {
			worst = im.status
		}
	}
	summaries := []any{}
	if start != nil {
		s := map[string]any{"start_at": ioTime(*start), "worst_component_status": worst}
		if end != nil {
			s["end_at"] = ioTime(*end)
		}
		summaries = append(summaries, s)
	}
	return map[string]any{"id": in.id, "name": in.name, "status": in.status, "type": in.kind,
		"published_at": ioTime(in.published), "status_page_id": "01J0PAGE000000000000000000",
		"affected_components": affected, "component_impacts": impacts, "status_summaries": summaries,
		"updates": in.updates}
}

func impactJSON(im *ioImpact, withIncident bool) map[string]any {
	m := map[string]any{"id": im.id, "component_id": im.comp, "status": im.status, "start_at": ioTime(im.start)}
	if im.end != nil {
		m["end_at"] = ioTime(*im.end)
	}
	if withIncident {
		m["status_page_incident_id"] = im.incident
	}
	return m
}

func rank(s string) int {
	return map[string]int{"degraded_performance": 1, "partial_outage": 2, "full_outage": 3}[s]
}

// componentImpacts answers the impact timeline with the page's own uptime
// per component and group: full outages count fully, partial outages and
// degradations not at all (incident.io's default weighting is not public;
// any fixed rule will do for a fake).
func (f *IncidentIO) componentImpacts(r *http.Request) (any, bool) {
	start, end := parseISO(r.URL.Query().Get("start_at")), parseISO(r.URL.Query().Get("end_at"))
	if start.IsZero() || end.IsZero() || !end.After(start) || end.Sub(start) > 93*24*time.Hour {
		return nil, false
	}
	all := append([]*ioImpact{}, f.impacts...)
	links := []any{}
	for _, in := range f.incidents {
		all = append(all, in.impacts...)
		links = append(links, map[string]any{"id": in.id, "name": in.name, "status": in.status, "published_at": ioTime(in.published)})
	}
	impacts := []any{}
	down := map[string]time.Duration{}
	for _, im := range all {
		e := end
		if im.end != nil && im.end.Before(end) {
			e = *im.end
		}
		s := im.start
		if s.Before(start) {
			s = start
		}
		if !e.After(s) {
			continue
		}
		impacts = append(impacts, impactJSON(im, true))
		if im.status == "full_outage" {
			down[im.comp] += e.Sub(s)
		}
	}
	span := end.Sub(start)
	uptimes := []any{}
	groupDown := map[string]time.Duration{}
	for _, c := range f.comps {
		pct := 100 * (1 - float64(down[c.id])/float64(span))
		uptimes = append(uptimes, map[string]any{"component_id": c.id, "status_page_component_group_id": nil, "uptime": fmt.Sprintf("%.2f", pct)})
		groupDown[c.group] = max(groupDown[c.group], down[c.id])
	}
	groups := make([]string, 0, len(groupDown))
	for g := range groupDown {
		if g != "" {
			groups = append(groups, g)
		}
	}
	sort.Strings(groups)
	for _, g := range groups {
		pct := 100 * (1 - float64(groupDown[g])/float64(span))
		uptimes = append(uptimes, map[string]any{"component_id": nil, "status_page_component_group_id": g, "uptime": fmt.Sprintf("%.2f", pct)})
	}
	return map[string]any{"component_impacts": impacts, "component_uptimes": uptimes, "incident_links": links}, true
}

func parseISO(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// The shim, lossy as the real one.

func (f *IncidentIO) shimPage(r *http.Request) map[string]any {
	return map[string]any{"id": "01J0PAGE000000000000000000", "name": "OpenAI", "url": f.publicURL(r),
		"time_zone": "Etc/UTC", "updated_at": "2026-07-09T19:25:56Z"}
}

// shimComponents lists the components with the page-edit stamp as every
// updated_at; with rotate, a rotating subset (about three quarters), as
// summary.json does.
func (f *IncidentIO) shimComponents(rotate bool) []any {
	out := []any{}
	if rotate {
		f.shimCalls++
	}
	for i, c := range f.comps {
		if rotate && (i+f.shimCalls)%4 == 0 {
			continue
		}
		st := f.status[c.id]
		switch st {
		case "":
			st = "operational"
		case "full_outage":
			st = "major_outage"
		}
		out = append(out, map[string]any{"id": c.id, "name": c.name, "status": st, "position": i + 1,
			"updated_at": "2026-07-09T19:25:56Z"})
	}
	return out
}

func (f *IncidentIO) shimSummary(r *http.Request) map[string]any {
	indicator, desc := "none", "All Systems Operational"
	if len(f.status) > 0 {
		indicator, desc = "minor", "Partially Degraded Service"
	}
	return map[string]any{"page": f.shimPage(r), "status": map[string]any{"indicator": indicator, "description": desc},
		"components": f.shimComponents(true)}
}

func (f *IncidentIO) shimIncidents(r *http.Request) []any {
	out := []any{}
	for _, in := range f.incidents {
		if in.kind != "incident" {
			continue
		}
		impact := "none"
		if len(in.impacts) > 0 {
			impact = "minor"
		}
		var ups []any
		var last time.Time
		for i := len(in.updates) - 1; i >= 0; i-- {
			u := in.updates[i]
			ups = append(ups, map[string]any{"id": u["id"], "status": u["to_status"], "body": "", "created_at": u["published_at"],
				"updated_at": u["published_at"], "display_at": u["published_at"]})
			if t := parseISO(u["published_at"].(string)); t.After(last) {
				last = t
			}
		}
		var resolved any
		if in.status == "resolved" {
			resolved = ioTime(last)
		}
		out = append(out, map[string]any{"id": in.id, "name": in.name, "status": in.status, "impact": impact,
			"created_at": ioTime(in.published), "updated_at": ioTime(last), "resolved_at": resolved, "started_at": nil,
			"shortlink": f.publicURL(r) + "//incidents/" + in.id, "components": []any{}, "incident_updates": ups})
	}
	return out
}
