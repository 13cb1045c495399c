package statuspage_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func fetchIO(t *testing.T, f *fakes.IncidentIO) *statuspage.Page {
	t.Helper()
	p, _, err := statuspage.NewIncidentIO(f.URL(), 5*time.Second).Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return p
}

func component(p *statuspage.Page, id string) *statuspage.Component {
	for i := range p.Components {
		if p.Components[i].ID == id {
			return &p.Components[i]
		}
	}
	return nil
}

func TestIncidentIOComponentsAndGroups(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.SetComponent(fakes.IOComponentCLI, "CLI", "full_outage")
	p := fetchIO(t, f)
	if p.Provider != statuspage.ProviderIncidentIO || !p.ComponentsComplete {
		t.Fatalf("provider %q complete %v", p.Provider, p.ComponentsComplete)
	}
	var leaves, groups int
	for _, c := range p.Components {
		if c.Group {
			groups++
		} else {
			leaves++
		}
	}
	if leaves != 34 || groups != 5 {
		t.Fatalf("%d components in %d groups, want 34 in 5", leaves, groups)
	}
	cli := component(p, fakes.IOComponentCLI)
	if cli == nil || cli.Status != "major_outage" || cli.GroupName != "Codex" || cli.GroupID != fakes.IOGroupCodex {
		t.Fatalf("CLI = %+v, want major_outage (full_outage) in Codex", cli)
	}
	if cli.UpdatedAt.IsZero() {
		t.Error("CLI has no status time although its impact has a start")
	}
	if g := component(p, fakes.IOGroupCodex); g == nil || !g.Group || g.Status != "major_outage" {
		t.Errorf("Codex group row = %+v", g)
	}
	if login := component(p, fakes.IOComponentChatGPTLogin); login == nil || login.GroupName != "ChatGPT" || login.Status != "operational" {
		t.Errorf("ChatGPT Login = %+v", login)
	}
	if p.Indicator != "major" {
		t.Errorf("indicator %q, want major", p.Indicator)
	}
}

func TestIncidentIOIncidentText(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.AddIncidentUpdate("01KXT44TAQQ2R0AZDDVSJGAC4H", "Some users are unable to access Codex", "investigating", "", "01KXT44TAQSBYE98DD6FM08V34",
		"We are investigating.\n\nMore soon.")
	f.AffectComponent("01KXT44TAQQ2R0AZDDVSJGAC4H", fakes.IOComponentCLI, "degraded_performance")
	f.AddIncidentUpdate("01KXT44TAQQ2R0AZDDVSJGAC4H", "", "resolved", "", "01KXT44TAQSBYE98DD6FM08V35", "Fixed – all good ✅.")
	p := fetchIO(t, f)
	if len(p.Incidents) != 1 {
		t.Fatalf("%d incidents, want 1", len(p.Incidents))
	}
	in := p.Incidents[0]
	if in.Status != "resolved" || in.Impact != "minor" || in.IsMaintenance() || in.ResolvedAt == nil {
		t.Errorf("incident = %+v", in)
	}
	if len(in.Components) != 1 || in.Components[0].ID != fakes.IOComponentCLI || in.Components[0].Name != "CLI" {
		t.Errorf("components = %+v", in.Components)
	}
	if !strings.HasSuffix(in.Shortlink, "/incidents/01KXT44TAQQ2R0AZDDVSJGAC4H") || strings.Contains(strings.TrimPrefix(in.Shortlink, "http://"), "//") {
		t.Errorf("link %q", in.Shortlink)
	}
	if len(in.Updates) != 2 || in.Updates[0].Status != "resolved" || in.Updates[1].Body != "We are investigating.\n\nMore soon." ||
		in.Updates[0].Body != "Fixed – all good ✅." {
		t.Errorf("updates (newest first) = %+v", in.Updates)
	}
	if cli := component(p, fakes.IOComponentCLI); cli.Status != "operational" || cli.UpdatedAt.IsZero() {
		t.Errorf("CLI after resolution = %+v", cli)
	}
}

