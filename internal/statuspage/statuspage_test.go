package statuspage_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Shaped like the real status.openai.com responses (trimmed).
const summaryJSON = `{
  "page": {"id": "01JMYB4A3PFAAXTJ4W6M8N4XA6", "name": "OpenAI", "url": "https://status.openai.com",
           "time_zone": "America/Los_Angeles", "updated_at": "2026-03-08T02:01:07.391-08:00"},
  "status": {"indicator": "minor", "description": "Partially Degraded Service"},
  "components": [
    {"id": "grp-apis", "name": "APIs", "status": "degraded_performance", "created_at": "2024-01-01T00:00:00.000-08:00",
     "updated_at": "2026-03-08T01:59:00.123-08:00", "position": 1, "description": null, "showcase": false,
     "start_date": null, "group_id": null, "page_id": "01JMYB4A3PFAAXTJ4W6M8N4XA6", "group": true,
     "only_show_if_degraded": false, "components": ["cmp-chat-api", "cmp-responses"]},
    {"id": "cmp-chat-api", "name": "Chat Completions", "status": "degraded_performance",
     "created_at": "2024-01-01T00:00:00.000-08:00", "updated_at": "2026-03-08T01:59:00.123-08:00", "position": 2,
     "description": "The /v1/chat/completions endpoint", "showcase": true, "start_date": "2024-01-01",
     "group_id": "grp-apis", "page_id": "01JMYB4A3PFAAXTJ4W6M8N4XA6", "group": false, "only_show_if_degraded": false},
    {"id": "cmp-responses", "name": "Responses", "status": "operational",
     "created_at": "2024-01-01T00:00:00.000-08:00", "updated_at": "2026-03-07T12:00:00.000Z", "position": 3,
     "description": null, "showcase": true, "start_date": null, "group_id": "grp-apis",
     "page_id": "01JMYB4A3PFAAXTJ4W6M8N4XA6", "group": false, "only_show_if_degraded": false}
  ],
  "incidents": [
    {"id": "inc-1", "name": "Elevated errors on Chat Completions", "status": "identified", "impact": "minor",
     "shortlink": "https://stspg.io/abc", "created_at": "2026-03-08T01:58:00.000-08:00", "updated_at": "2026-03-08T02:01:07.000-08:00",
     "monitoring_at": null, "resolved_at": null, "started_at": "2026-03-08T01:58:00.000-08:00",
     "page_id": "01JMYB4A3PFAAXTJ4W6M8N4XA6", "components": [], "incident_updates": []}
  ],
  "scheduled_maintenances": [
    {"id": "mnt-1", "name": "Database maintenance", "status": "scheduled", "impact": "maintenance",
     "shortlink": "https://stspg.io/mnt", "created_at": "2026-03-01T10:00:00.000-08:00", "updated_at": "2026-03-01T10:00:00.000-08:00",
     "monitoring_at": null, "resolved_at": null, "started_at": "2026-03-01T10:00:00.000-08:00",
     "scheduled_for": "2026-03-10T01:00:00.000-07:00", "scheduled_until": "2026-03-10T03:00:00.000-07:00",
     "page_id": "01JMYB4A3PFAAXTJ4W6M8N4XA6",
     "components": [{"id": "cmp-responses", "name": "Responses", "status": "operational"}],
     "incident_updates": [{"id": "mnt-1-u1", "incident_id": "mnt-1", "status": "scheduled",
       "body": "We will perform maintenance.", "created_at": "2026-03-01T10:00:00.000-08:00",
       "updated_at": "2026-03-01T10:00:00.000-08:00", "display_at": "2026-03-01T10:00:00.000-08:00",
       "affected_components": null}]},
    {"id": "inc-2", "name": "Listed in both feeds", "status": "scheduled", "impact": "maintenance",
     "shortlink": "https://stspg.io/dup", "created_at": "2026-03-02T10:00:00Z", "updated_at": "2026-03-02T10:00:00Z",
     "resolved_at": null, "scheduled_for": "2026-03-11T01:00:00Z", "components": [], "incident_updates": []}
  ]
}`

