package event_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

const pageURL = "https://status.openai.com"

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func comp(id, name, status, updated string) statuspage.Component {
	return statuspage.Component{ID: id, Name: name, Status: status, UpdatedAt: ts(updated)}
}

func upd(id, status, body, display string) statuspage.IncidentUpdate {
	d := ts(display)
	return statuspage.IncidentUpdate{ID: id, Status: status, Body: body, CreatedAt: d, UpdatedAt: d, DisplayAt: d}
}

func page(comps []statuspage.Component, incs ...statuspage.Incident) *statuspage.Page {
	return &statuspage.Page{Name: "OpenAI", URL: pageURL, Components: comps, Incidents: incs}
}

// basePage is what the first poll sees.
func basePage() *statuspage.Page {
	return page([]statuspage.Component{
		{ID: "grp1", Name: "APIs", Status: "operational", Group: true, Components: []string{"api", "chat"}, UpdatedAt: ts("2026-03-01T00:00:00Z")},
		comp("api", "API", "operational", "2026-03-01T00:00:00Z"),
		comp("chat", "ChatGPT", "operational", "2026-03-01T00:00:00Z"),
	}, statuspage.Incident{
		ID: "old", Name: "Old incident", Status: "resolved", Impact: "minor", Shortlink: "https://stspg.io/old",
		Updates: []statuspage.IncidentUpdate{upd("old-u1", "resolved", "Fixed.", "2026-02-01T00:00:00Z")},
	})
}

func baseline(t *testing.T) event.Checkpoint {
	t.Helper()
	r := event.Diff(event.Checkpoint{}, basePage())
	if r.Baseline == nil {
		t.Fatal("first poll made no baseline")
	}
	return *r.Baseline
}

func keys(evs []event.Event) []string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, e.Key)
	}
	return ks
}

func TestDiffBaseline(t *testing.T) {
	// A part that cannot be read is baselined later, on its own; the part
	// that can be read is watched meanwhile.
	tests := []struct {
		name            string
		mutate          func(*statuspage.Page)
		wantBaseline    bool
		wantComps       bool
		wantIncidents   bool
		wantNoCheckpoit bool
	}{
		{name: "first poll", mutate: func(*statuspage.Page) {}, wantBaseline: true, wantComps: true, wantIncidents: true},
		{name: "components failed", mutate: func(p *statuspage.Page) { p.ComponentsErr = "HTTP 500"; p.Components = nil }, wantIncidents: true},
		{name: "incidents failed", mutate: func(p *statuspage.Page) { p.IncidentsErr = "timeout"; p.Incidents = nil }, wantComps: true},
		{name: "maintenances failed", mutate: func(p *statuspage.Page) { p.MaintenancesErr = "HTTP 502" }, wantComps: true},
		{name: "both failed", mutate: func(p *statuspage.Page) { p.ComponentsErr, p.IncidentsErr = "x", "y" }, wantNoCheckpoit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := basePage()
			p.Components[1].Status = "major_outage" // history is never announced
			tt.mutate(p)
			r := event.Diff(event.Checkpoint{}, p)
			if len(r.Events) != 0 || len(r.Prune) != 0 {
				t.Fatalf("first poll produced events %v prune %v", keys(r.Events), r.Prune)
			}
			if tt.wantNoCheckpoit {
				if r.Baseline != nil {
					t.Fatalf("baseline %+v from a page that could not be read", r.Baseline)
				}
				return
			}
			if r.Baseline == nil {
				t.Fatal("no baseline")
			}
			if r.Baseline.Baseline != tt.wantBaseline || r.Baseline.ComponentsBaselined != tt.wantComps || r.Baseline.IncidentsBaselined != tt.wantIncidents {
				t.Fatalf("baseline flags all=%v components=%v incidents=%v, want %v %v %v", r.Baseline.Baseline,
					r.Baseline.ComponentsBaselined, r.Baseline.IncidentsBaselined, tt.wantBaseline, tt.wantComps, tt.wantIncidents)
			}
			if !tt.wantBaseline {
				return
			}
			b := r.Baseline
			if !b.Baseline {
				t.Error("Baseline flag not set")
			}
			if _, ok := b.Components["grp1"]; ok {
				t.Error("group row recorded")
			}
			if b.Components["api"].Status != "major_outage" || b.Components["chat"].Status != "operational" {
				t.Errorf("components = %+v", b.Components)
			}
			if b.Incidents["old"].Updates["old-u1"] != event.Version(p.Incidents[0].Updates[0]) {
				t.Errorf("incidents = %+v", b.Incidents)
			}
			// The baseline against the same page: nothing new.
			if r2 := event.Diff(*b, p); len(r2.Events) != 0 || r2.Baseline != nil {
				t.Errorf("second poll of the same page: %v", keys(r2.Events))
			}
		})
	}
}

