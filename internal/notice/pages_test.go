package notice

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// The component filter applies per page: a chat's entries of one page
// (scoped IDs, the legacy page's bare) never filter another page; a page
// the chat does not follow is no notice of it at all.
func TestDecidePerPage(t *testing.T) {
	gh := event.Event{Key: "github/component:git:major_outage", OrderKey: "github/component:git", Page: "github", Kind: event.KindComponent,
		ComponentID: "github/git", OldStatus: "operational", NewStatus: "major_outage"}
	legacy := storyComp("operational", "major_outage", "")
	ghInc := event.Event{Key: "github/incident:i:u", OrderKey: "github/incident:i", Page: "github", Kind: event.KindIncident,
		IncidentID: "github/i", UpdateStatus: "investigating", Impact: "minor", ComponentIDs: []string{"github/git"}}
	for _, tc := range []struct {
		name string
		sub  store.Subscriber
		e    event.Event
		send bool
		why  Why
	}{
		{"recorded before pages: the legacy page", store.Subscriber{}, legacy, true, WhyJoined},
		{"recorded before pages: not another page", store.Subscriber{}, gh, false, WhyPage},
		{"another page followed", store.Subscriber{Pages: []string{"", "github"}}, gh, true, WhyJoined},
		{"a legacy filter does not filter another page", store.Subscriber{Pages: []string{"", "github"}, Components: []string{"api"}}, gh, true, WhyJoined},
		{"a legacy filter still filters the legacy page", store.Subscriber{Pages: []string{"", "github"}, Components: []string{"api"}}, legacy, false, WhyFilter},
		{"the page's own filter entry", store.Subscriber{Pages: []string{"github"}, Components: []string{"github/git"}}, gh, true, WhyJoined},
		{"the page's filter, another component", store.Subscriber{Pages: []string{"github"}, Components: []string{"github/act"}}, gh, false, WhyFilter},
		{"a bare ID of the same name is the legacy page's", store.Subscriber{Pages: []string{"", "github"}, Components: []string{"git"}}, gh, true, WhyJoined},
		{"an incident of the page's components", store.Subscriber{Pages: []string{"github"}, Components: []string{"github/git"}}, ghInc, true, WhyJoined},
		{"an incident of other components", store.Subscriber{Pages: []string{"github"}, Components: []string{"github/act"}}, ghInc, false, WhyFilter},
		{"the legacy page left", store.Subscriber{Pages: []string{"github"}}, legacy, false, WhyPage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Decide(tc.sub, tc.e, false)
			if v.Send != tc.send || v.Why != tc.why {
				t.Fatalf("Decide = %+v, want send %v why %s", v, tc.send, tc.why)
			}
		})
	}
}