const incidentsJSON = `{
  "page": {"id": "01JMYB4A3PFAAXTJ4W6M8N4XA6", "name": "OpenAI", "url": "https://status.openai.com"},
  "incidents": [
    {"id": "inc-1", "name": "Elevated errors on Chat Completions", "status": "identified", "impact": "minor",
     "shortlink": "https://stspg.io/abc", "created_at": "2026-03-08T01:58:00.000-08:00",
     "updated_at": "2026-03-08T02:01:07.000-08:00", "monitoring_at": null, "resolved_at": null,
     "started_at": "2026-03-08T01:58:00.000-08:00", "page_id": "01JMYB4A3PFAAXTJ4W6M8N4XA6",
     "components": [{"id": "cmp-chat-api", "name": "Chat Completions", "status": "degraded_performance"}],
     "incident_updates": [
       {"id": "upd-2", "incident_id": "inc-1", "status": "identified", "body": "We found the cause & are fixing it <soon>.",
        "created_at": "2026-03-08T02:01:00.000-08:00", "updated_at": "2026-03-08T02:01:07.000-08:00",
        "display_at": "2026-03-08T02:01:00.000-08:00",
        "affected_components": [{"code": "cmp-chat-api", "name": "Chat Completions", "old_status": "operational", "new_status": "degraded_performance"}]},
       {"id": "upd-1", "incident_id": "inc-1", "status": "investigating", "body": "We are investigating.",
        "created_at": "2026-03-08T09:58:00Z", "updated_at": "2026-03-08T09:58:00Z",
        "display_at": "2026-03-08T09:58:00Z", "affected_components": null}
     ]},
    {"id": "inc-0", "name": "Resolved one", "status": "resolved", "impact": "none", "shortlink": "https://stspg.io/old",
     "created_at": "2026-03-01T00:00:00Z", "updated_at": "2026-03-01T01:00:00Z", "monitoring_at": null,
     "resolved_at": "2026-03-01T01:00:00.000-08:00", "started_at": "2026-03-01T00:00:00Z",
     "components": [], "incident_updates": [
       {"id": "upd-0", "status": "resolved", "body": "", "created_at": "2026-03-01T01:00:00Z",
        "updated_at": "2026-03-01T01:00:00Z", "display_at": "2026-03-01T01:00:00Z"}]},
    {"id": "inc-2", "name": "Listed in both feeds", "status": "scheduled", "impact": "maintenance",
     "shortlink": "https://stspg.io/dup", "created_at": "2026-03-02T10:00:00Z", "updated_at": "2026-03-02T10:00:00Z",
     "resolved_at": null, "scheduled_for": "2026-03-11T01:00:00Z", "components": [], "incident_updates": []}
  ]
}`

// server serves the two endpoints with the given handlers and counts hits.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newServer(t *testing.T, summary, incidents http.HandlerFunc) *server {
	t.Helper()
	s := &server{hits: map[string]int{}}
	mux := http.NewServeMux()
	count := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.hits[r.URL.Path]++
			s.mu.Unlock()
			if r.Method != http.MethodGet {
				t.Errorf("method %s", r.Method)
			}
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			if r.Header.Get("User-Agent") == "" {
				t.Error("no User-Agent")
			}
			h(w, r)
		}
	}
	mux.HandleFunc("/api/v2/summary.json", count(summary))
	mux.HandleFunc("/api/v2/incidents.json", count(incidents))
	mux.HandleFunc("/api/v2/scheduled-maintenances.json", count(serve(maintenancesJSON)))
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// maintenancesJSON is scheduled-maintenances.json with one completed
// maintenance, which summary.json no longer lists.
const maintenancesJSON = `{"page":{"id":"p"},"scheduled_maintenances":[{"id":"mnt-done","name":"Database upgrade","status":"completed","impact":"maintenance","shortlink":"https://stspg.io/m1","created_at":"2026-03-01T10:00:00.000-08:00","updated_at":"2026-03-01T12:00:00.000-08:00","scheduled_for":"2026-03-01T10:00:00.000-08:00","scheduled_until":"2026-03-01T12:00:00.000-08:00","components":[],"incident_updates":[{"id":"mu2","status":"completed","body":"Done.","created_at":"2026-03-01T12:00:00.000-08:00","updated_at":"2026-03-01T12:00:00.000-08:00","display_at":"2026-03-01T12:00:00.000-08:00"}]}]}`

func serve(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}