func TestDiffComponents(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*statuspage.Page)
		want   []event.Event // checked fields: Key, OrderKey, Kind, Notify, OldStatus, NewStatus, ComponentLabel
	}{
		{name: "no change", mutate: func(*statuspage.Page) {}},
		{
			name: "updated_at alone",
			mutate: func(p *statuspage.Page) {
				p.Components[1].UpdatedAt = ts("2026-03-02T00:00:00Z")
			},
		},
		{
			name: "status change",
			mutate: func(p *statuspage.Page) {
				p.Components[1].Status = "degraded_performance"
				p.Components[1].UpdatedAt = ts("2026-03-08T01:59:00.123-08:00")
			},
			want: []event.Event{{
				Key: "component:api:degraded_performance:2026-03-08T09:59:00.123Z", OrderKey: "component:api",
				Kind: event.KindComponent, Notify: true, OldStatus: "operational", NewStatus: "degraded_performance",
				ComponentLabel: "API",
			}},
		},
		{
			name: "group rows skipped",
			mutate: func(p *statuspage.Page) {
				p.Components[0].Status = "major_outage"
			},
		},
		{
			name: "component removed",
			mutate: func(p *statuspage.Page) {
				p.Components = p.Components[:2]
			},
		},
		{
			name: "new operational component is recorded silently",
			mutate: func(p *statuspage.Page) {
				p.Components = append(p.Components, comp("sora", "Sora", "operational", "2026-03-05T00:00:00Z"))
			},
			want: []event.Event{{
				Key: "component:sora:operational:2026-03-05T00:00:00Z", OrderKey: "component:sora",
				Kind: event.KindComponent, Notify: false, NewStatus: "operational", ComponentLabel: "Sora",
			}},
		},
		{
			name: "new degraded component is announced",
			mutate: func(p *statuspage.Page) {
				p.Components = append(p.Components, comp("sora", "Sora", "partial_outage", "2026-03-05T00:00:00Z"))
			},
			want: []event.Event{{
				Key: "component:sora:partial_outage:2026-03-05T00:00:00Z", OrderKey: "component:sora",
				Kind: event.KindComponent, Notify: true, NewStatus: "partial_outage", ComponentLabel: "Sora",
			}},
		},
		{
			name: "duplicate names get an ID in the label",
			mutate: func(p *statuspage.Page) {
				p.Components = append(p.Components, comp("api-eu-12345", "API", "major_outage", "2026-03-05T00:00:00Z"))
			},
			want: []event.Event{{
				Key: "component:api-eu-12345:major_outage:2026-03-05T00:00:00Z", OrderKey: "component:api-eu-12345",
				Kind: event.KindComponent, Notify: true, NewStatus: "major_outage", ComponentLabel: "API (ID: api-eu-1)",
			}},
		},
		{
			name: "changes ordered by time",
			mutate: func(p *statuspage.Page) {
				p.Components[1].Status = "major_outage"
				p.Components[1].UpdatedAt = ts("2026-03-08T10:00:00Z")
				p.Components[2].Status = "partial_outage"
				p.Components[2].UpdatedAt = ts("2026-03-08T01:59:00-08:00") // 09:59Z, earlier
			},
			want: []event.Event{
				{Key: "component:chat:partial_outage:2026-03-08T09:59:00Z", OrderKey: "component:chat", Kind: event.KindComponent,
					Notify: true, OldStatus: "operational", NewStatus: "partial_outage", ComponentLabel: "ChatGPT"},
				{Key: "component:api:major_outage:2026-03-08T10:00:00Z", OrderKey: "component:api", Kind: event.KindComponent,
					Notify: true, OldStatus: "operational", NewStatus: "major_outage", ComponentLabel: "API"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := baseline(t)
			p := basePage()
			tt.mutate(p)
			r := event.Diff(cp, p)
			if r.Baseline != nil {
				t.Fatal("baseline made twice")
			}
			if len(r.Events) != len(tt.want) {
				t.Fatalf("events = %v, want %d", keys(r.Events), len(tt.want))
			}
			for i, w := range tt.want {
				g := r.Events[i]
				if g.Key != w.Key || g.OrderKey != w.OrderKey || g.Kind != w.Kind || g.Notify != w.Notify ||
					g.OldStatus != w.OldStatus || g.NewStatus != w.NewStatus || g.ComponentLabel != w.ComponentLabel {
					t.Errorf("event %d =\n%+v\nwant\n%+v", i, g, w)
				}
				if g.PageURL != pageURL || g.Predecessor != "" {
					t.Errorf("event %d: page %q predecessor %q", i, g.PageURL, g.Predecessor)
				}
			}
			// Once applied, the same page is quiet.
			cp.Apply(r.Events)
			if r2 := event.Diff(cp, p); len(r2.Events) != 0 {
				t.Errorf("after Apply: %v", keys(r2.Events))
			}
		})
	}
}

