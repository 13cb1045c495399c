package activities

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// The card's pure decisions: what follows an update's reply (pinStep),
// and whether a component's recovery goes out apart (toldApart).
func TestCardDecisions(t *testing.T) {
	pinned, unpinned := store.IncidentCard{Pinned: true}, store.IncidentCard{}
	for _, tc := range []struct {
		name         string
		card         store.IncidentCard
		final, repin bool
		want         string
	}{
		{"an update of an open incident", pinned, false, false, ""},
		{"the resolution of a pinned card", pinned, true, false, callUnpin},
		{"the resolution of a card never pinned", unpinned, true, false, ""},
		{"a reopening, the chat pins", unpinned, false, true, callPin},
		{"a reopening, already pinned", pinned, false, true, ""},
		{"a reopening resolved at once", unpinned, true, true, ""},
		{"an update of an unpinned open card", unpinned, false, false, ""},
	} {
		if got := pinStep(tc.card, tc.final, tc.repin); got != tc.want {
			t.Errorf("pinStep: %s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name      string
		ends      bool
		lastHeard string
		onCard    bool
		want      bool
	}{
		{"an outage", false, "", false, false},
		{"a recovery whose outage was a message", true, "component:api:major_outage", false, true},
		{"a recovery whose outage was on the card", true, "component:api:major_outage", true, false},
		{"a recovery of an outage the chat never heard", true, "", false, false},
		{"a worse status while on the card", false, "component:api:partial_outage", false, false},
	} {
		if got := toldApart(tc.ends, tc.lastHeard, tc.onCard); got != tc.want {
			t.Errorf("toldApart: %s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