func TestIncidentIOMaintenance(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.AddMaintenanceUpdate("01KFGG0000000000000000MNT1", "Scheduled database maintenance", "scheduled", "01KFGG0000000000000000UPD1", "We will upgrade.")
	f.AffectComponent("01KFGG0000000000000000MNT1", fakes.IOComponentResponses, "under_maintenance")
	p := fetchIO(t, f)
	if len(p.Incidents) != 1 {
		t.Fatalf("%d incidents", len(p.Incidents))
	}
	m := p.Incidents[0]
	if !m.IsMaintenance() || m.Status != "scheduled" || m.Impact != "maintenance" {
		t.Errorf("maintenance = %+v", m)
	}
	if m.ScheduledFor == nil || m.ScheduledUntil == nil || !m.ScheduledUntil.After(*m.ScheduledFor) {
		t.Errorf("window %v – %v", m.ScheduledFor, m.ScheduledUntil)
	}
	f.AddMaintenanceUpdate("01KFGG0000000000000000MNT1", "", "in_progress", "01KFGG0000000000000000UPD2", "Started.")
	if c := component(fetchIO(t, f), fakes.IOComponentResponses); c.Status != "under_maintenance" {
		t.Errorf("Responses during maintenance = %q", c.Status)
	}
	f.AddMaintenanceUpdate("01KFGG0000000000000000MNT1", "", "completed", "01KFGG0000000000000000UPD3", "Done.")
	p = fetchIO(t, f)
	if p.Incidents[0].Status != "completed" || component(p, fakes.IOComponentResponses).Status != "operational" {
		t.Errorf("after completion: %q, %q", p.Incidents[0].Status, component(p, fakes.IOComponentResponses).Status)
	}
}

func TestIncidentIOListFailingKeepsOngoing(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "investigating", "", "01UPD00000000000000000000A", "Looking.")
	f.Fault("/incidents", fakes.ServerError)
	p := fetchIO(t, f)
	if p.IncidentsErr == "" || len(p.Incidents) != 1 || p.Incidents[0].Updates[0].Body != "Looking." {
		t.Fatalf("IncidentsErr %q, incidents %+v", p.IncidentsErr, p.Incidents)
	}
	f.Fault("/proxy/", fakes.ServerError)
	if _, _, err := statuspage.NewIncidentIO(f.URL(), 5*time.Second).Fetch(context.Background()); err == nil {
		t.Fatal("a failing summary must fail the fetch: it holds the components")
	}
}