// A component that goes degraded and back: both notices, chained.
func TestDiffRevert(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	p.Components[1].Status = "degraded_performance"
	p.Components[1].UpdatedAt = ts("2026-03-08T10:00:00Z")
	r1 := event.Diff(cp, p)
	if len(r1.Events) != 1 || !r1.Events[0].Notify {
		t.Fatalf("poll 1: %v", keys(r1.Events))
	}
	first := r1.Events[0]
	if first.Predecessor != "" {
		t.Errorf("first predecessor = %q", first.Predecessor)
	}
	cp.Apply(r1.Events)
	if got := cp.Components["api"]; got.Status != "degraded_performance" || got.LastEvent != first.Key {
		t.Fatalf("mark after apply = %+v", got)
	}

	p.Components[1].Status = "operational"
	p.Components[1].UpdatedAt = ts("2026-03-08T10:05:00Z")
	r2 := event.Diff(cp, p)
	if len(r2.Events) != 1 {
		t.Fatalf("poll 2: %v", keys(r2.Events))
	}
	second := r2.Events[0]
	if !second.Notify || second.OldStatus != "degraded_performance" || second.NewStatus != "operational" {
		t.Errorf("second = %+v", second)
	}
	if second.Predecessor != first.Key {
		t.Errorf("second predecessor = %q, want %q", second.Predecessor, first.Key)
	}
	if second.Key == first.Key {
		t.Error("same key for both changes")
	}
	cp.Apply(r2.Events)
	if r3 := event.Diff(cp, p); len(r3.Events) != 0 {
		t.Errorf("poll 3: %v", keys(r3.Events))
	}
}

// A silently recorded change is no one's predecessor: nobody waits for it.
func TestDiffSilentIsNoPredecessor(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	p.Components = append(p.Components, comp("sora", "Sora", "operational", "2026-03-05T00:00:00Z"))
	r1 := event.Diff(cp, p)
	if len(r1.Events) != 1 || r1.Events[0].Notify {
		t.Fatalf("poll 1: %+v", r1.Events)
	}
	cp.Apply(r1.Events)
	p.Components[3].Status = "major_outage"
	p.Components[3].UpdatedAt = ts("2026-03-06T00:00:00Z")
	r2 := event.Diff(cp, p)
	if len(r2.Events) != 1 || !r2.Events[0].Notify || r2.Events[0].Predecessor != "" || r2.Events[0].OldStatus != "operational" {
		t.Fatalf("poll 2: %+v", r2.Events)
	}
}

