package activities_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func TestFoldTargets(t *testing.T) {
	t0 := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	resolvedAt := t0.Add(10 * time.Minute)
	comps := []statuspage.Component{{ID: "api", Name: "API", Status: "partial_outage"}, {ID: "gpt", Name: "ChatGPT", Status: "operational"}}
	inc := func(id, status string, resolved *time.Time, listed ...string) statuspage.Incident {
		i := statuspage.Incident{ID: id, Name: "Errors " + id, Status: status, Impact: "major", ResolvedAt: resolved, UpdatedAt: t0,
			Updates: []statuspage.IncidentUpdate{{ID: id + "-u1", Status: status, Body: "text", CreatedAt: t0, DisplayAt: t0}}}
		for _, c := range listed {
			i.Components = append(i.Components, statuspage.IncidentComp{ID: c})
		}
		return i
	}
	maint := inc("m1", "in_progress", nil, "api")
	maint.Impact = "maintenance"
	change := func(status string, at time.Time) event.Event {
		old := "operational"
		if status == "operational" {
			old = "partial_outage"
		}
		return event.Event{Kind: event.KindComponent, ComponentID: "api", OldStatus: old, NewStatus: status, At: at}
	}
	for _, tc := range []struct {
		name      string
		incidents []statuspage.Incident
		e         event.Event
		want      []string
	}{
		{"no incident", nil, change("partial_outage", t0), nil},
		{"an open incident listing it", []statuspage.Incident{inc("i1", "investigating", nil, "api", "gpt")}, change("partial_outage", t0), []string{"i1"}},
		{"an open incident listing others", []statuspage.Incident{inc("i1", "investigating", nil, "gpt")}, change("partial_outage", t0), nil},
		{"a maintenance is not an incident", []statuspage.Incident{maint}, change("partial_outage", t0), nil},
		{"outage after the incident resolved", []statuspage.Incident{inc("i1", "resolved", &resolvedAt, "api")}, change("partial_outage", t0.Add(time.Hour)), nil},
		{"recovery soon after the resolution", []statuspage.Incident{inc("i1", "resolved", &resolvedAt, "api")}, change("operational", t0.Add(time.Hour)), []string{"i1"}},
		{"recovery long after the resolution", []statuspage.Incident{inc("i1", "resolved", &resolvedAt, "api")}, change("operational", t0.Add(5*time.Hour)), nil},
		{"two incidents", []statuspage.Incident{inc("i1", "investigating", nil, "api"), inc("i2", "identified", nil, "api")}, change("major_outage", t0), []string{"i1", "i2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := activities.FoldTargets(&statuspage.Page{Components: comps, Incidents: tc.incidents}, tc.e)
			var ids []string
			for _, g := range got {
				ids = append(ids, g.Incident)
				require.Equal(t, "incident:"+g.Incident, g.Now.OrderKey)
			}
			require.Equal(t, tc.want, ids)
		})
	}
	got := activities.FoldTargets(&statuspage.Page{Components: comps, Incidents: []statuspage.Incident{inc("i1", "investigating", nil, "api", "gpt")}}, change("partial_outage", t0))
	require.Equal(t, []message.ComponentState{{Name: "API", Status: "partial_outage"}, {Name: "ChatGPT", Status: "operational"}}, got[0].Components)
	require.True(t, got[0].Open)
	require.Equal(t, "investigating", got[0].Now.UpdateStatus)
}