func TestIncidentIOUptimes(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.SetComponent(fakes.IOComponentImages, "Images", "full_outage")
	time.Sleep(10 * time.Millisecond)
	c := statuspage.NewIncidentIO(f.URL(), 5*time.Second)
	now := time.Date(2026, 7, 19, 8, 0, 0, 0, time.UTC)
	ups, err := c.Uptimes(context.Background(), now.Add(-24*time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range ups {
		if u.ComponentID == fakes.IOComponentImages {
			found = true
			if u.Percent >= 100 || u.Percent <= 0 {
				t.Errorf("Images uptime %v with a full outage in the window", u.Percent)
			}
		}
		if u.ComponentID == fakes.IOComponentCLI && u.Percent != 100 {
			t.Errorf("CLI uptime %v, want 100", u.Percent)
		}
	}
	if !found {
		t.Fatal("no figure for Images")
	}
}

// The shim is what the Statuspage client reads on an incident.io page:
// texts are empty and the summary lists a rotating subset, but the client
// must neither fail nor lose its maintenance part to the 404s.
func TestStatuspageClientOnTheShim(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.AddIncidentUpdate("01INC00000000000000000000A", "Elevated errors", "investigating", "", "01UPD00000000000000000000A", "Looking.")
	c := statuspage.NewClient(f.URL(), 5*time.Second)
	p1, _, err := c.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p2, _, _ := c.Fetch(context.Background())
	if p1.ComponentsErr != "" || p1.IncidentsErr != "" || p1.MaintenancesErr != "" {
		t.Fatalf("errors: %q %q %q (a 404 maintenance list is no error)", p1.ComponentsErr, p1.IncidentsErr, p1.MaintenancesErr)
	}
	if len(p1.Components) >= 34 || len(p1.Components) == 0 || p1.ComponentsComplete {
		t.Errorf("shim summary listed %d components, complete=%v: want a subset, not authoritative", len(p1.Components), p1.ComponentsComplete)
	}
	same := len(p1.Components) == len(p2.Components)
	for _, c := range p1.Components {
		same = same && component(p2, c.ID) != nil
	}
	if same {
		t.Error("the subset did not rotate between two fetches")
	}
	if len(p1.Incidents) != 1 || p1.Incidents[0].Updates[0].Body != "" {
		t.Errorf("shim incidents = %+v (bodies are empty there)", p1.Incidents)
	}
}

func TestAutoChoosesAndFallsBack(t *testing.T) {
	io := fakes.NewIncidentIO()
	defer io.Close()
	a := statuspage.NewAuto(io.URL(), 5*time.Second)
	var chosen []string
	a.OnChoose = func(p string) { chosen = append(chosen, p) }
	p, _, err := a.Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderIncidentIO {
		t.Fatalf("auto on incident.io: %v, %+v", err, p)
	}
	// A native page that fails for a while must not flip to the shim.
	io.Fault("/proxy/", fakes.ServerError)
	if _, _, err := a.Fetch(context.Background()); err == nil {
		t.Fatal("auto fell back to the shim while the native API failed")
	}
	io.Fault("/proxy/", nil)

	sp := fakes.NewStatuspage()
	defer sp.Close()
	b := statuspage.NewAuto(sp.URL(), 5*time.Second)
	p, _, err = b.Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderStatuspage {
		t.Fatalf("auto on Statuspage: %v, %+v", err, p)
	}
	before := sp.Requests("/proxy/" + strings.TrimPrefix(sp.URL(), "http://"))
	if _, _, err := b.Fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := sp.Requests("/proxy/" + strings.TrimPrefix(sp.URL(), "http://")); after != before {
		t.Errorf("auto probed the native API again on the next poll (%d -> %d)", before, after)
	}
	if len(chosen) != 1 || chosen[0] != statuspage.ProviderIncidentIO {
		t.Errorf("OnChoose calls %v", chosen)
	}
}

func TestNewRejectsUnknownProvider(t *testing.T) {
	if _, err := statuspage.New("atlassian", "https://x", time.Second); err == nil {
		t.Fatal("unknown provider accepted")
	}
}

// A page behind a proxy that answers the native path with 200 HTML is not
// an incident.io page.
func TestAutoHTMLAnswerIsNotNative(t *testing.T) {
	sp := fakes.NewStatuspage()
	defer sp.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/proxy/") {
			_, _ = w.Write([]byte(`{"other":true}`))
			return
		}
		sp.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p, _, err := statuspage.NewAuto(srv.URL, 5*time.Second).Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderStatuspage {
		t.Fatalf("got %v, %+v", err, p)
	}
}

// A maintenance that starts and ends on schedule without an update still
// tells its subscribers, once per transition.
func TestIncidentIOMaintenanceTransitionsWithoutUpdates(t *testing.T) {
	f := fakes.NewIncidentIO()
	defer f.Close()
	f.AddMaintenanceUpdate("01MNT00000000000000000000M", "DB", "scheduled", "01MNTU000000000000000000U1", "Planned.")
	f.AffectComponent("01MNT00000000000000000000M", fakes.IOComponentResponses, "under_maintenance")
	if n := len(fetchIO(t, f).Incidents[0].Updates); n != 1 {
		t.Fatalf("%d updates for a scheduled maintenance", n)
	}
	f.SetMaintenanceStatus("01MNT00000000000000000000M", "maintenance_in_progress")
	m := fetchIO(t, f).Incidents[0]
	if len(m.Updates) != 2 || m.Updates[0].Status != "in_progress" || m.Updates[0].Body != "The maintenance has started." {
		t.Fatalf("updates %+v", m.Updates)
	}
	first := m.Updates[0].ID
	f.SetMaintenanceStatus("01MNT00000000000000000000M", "maintenance_complete")
	m = fetchIO(t, f).Incidents[0]
	if len(m.Updates) != 2 || m.Updates[0].Status != "completed" || m.Updates[0].ID == first {
		t.Fatalf("updates %+v", m.Updates)
	}
}