func TestDiffIncidents(t *testing.T) {
	newInc := statuspage.Incident{
		ID: "inc1", Name: "Elevated errors", Status: "identified", Impact: "major",
		Shortlink:  "https://stspg.io/inc1",
		Components: []statuspage.IncidentComp{{ID: "api", Name: "API"}},
		// Newest first, as the API lists them. u1 is earlier in time but
		// later as a string.
		Updates: []statuspage.IncidentUpdate{
			upd("u3", "identified", "Found it.", "2026-03-08T02:30:00-08:00"),         // 10:30Z
			upd("u2", "investigating", "Still looking.", "2026-03-08T01:59:00-08:00"), // 09:59Z
			upd("u1", "investigating", "Looking.", "2026-03-08T09:58:00Z"),
		},
	}
	cp := baseline(t)
	p := basePage()
	p.Incidents = append([]statuspage.Incident{newInc}, p.Incidents...)
	r := event.Diff(cp, p)
	if got, want := updateIDs(r.Events), []string{"u1", "u2", "u3"}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	for i, e := range r.Events {
		if e.Kind != event.KindIncident || !e.Notify || e.OrderKey != "incident:inc1" || e.IncidentName != "Elevated errors" ||
			e.Impact != "major" || e.URL != "https://stspg.io/inc1" || !slices.Equal(e.ComponentIDs, []string{"api"}) {
			t.Errorf("event %d = %+v", i, e)
		}
		if !strings.HasPrefix(e.Key, "incident:inc1:"+e.UpdateID+":") || e.Version == "" {
			t.Errorf("key %q version %q", e.Key, e.Version)
		}
		want := ""
		if i > 0 {
			want = r.Events[i-1].Key
		}
		if e.Predecessor != want {
			t.Errorf("event %d predecessor = %q, want %q", i, e.Predecessor, want)
		}
	}
	if !r.Events[0].At.Equal(ts("2026-03-08T09:58:00Z")) {
		t.Errorf("At = %v", r.Events[0].At)
	}
	cp.Apply(r.Events)
	last, origU2 := r.Events[2].Key, r.Events[1].Key
	if cp.Incidents["inc1"].LastEvent != last || len(cp.Incidents["inc1"].Updates) != 3 {
		t.Fatalf("mark = %+v", cp.Incidents["inc1"])
	}

	t.Run("updated_at alone is no event", func(t *testing.T) {
		q := clonePage(p)
		for i := range q.Incidents[0].Updates {
			q.Incidents[0].Updates[i].UpdatedAt = ts("2026-03-09T00:00:00Z")
		}
		q.Incidents[0].UpdatedAt = ts("2026-03-09T00:00:00Z")
		if r := event.Diff(cp, q); len(r.Events) != 0 {
			t.Errorf("events: %v", keys(r.Events))
		}
	})
	t.Run("same instant in another offset is no event", func(t *testing.T) {
		q := clonePage(p)
		u := &q.Incidents[0].Updates[0]
		u.DisplayAt = u.DisplayAt.In(time.FixedZone("", 5*3600))
		u.CreatedAt = u.CreatedAt.UTC()
		if r := event.Diff(cp, q); len(r.Events) != 0 {
			t.Errorf("events: %v", keys(r.Events))
		}
	})
	t.Run("edited body is a new event", func(t *testing.T) {
		q := clonePage(p)
		q.Incidents[0].Updates[1].Body = "Still looking (edited)."
		r := event.Diff(cp, q)
		if len(r.Events) != 1 {
			t.Fatalf("events: %v", keys(r.Events))
		}
		e := r.Events[0]
		if e.UpdateID != "u2" || e.Body != "Still looking (edited)." || e.Predecessor != last {
			t.Errorf("edit = %+v", e)
		}
		if e.Key == origU2 || e.Version == event.Version(p.Incidents[0].Updates[1]) {
			t.Error("edit kept the old version")
		}
	})
	t.Run("new update chains to the last", func(t *testing.T) {
		q := clonePage(p)
		q.Incidents[0].Updates = append([]statuspage.IncidentUpdate{upd("u4", "resolved", "", "2026-03-08T03:00:00-08:00")}, q.Incidents[0].Updates...)
		r := event.Diff(cp, q)
		if len(r.Events) != 1 || r.Events[0].UpdateID != "u4" || r.Events[0].Predecessor != last {
			t.Fatalf("events: %+v", r.Events)
		}
	})
}

