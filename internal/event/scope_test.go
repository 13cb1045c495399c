package event_test

import (
	"reflect"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

func TestScoped(t *testing.T) {
	inc := event.Event{Key: "incident:i1:u2:v", OrderKey: "incident:i1", Predecessor: "incident:i1:u1:v", Kind: event.KindIncident,
		IncidentID: "i1", UpdateID: "u2", ComponentIDs: []string{"c1", "c2"}, ComponentNames: []string{"API", "Login"}}
	comp := event.Event{Key: "component:c1:major_outage:t", OrderKey: "component:c1", Kind: event.KindComponent, ComponentID: "c1"}
	for _, tc := range []struct {
		name string
		in   event.Event
		page string
		want event.Event
	}{
		{"the legacy page's events are today's", inc, "", inc},
		{"an incident of another page", inc, "github", event.Event{Page: "github", Key: "github/incident:i1:u2:v", OrderKey: "github/incident:i1",
			Predecessor: "github/incident:i1:u1:v", Kind: event.KindIncident, IncidentID: "github/i1", UpdateID: "u2",
			ComponentIDs: []string{"github/c1", "github/c2"}, ComponentNames: []string{"API", "Login"}}},
		{"a first component change: no predecessor to scope", comp, "github", event.Event{Page: "github", Key: "github/component:c1:major_outage:t",
			OrderKey: "github/component:c1", Kind: event.KindComponent, ComponentID: "github/c1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.Scoped(tc.page)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Scoped(%q) =\n%+v\nwant\n%+v", tc.page, got, tc.want)
			}
			if back := got.Unscoped(); !reflect.DeepEqual(back, tc.in) {
				t.Fatalf("Unscoped = %+v, want %+v", back, tc.in)
			}
			if tc.in.ComponentIDs != nil && &got.ComponentIDs[0] == &tc.in.ComponentIDs[0] && tc.page != "" {
				t.Fatal("Scoped shares the component IDs with the event it scoped")
			}
		})
	}
	if got := event.ScopedAll("github", []event.Event{inc, comp}); got[0].Page != "github" || got[1].Key != "github/component:c1:major_outage:t" {
		t.Fatalf("ScopedAll = %+v", got)
	}
	if got := event.UnscopedAll(event.ScopedAll("github", []event.Event{inc, comp})); !reflect.DeepEqual(got, []event.Event{inc, comp}) {
		t.Fatalf("UnscopedAll = %+v", got)
	}
}

// Scoping by any valid page name and back gives the event again, and the
// scoped key names its page (pages.Unscope).
func FuzzScoped(f *testing.F) {
	f.Add("github", "incident:i1:u1:v", "i1", "c1")
	f.Add("a", "component:x/y:ok:t", "", "x/y")
	f.Fuzz(func(t *testing.T, page, key, incident, component string) {
		if pages.NameError(page) != "" || key == "" {
			return
		}
		e := event.Event{Key: key, OrderKey: key, IncidentID: incident, ComponentID: component, ComponentIDs: []string{component}}
		s := e.Scoped(page)
		if got, _ := pages.Unscope(s.Key); got != page {
			t.Fatalf("Unscope(%q) names page %q, want %q", s.Key, got, page)
		}
		if back := s.Unscoped(); !reflect.DeepEqual(back, e) {
			t.Fatalf("Unscoped(Scoped(%+v)) = %+v", e, back)
		}
	})
}