func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// hang never answers; it returns when the client gives up so the test
// server can close.
func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// stall sends headers and part of the body, then stops.
func stall(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"components": [`))
	w.(http.Flusher).Flush()
	hang(w, r)
}

// huge streams a valid-looking body just over the limit.
func huge(w http.ResponseWriter, r *http.Request) {
	_, _ = w.Write([]byte(`{"incidents": [], "pad": "`))
	chunk := []byte(strings.Repeat("x", 64<<10))
	for n := 0; n <= statuspage.MaxBodyBytes; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(`"}`))
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestFetchHappyPath(t *testing.T) {
	srv := newServer(t, serve(summaryJSON), serve(incidentsJSON))
	c := statuspage.NewClient(srv.URL+"/", 2*time.Second)
	p, n, err := c.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(summaryJSON) + len(incidentsJSON) + len(maintenancesJSON)); n != want {
		t.Errorf("bytes = %d, want %d", n, want)
	}
	srv.mu.Lock()
	if srv.hits["/api/v2/summary.json"] != 1 || srv.hits["/api/v2/incidents.json"] != 1 {
		t.Errorf("hits = %v", srv.hits)
	}
	srv.mu.Unlock()
	if p.ComponentsErr != "" || p.IncidentsErr != "" {
		t.Errorf("errors: %q %q", p.ComponentsErr, p.IncidentsErr)
	}
	if p.Name != "OpenAI" || p.URL != "https://status.openai.com" || p.Indicator != "minor" || p.Description != "Partially Degraded Service" {
		t.Errorf("page = %q %q %q %q", p.Name, p.URL, p.Indicator, p.Description)
	}

	if len(p.Components) != 3 {
		t.Fatalf("components = %+v", p.Components)
	}
	g := p.Components[0]
	if !g.Group || g.ID != "grp-apis" || len(g.Components) != 2 || g.Components[1] != "cmp-responses" {
		t.Errorf("group row = %+v", g)
	}
	chat := p.Components[1]
	if chat.Group || chat.GroupID != "grp-apis" || chat.Status != "degraded_performance" || chat.Position != 2 ||
		chat.Description != "The /v1/chat/completions endpoint" {
		t.Errorf("component = %+v", chat)
	}
	if !chat.UpdatedAt.Equal(ts("2026-03-08T09:59:00.123Z")) {
		t.Errorf("updated_at = %v", chat.UpdatedAt)
	}

	// incidents.json first, then scheduled-maintenances.json (with the
	// completed one summary.json no longer lists), then what only
	// summary.json lists; an incident in several appears once.
	var ids []string
	for _, i := range p.Incidents {
		ids = append(ids, i.ID)
	}
	if got, want := strings.Join(ids, ","), "inc-1,inc-0,inc-2,mnt-done,mnt-1"; got != want {
		t.Fatalf("incidents = %s, want %s", got, want)
	}
	inc := p.Incidents[0]
	if inc.ResolvedAt != nil || inc.IsMaintenance() || inc.Impact != "minor" || inc.Shortlink != "https://stspg.io/abc" {
		t.Errorf("incident = %+v", inc)
	}
	if len(inc.Components) != 1 || inc.Components[0].ID != "cmp-chat-api" {
		t.Errorf("incident components = %+v", inc.Components)
	}
	if len(inc.Updates) != 2 {
		t.Fatalf("updates = %+v", inc.Updates)
	}
	u := inc.Updates[0]
	if u.ID != "upd-2" || u.Status != "identified" || u.Body != "We found the cause & are fixing it <soon>." {
		t.Errorf("update = %+v", u)
	}
	if !u.DisplayAt.Equal(ts("2026-03-08T10:01:00Z")) || !u.UpdatedAt.Equal(ts("2026-03-08T10:01:07Z")) {
		t.Errorf("update times = %v %v", u.DisplayAt, u.UpdatedAt)
	}
	// The string order of the two display_at values is the reverse of
	// their time order; the parsed times compare correctly.
	if !inc.Updates[1].DisplayAt.Before(u.DisplayAt) {
		t.Error("parsed times out of order")
	}
	if r := p.Incidents[1].ResolvedAt; r == nil || !r.Equal(ts("2026-03-01T09:00:00Z")) {
		t.Errorf("resolved_at = %v", r)
	}
	m := p.Incidents[4] // mnt-1, from summary.json
	if !m.IsMaintenance() || m.ScheduledFor == nil || !m.ScheduledFor.Equal(ts("2026-03-10T08:00:00Z")) ||
		m.ScheduledUntil == nil || len(m.Updates) != 1 {
		t.Errorf("maintenance = %+v", m)
	}
	if done := p.Incidents[3]; done.ID != "mnt-done" || !done.IsMaintenance() || done.Updates[0].Status != "completed" {
		t.Errorf("completed maintenance = %+v", done)
	}
}

func TestFetchHalfFailed(t *testing.T) {
	tests := []struct {
		name               string
		summary, incidents http.HandlerFunc
		compErr, incErr    string // substrings; "" = no error
		wantComponents     bool
		wantIncidents      []string
	}{
		{
			name: "summary 500", summary: status(500, "oops"), incidents: serve(incidentsJSON),
			compErr: "HTTP 500", wantIncidents: []string{"inc-1", "inc-0", "inc-2", "mnt-done"},
		},
		{
			name: "summary malformed", summary: serve(`{"components": [`), incidents: serve(incidentsJSON),
			compErr: "malformed JSON", wantIncidents: []string{"inc-1", "inc-0", "inc-2", "mnt-done"},
		},
		{
			name: "summary wrong shape", summary: serve(`{"components": {"id": 1}}`), incidents: serve(incidentsJSON),
			compErr: "malformed JSON", wantIncidents: []string{"inc-1", "inc-0", "inc-2", "mnt-done"},
		},
		{
			name: "incidents 503", summary: serve(summaryJSON), incidents: status(503, "<html>down</html>"),
			incErr: "HTTP 503", wantComponents: true, wantIncidents: []string{"mnt-done", "inc-1", "mnt-1", "inc-2"},
		},
		{
			name: "incidents HTML with 200", summary: serve(summaryJSON), incidents: serve("<html>maintenance</html>"),
			incErr: "malformed JSON", wantComponents: true, wantIncidents: []string{"mnt-done", "inc-1", "mnt-1", "inc-2"},
		},
		{
			name: "incidents 404", summary: serve(summaryJSON), incidents: http.NotFound,
			incErr: "HTTP 404", wantComponents: true, wantIncidents: []string{"mnt-done", "inc-1", "mnt-1", "inc-2"},
		},
		{
			name: "incidents too large", summary: serve(summaryJSON), incidents: huge,
			incErr: statuspage.ErrTooLarge.Error(), wantComponents: true, wantIncidents: []string{"mnt-done", "inc-1", "mnt-1", "inc-2"},
		},
		{
			name: "summary too large", summary: huge, incidents: serve(incidentsJSON),
			compErr: statuspage.ErrTooLarge.Error(), wantIncidents: []string{"inc-1", "inc-0", "inc-2", "mnt-done"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.summary, tt.incidents)
			p, _, err := statuspage.NewClient(srv.URL, 5*time.Second).Fetch(context.Background())
			if err != nil {
				t.Fatalf("Fetch failed although one half worked: %v", err)
			}
			checkErr := func(name, got, want string) {
				if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			checkErr("ComponentsErr", p.ComponentsErr, tt.compErr)
			checkErr("IncidentsErr", p.IncidentsErr, tt.incErr)
			if (len(p.Components) > 0) != tt.wantComponents {
				t.Errorf("components = %d", len(p.Components))
			}
			var ids []string
			for _, i := range p.Incidents {
				ids = append(ids, i.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantIncidents, ",") {
				t.Errorf("incidents = %v, want %v", ids, tt.wantIncidents)
			}
			if tt.compErr != "" && p.URL != srv.URL {
				t.Errorf("URL fallback = %q, want %q", p.URL, srv.URL)
			}
		})
	}
}

// A page that serves no maintenance list (404) lists its upcoming
// maintenances in the summary alone: while that fails, the maintenances
// are unknown, not absent.
func TestFetchMaintenancesUnknownWithoutSummaryOrList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary http.HandlerFunc
		unknown bool
	}{
		{"summary answers", serve(summaryJSON), false},
		{"summary fails", status(500, "oops"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/api/v2/summary.json", tc.summary)
			mux.HandleFunc("/api/v2/incidents.json", serve(incidentsJSON))
			mux.HandleFunc("/api/v2/scheduled-maintenances.json", http.NotFound)
			srv := httptest.NewServer(mux)
			defer srv.Close()
			p, _, err := statuspage.NewClient(srv.URL, 5*time.Second).Fetch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if (p.MaintenancesErr != "") != tc.unknown {
				t.Errorf("MaintenancesErr = %q, want set: %v", p.MaintenancesErr, tc.unknown)
			}
		})
	}
}

