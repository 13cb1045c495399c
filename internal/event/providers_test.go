package event_test

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// A part that could not be read at the first poll is baselined when it
// comes back, silently, while the other part is watched meanwhile.
func TestPartsBaselineOnTheirOwn(t *testing.T) {
	p := basePage()
	p.IncidentsErr = "GET /api/v2/incidents.json: HTTP 502"
	r := event.Diff(event.Checkpoint{}, p)
	if r.Baseline == nil || !r.Baseline.ComponentsBaselined || r.Baseline.IncidentsBaselined || r.Baseline.Baseline {
		t.Fatalf("first poll without incidents: %+v", r.Baseline)
	}
	cp := *r.Baseline

	// Components are watched before incidents ever worked.
	p = basePage()
	p.IncidentsErr = "still failing"
	p.Components[1].Status, p.Components[1].UpdatedAt = "major_outage", ts("2026-03-02T00:00:00Z")
	r = event.Diff(cp, p)
	if r.Baseline != nil || len(r.Events) != 1 || r.Events[0].Kind != event.KindComponent {
		t.Fatalf("component change while incidents fail: baseline %v events %v", r.Baseline, keys(r.Events))
	}
	cp.Apply(r.Events)

	// Incidents come back: their history is recorded, not announced.
	p = basePage()
	p.Components[1].Status, p.Components[1].UpdatedAt = "major_outage", ts("2026-03-02T00:00:00Z")
	r = event.Diff(cp, p)
	if len(r.Events) != 0 {
		t.Fatalf("history announced when incidents came back: %v", keys(r.Events))
	}
	if r.Baseline == nil || !r.Baseline.Baseline || r.Baseline.Components["api"].Status != "major_outage" {
		t.Fatalf("incidents part not baselined, or components lost: %+v", r.Baseline)
	}
}

// A component missing from one response is neither removed nor changed.
func TestAbsenceIsNotChange(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	p.Components = p.Components[:2] // "chat" missing (rotating subset)
	r := event.Diff(cp, p)
	if len(r.Events) != 0 || r.Baseline != nil {
		t.Fatalf("absence produced %v / %v", keys(r.Events), r.Baseline)
	}
	// It comes back unchanged: still nothing.
	if r := event.Diff(cp, basePage()); len(r.Events) != 0 {
		t.Fatalf("return produced %v", keys(r.Events))
	}
}

// Another provider means other IDs: start over silently.
func TestProviderChangeRebaselines(t *testing.T) {
	cp := baseline(t) // from a page without provider: Statuspage
	p := basePage()
	p.Provider = statuspage.ProviderIncidentIO
	for i := range p.Components {
		p.Components[i].ID = "01NEW" + p.Components[i].ID
	}
	p.Components[1].Status = "partial_outage"
	p.Incidents[0].ID = "01NEWINC"
	r := event.Diff(cp, p)
	if !r.Rebaseline || len(r.Events) != 0 || r.Baseline == nil || r.Baseline.Provider != statuspage.ProviderIncidentIO {
		t.Fatalf("rebaseline %v events %v baseline %+v", r.Rebaseline, keys(r.Events), r.Baseline)
	}
	if _, old := r.Baseline.Components["api"]; old {
		t.Error("old IDs kept")
	}
	// Same provider again: a normal diff.
	if r2 := event.Diff(*r.Baseline, p); r2.Rebaseline || len(r2.Events) != 0 {
		t.Fatalf("second poll: %v %v", r2.Rebaseline, keys(r2.Events))
	}
}

func TestRenamesByNameAndGroup(t *testing.T) {
	known := map[string]event.ComponentRef{
		"old-api-login": {Name: "Login", Group: "APIs"},
		"old-cgt-login": {Name: "Login", Group: "ChatGPT"},
		"old-images":    {Name: "Images"},
		"old-login":     {Name: "Login"}, // no group known: ambiguous
		"old-gone":      {Name: "Retired"},
		"kept":          {Name: "Kept"},
	}
	p := &statuspage.Page{Components: []statuspage.Component{
		{ID: "g1", Name: "APIs", Group: true},
		{ID: "n-api-login", Name: "Login", GroupName: "APIs"},
		{ID: "n-images", Name: "images", GroupName: "APIs"},
		{ID: "g2", Name: "ChatGPT", Group: true},
		{ID: "n-cgt-login", Name: "Login", GroupName: "ChatGPT"},
		{ID: "kept", Name: "Kept"},
	}}
	got := event.Renames(known, p)
	want := map[string]string{"old-api-login": "n-api-login", "old-cgt-login": "n-cgt-login", "old-images": "n-images"}
	if len(got) != len(want) {
		t.Fatalf("renames %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s -> %q, want %q", k, got[k], v)
		}
	}
	cp := event.Checkpoint{Components: map[string]event.ComponentMark{"old-images": {Name: "Images", Status: "degraded_performance"}}}
	cp.RenameComponents(got)
	if cp.Components["n-images"].Status != "degraded_performance" || len(cp.Components) != 1 {
		t.Errorf("marks after rename: %+v", cp.Components)
	}
}