func TestDiffMaintenance(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	sched := ts("2026-03-10T08:00:00Z")
	p.Incidents = append(p.Incidents,
		statuspage.Incident{ID: "m1", Name: "DB upgrade", Status: "scheduled", Impact: "maintenance",
			Updates: []statuspage.IncidentUpdate{upd("m1u1", "scheduled", "We will upgrade.", "2026-03-08T00:00:00Z")}},
		statuspage.Incident{ID: "m2", Name: "Network work", Status: "scheduled", Impact: "none", ScheduledFor: &sched,
			Shortlink: "https://stspg.io/m2",
			Updates:   []statuspage.IncidentUpdate{upd("m2u1", "scheduled", "", "2026-03-08T00:01:00Z")}},
	)
	r := event.Diff(cp, p)
	if len(r.Events) != 2 {
		t.Fatalf("events: %v", keys(r.Events))
	}
	for _, e := range r.Events {
		if e.Kind != event.KindMaintenance || !e.Notify {
			t.Errorf("event = %+v", e)
		}
	}
	if got := r.Events[0].URL; got != pageURL+"/incidents/m1" {
		t.Errorf("fallback URL = %q", got)
	}
	if got := r.Events[1].URL; got != "https://stspg.io/m2" {
		t.Errorf("shortlink URL = %q", got)
	}
}

func TestDiffHalfFailed(t *testing.T) {
	newInc := statuspage.Incident{ID: "inc1", Name: "Errors", Impact: "minor",
		Updates: []statuspage.IncidentUpdate{upd("u1", "investigating", "Looking.", "2026-03-08T10:00:00Z")}}
	changed := func() *statuspage.Page {
		p := basePage()
		p.Components[2].Status = "major_outage"
		p.Components[2].UpdatedAt = ts("2026-03-08T09:00:00Z")
		p.Incidents = []statuspage.Incident{newInc} // "old" left the feed
		return p
	}
	t.Run("incidents failed", func(t *testing.T) {
		p := changed()
		p.IncidentsErr, p.Incidents = "GET /api/v2/incidents.json: HTTP 502", nil
		r := event.Diff(baseline(t), p)
		if len(r.Events) != 1 || r.Events[0].ComponentID != "chat" {
			t.Fatalf("events: %v", keys(r.Events))
		}
		if len(r.Prune) != 0 {
			t.Errorf("pruned %v while incidents were unknown", r.Prune)
		}
	})
	t.Run("components failed", func(t *testing.T) {
		p := changed()
		p.ComponentsErr, p.Components = "GET /api/v2/summary.json: timeout", nil
		cp := baseline(t)
		r := event.Diff(cp, p)
		if len(r.Events) != 1 || r.Events[0].IncidentID != "inc1" {
			t.Fatalf("events: %v", keys(r.Events))
		}
		// Scheduled maintenances come from summary.json: with it missing,
		// nothing may be pruned, or they would be announced again.
		if len(r.Prune) != 0 {
			t.Errorf("pruned %v while summary.json was unknown", r.Prune)
		}
		// The component marks stay: the next good poll reports the change.
		cp.Apply(r.Events)
		r2 := event.Diff(cp, changed())
		if len(r2.Events) != 1 || r2.Events[0].ComponentID != "chat" || r2.Events[0].OldStatus != "operational" {
			t.Errorf("next poll: %+v", r2.Events)
		}
	})
}

func TestDiffPrune(t *testing.T) {
	cp := baseline(t)
	cp.Incidents["gone-b"] = event.IncidentMark{Updates: map[string]string{"x": "y"}}
	cp.Incidents["gone-a"] = event.IncidentMark{}
	r := event.Diff(cp, basePage())
	if !slices.Equal(r.Prune, []string{"gone-a", "gone-b"}) {
		t.Errorf("prune = %v", r.Prune)
	}
	if len(r.Events) != 0 {
		t.Errorf("events: %v", keys(r.Events))
	}
}

// Components or incidents listed twice (a misbehaving page) must not make
// every poll announce the same change again.
func TestDiffDuplicateIDs(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	p.Components = append(p.Components, comp("api", "API", "major_outage", "2026-03-08T00:00:00Z"))
	inc := statuspage.Incident{ID: "inc1", Name: "Errors", Impact: "minor",
		Updates: []statuspage.IncidentUpdate{
			upd("u1", "investigating", "A", "2026-03-08T10:00:00Z"),
			upd("u1", "investigating", "B", "2026-03-08T10:01:00Z"),
		}}
	inc2 := inc
	inc2.Updates = []statuspage.IncidentUpdate{upd("u1", "identified", "C", "2026-03-08T10:02:00Z")}
	p.Incidents = append(p.Incidents, inc, inc2)
	for poll := 0; poll < 3; poll++ {
		r := event.Diff(cp, p)
		if poll > 0 && len(r.Events) != 0 {
			t.Fatalf("poll %d repeats: %v", poll, keys(r.Events))
		}
		cp.Apply(r.Events)
	}
	// The baseline agrees with Diff on which duplicate counts.
	b := event.Baseline(p)
	if r := event.Diff(*b, p); len(r.Events) != 0 {
		t.Errorf("own baseline: %v", keys(r.Events))
	}
}