func TestFetchBothFailed(t *testing.T) {
	tests := []struct {
		name               string
		summary, incidents http.HandlerFunc
		is                 error
	}{
		{name: "500s", summary: status(500, ""), incidents: status(502, "")},
		{name: "malformed", summary: serve("not json"), incidents: serve(`{"incidents": "x"}`)},
		{name: "too large", summary: huge, incidents: huge, is: statuspage.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.summary, tt.incidents)
			p, _, err := statuspage.NewClient(srv.URL, 5*time.Second).Fetch(context.Background())
			if err == nil || p != nil {
				t.Fatalf("Fetch = %+v, %v; want an error", p, err)
			}
			if !strings.Contains(err.Error(), "summary") || !strings.Contains(err.Error(), "incidents") {
				t.Errorf("error names only one half: %v", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
		})
	}
}

func TestFetchTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	tests := []struct {
		name               string
		summary, incidents http.HandlerFunc
		wantErr            bool
	}{
		{name: "both hang", summary: hang, incidents: hang, wantErr: true},
		{name: "body stalls", summary: stall, incidents: stall, wantErr: true},
		{name: "incidents hang", summary: serve(summaryJSON), incidents: hang},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.summary, tt.incidents)
			start := time.Now()
			p, _, err := statuspage.NewClient(srv.URL, timeout).Fetch(context.Background())
			if d := time.Since(start); d > 10*timeout {
				t.Errorf("Fetch took %v with a %v timeout", d, timeout)
			}
			if !tt.wantErr {
				if err != nil || p.IncidentsErr == "" || len(p.Components) == 0 {
					t.Fatalf("Fetch = %+v, %v", p, err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("not a timeout: %v", err)
			}
		})
	}
}