func TestDuplicateNamesLabelledByGroup(t *testing.T) {
	cp := baseline(t)
	cp.Components["l1"] = event.ComponentMark{Status: "operational"}
	cp.Components["l2"] = event.ComponentMark{Status: "operational"}
	p := basePage()
	p.Components = append(p.Components,
		statuspage.Component{ID: "l1", Name: "Login", GroupName: "APIs", Status: "partial_outage", UpdatedAt: ts("2026-03-02T00:00:00Z")},
		statuspage.Component{ID: "l2", Name: "Login", GroupName: "ChatGPT", Status: "operational", UpdatedAt: ts("2026-03-01T00:00:00Z")})
	r := event.Diff(cp, p)
	if len(r.Events) != 1 || r.Events[0].ComponentLabel != "Login (APIs)" || r.Events[0].ComponentGroup != "APIs" {
		t.Fatalf("events %+v", r.Events)
	}
}

// An incident's card lists its components by the names their changes and
// its timeline show: "Login (ChatGPT)" where the page has two Logins
// (before: the card's list said "Login" under a timeline line "Login
// (ChatGPT): Major outage").
func TestIncidentListsComponentsAsTheirChangesNameThem(t *testing.T) {
	cp := baseline(t)
	cp.Components["l1"] = event.ComponentMark{Status: "operational"}
	cp.Components["l2"] = event.ComponentMark{Status: "operational"}
	p := basePage()
	p.Components = append(p.Components,
		statuspage.Component{ID: "l1", Name: "Login", GroupName: "APIs", Status: "operational", UpdatedAt: ts("2026-03-01T00:00:00Z")},
		statuspage.Component{ID: "l2", Name: "Login", GroupName: "ChatGPT", Status: "major_outage", UpdatedAt: ts("2026-03-02T00:00:00Z")})
	p.Incidents = append(p.Incidents, statuspage.Incident{ID: "i9", Name: "Login fails", Status: "investigating",
		Components: []statuspage.IncidentComp{{ID: "l2", Name: "Login"}},
		Updates:    []statuspage.IncidentUpdate{upd("i9-u1", "investigating", "Looking.", "2026-03-02T00:00:00Z")}})
	r := event.Diff(cp, p)
	var inc, comp *event.Event
	for i, e := range r.Events {
		switch e.Kind {
		case event.KindIncident:
			inc = &r.Events[i]
		case event.KindComponent:
			comp = &r.Events[i]
		}
	}
	if inc == nil || comp == nil {
		t.Fatalf("events %v", keys(r.Events))
	}
	if comp.ComponentLabel != "Login (ChatGPT)" || len(inc.ComponentNames) != 1 || inc.ComponentNames[0] != comp.ComponentLabel {
		t.Fatalf("the card lists %v, the change says %q", inc.ComponentNames, comp.ComponentLabel)
	}
}

func TestIncidentEventsCarryNamesAndWindow(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	start, end := ts("2026-03-05T00:00:00Z"), ts("2026-03-05T02:00:00Z")
	p.Incidents = append(p.Incidents, statuspage.Incident{ID: "m1", Name: "DB", Status: "scheduled", Maintenance: true,
		ScheduledFor: &start, ScheduledUntil: &end, Components: []statuspage.IncidentComp{{ID: "api"}},
		Updates: []statuspage.IncidentUpdate{upd("m1-u1", "scheduled", "Upgrade.", "2026-03-02T00:00:00Z")}})
	r := event.Diff(cp, p)
	if len(r.Events) != 1 {
		t.Fatalf("events %v", keys(r.Events))
	}
	e := r.Events[0]
	if e.Kind != event.KindMaintenance || len(e.ComponentNames) != 1 || e.ComponentNames[0] != "API" ||
		e.WindowStart == nil || !e.WindowStart.Equal(start) || !e.WindowEnd.Equal(end) {
		t.Errorf("event %+v", e)
	}
}

// A status word the model does not know is recorded, shown as text, and
// never a notice of its own.
func TestUnknownStatusIsNoNoticeOfItsOwn(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	p.Components[1].Status, p.Components[1].UpdatedAt = "brand_new_state", ts("2026-03-02T00:00:00Z")
	r := event.Diff(cp, p)
	if len(r.Events) != 1 || r.Events[0].Notify {
		t.Fatalf("events %+v", r.Events)
	}
	cp.Apply(r.Events)
	p.Components[1].Status, p.Components[1].UpdatedAt = "operational", ts("2026-03-03T00:00:00Z")
	if r := event.Diff(cp, p); len(r.Events) != 1 || r.Events[0].Notify {
		t.Fatalf("back to operational from an unknown word: %+v", r.Events)
	}
	p.Components[1].Status, p.Components[1].UpdatedAt = "major_outage", ts("2026-03-04T00:00:00Z")
	if r := event.Diff(cp, p); len(r.Events) != 1 || !r.Events[0].Notify {
		t.Fatalf("a real outage after an unknown word: %+v", r.Events)
	}
}