func TestVersion(t *testing.T) {
	u := upd("u1", "investigating", "Looking.", "2026-03-08T01:59:00-08:00")
	v := event.Version(u)
	same := []func(*statuspage.IncidentUpdate){
		func(u *statuspage.IncidentUpdate) { u.UpdatedAt = ts("2027-01-01T00:00:00Z") },
		func(u *statuspage.IncidentUpdate) { u.DisplayAt = u.DisplayAt.UTC() },
		func(u *statuspage.IncidentUpdate) { u.ID = "other" },
	}
	for i, f := range same {
		w := u
		f(&w)
		if event.Version(w) != v {
			t.Errorf("same[%d] changed the version", i)
		}
	}
	differ := []func(*statuspage.IncidentUpdate){
		func(u *statuspage.IncidentUpdate) { u.Body = "Looking!" },
		func(u *statuspage.IncidentUpdate) { u.Status = "identified" },
		func(u *statuspage.IncidentUpdate) { u.DisplayAt = u.DisplayAt.Add(time.Second) },
		func(u *statuspage.IncidentUpdate) { u.CreatedAt = u.CreatedAt.Add(time.Millisecond) },
		// Field boundaries are kept: moving text between fields changes it.
		func(u *statuspage.IncidentUpdate) { u.Status, u.Body = "investigatingL", "ooking." },
	}
	for i, f := range differ {
		w := u
		f(&w)
		if event.Version(w) == v {
			t.Errorf("differ[%d] kept the version", i)
		}
	}
}