func TestFetchContextCanceled(t *testing.T) {
	srv := newServer(t, hang, hang)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, _, err := statuspage.NewClient(srv.URL, 10*time.Second).Fetch(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestFetchUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if _, _, err := statuspage.NewClient(url, time.Second).Fetch(context.Background()); err == nil {
		t.Error("no error for a closed server")
	}
	if _, _, err := statuspage.NewClient("://bad", time.Second).Fetch(context.Background()); err == nil {
		t.Error("no error for a bad base URL")
	}
}

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"operational":          "Operational",
		"degraded_performance": "Degraded Performance",
		"partial_outage":       "Partial Outage",
		"major_outage":         "Major Outage",
		"under_maintenance":    "Under Maintenance",
		"none":                 "None",
		"minor":                "Minor",
		"major":                "Major",
		"critical":             "Critical",
		"investigating":        "Investigating",
		"identified":           "Identified",
		"monitoring":           "Monitoring",
		"resolved":             "Resolved",
		"":                     "Unknown",
		"postmortem":           "Postmortem",
		"scheduled":            "Scheduled",
		"in_progress":          "In progress",
		"verifying":            "Verifying",
		"completed":            "Completed",
		"maintenance":          "Maintenance",
		"_":                    " ",
		"x":                    "X",
		"état_dégradé":         "État dégradé",
		"障害_中":                 "障害 中",
		"\xffbad":              "\xffbad",
	} {
		if got := statuspage.Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

// An unchanged page costs a 304: the client sends the ETag it got and
// reuses the body it kept.
func TestFetchConditional(t *testing.T) {
	var conditional int
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			conditional++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		serve(summaryJSON)(w, r)
	}, serve(incidentsJSON))
	c := statuspage.NewClient(srv.URL, 2*time.Second)
	first, n1, err := c.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	second, n2, err := c.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if conditional != 1 {
		t.Fatalf("conditional requests = %d, want 1", conditional)
	}
	if n2 != n1-int64(len(summaryJSON)) {
		t.Errorf("bytes: first %d, second %d: the 304 should cost nothing", n1, n2)
	}
	if len(second.Components) == 0 || len(second.Components) != len(first.Components) || second.Description != first.Description {
		t.Errorf("the kept summary was not reused: %+v", second)
	}
}