func TestAccepts(t *testing.T) {
	compEv := event.Event{Kind: event.KindComponent, ComponentID: "api-id", ComponentName: "API"}
	incEv := event.Event{Kind: event.KindIncident, ComponentIDs: []string{"api-id", "chat-id"}}
	incAll := event.Event{Kind: event.KindIncident}
	maint := event.Event{Kind: event.KindMaintenance, ComponentIDs: []string{"chat-id"}}
	inc, cmp, mnt := event.KindIncident, event.KindComponent, event.KindMaintenance
	tests := []struct {
		name  string
		e     event.Event
		kinds []event.Kind
		comps []string
		want  bool
	}{
		{"defaults take a component change", compEv, nil, nil, true},
		{"defaults take an incident", incEv, nil, nil, true},
		{"defaults take maintenance", maint, nil, nil, true},
		{"incident only rejects components", compEv, []event.Kind{inc}, nil, false},
		{"incident only takes incidents", incEv, []event.Kind{inc}, nil, true},
		{"component only rejects incidents", incEv, []event.Kind{cmp}, nil, false},
		{"maintenance kind", maint, []event.Kind{inc, cmp}, nil, false},
		{"maintenance kind chosen", maint, []event.Kind{mnt}, nil, true},
		{"filter by ID", compEv, nil, []string{"api-id"}, true},
		{"filter by name (old records)", compEv, nil, []string{"API"}, true},
		{"filter by other component", compEv, nil, []string{"chat-id"}, false},
		{"incident touching filtered component", incEv, nil, []string{"chat-id"}, true},
		{"incident not touching filter", incEv, nil, []string{"sora-id"}, false},
		{"incident with no components concerns everyone", incAll, nil, []string{"sora-id"}, true},
		{"maintenance filtered out", maint, nil, []string{"api-id"}, false},
		{"kind gate before filter", compEv, []event.Kind{inc}, []string{"api-id"}, false},
	}
	for _, tt := range tests {
		if got := tt.e.Accepts(tt.kinds, tt.comps); got != tt.want {
			t.Errorf("%s: Accepts = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func updateIDs(evs []event.Event) []string {
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.UpdateID)
	}
	return ids
}

func clonePage(p *statuspage.Page) *statuspage.Page {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	var q statuspage.Page
	if err := json.Unmarshal(b, &q); err != nil {
		panic(err)
	}
	return &q
}

// checkEvents asserts the invariants every Diff result keeps.
func checkEvents(t *testing.T, cp event.Checkpoint, evs []event.Event) {
	t.Helper()
	seen := map[string]bool{}
	last := map[string]string{}
	for i, e := range evs {
		if i > 0 && e.At.Before(evs[i-1].At) {
			t.Fatalf("events not sorted by At: %v before %v", evs[i-1].At, e.At)
		}
		if seen[e.Key] {
			t.Fatalf("duplicate key %q", e.Key)
		}
		seen[e.Key] = true
		if !e.Notify {
			continue
		}
		want, ok := last[e.OrderKey]
		if !ok {
			if e.Kind == event.KindComponent {
				want = cp.Components[e.ComponentID].LastEvent
			} else {
				want = cp.Incidents[e.IncidentID].LastEvent
			}
		}
		if e.Predecessor != want {
			t.Fatalf("event %q predecessor %q, want %q", e.Key, e.Predecessor, want)
		}
		last[e.OrderKey] = e.Key
	}
}

const seedPage = `{"name":"OpenAI","url":"https://status.openai.com",
 "components":[{"id":"g","name":"APIs","status":"operational","group":true,"components":["a","b"],"updated_at":"2026-03-01T00:00:00Z"},
  {"id":"a","name":"API","status":"operational","updated_at":"2026-03-08T01:59:00.123-08:00"},
  {"id":"b","name":"Chat","status":"degraded_performance","updated_at":"2026-03-08T09:58:00Z"}],
 "incidents":[{"id":"i1","name":"Errors","impact":"major","shortlink":"https://stspg.io/i1",
  "components":[{"id":"a","name":"API"}],
  "incident_updates":[{"id":"u2","status":"identified","body":"x","display_at":"2026-03-08T01:59:00-08:00","created_at":"2026-03-08T01:59:00-08:00"},
   {"id":"u1","status":"investigating","body":"y","display_at":"2026-03-08T09:58:00Z","created_at":"2026-03-08T09:58:00Z"}]}]}`

func FuzzDiff(f *testing.F) {
	f.Add([]byte(seedPage), []byte(seedPage))
	f.Add([]byte(`{"components":[{"id":"a","status":"operational"}]}`), []byte(seedPage))
	f.Add([]byte(seedPage), []byte(`{"components_err":"x","incidents":[{"id":"i2","incident_updates":[{"id":"u"}]}]}`))
	f.Add([]byte(seedPage), []byte(`{"incidents_err":"x","components":[{"id":"a","status":"major_outage"},{"id":"a","status":"minor"}]}`))
	f.Add([]byte(`{}`), []byte(`{"incidents":[{"id":"i","incident_updates":[{"id":"u","body":"1"},{"id":"u","body":"2"}]},{"id":"i"}]}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var p1, p2 statuspage.Page
		if json.Unmarshal(a, &p1) != nil || json.Unmarshal(b, &p2) != nil {
			return
		}
		r0 := event.Diff(event.Checkpoint{}, &p1)
		if len(r0.Events) != 0 || len(r0.Prune) != 0 {
			t.Fatalf("first poll produced events")
		}
		if (r0.Baseline == nil) != (p1.ComponentsErr != "" || p1.IncidentsErr != "") {
			t.Fatalf("baseline made from half a page, or not made from a whole one")
		}
		cp := *event.Baseline(&p1)
		if r := event.Diff(cp, &p1); len(r.Events) != 0 {
			t.Fatalf("page against its own baseline: %v", keys(r.Events))
		}
		r := event.Diff(cp, &p2)
		checkEvents(t, cp, r.Events)
		cp.Apply(r.Events)
		for _, id := range r.Prune {
			delete(cp.Incidents, id)
		}
		r2 := event.Diff(cp, &p2)
		if len(r2.Events) != 0 {
			t.Fatalf("page against its applied checkpoint: %v", keys(r2.Events))
		}
		if len(r2.Prune) != 0 {
			t.Fatalf("pruned twice: %v", r2.Prune)
		}
	})
}
