package activities

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
)

func TestKeyIs(t *testing.T) {
	for _, c := range []struct {
		key  string
		kind event.Kind
		want bool
	}{
		{"incident:01HX:u1:v2", event.KindIncident, true},
		{"github/incident:01HX:u1:v2", event.KindIncident, true},
		{"component:api:major_outage:t", event.KindComponent, true},
		{"github/component:api:major_outage:t", event.KindComponent, true},
		{"github/component:api:major_outage:t", event.KindIncident, false},
		{"reminder:m1:t:60", event.KindComponent, false},
		{"summary", event.KindComponent, false},
		{"", event.KindIncident, false},
	} {
		if got := keyIs(c.key, c.kind); got != c.want {
			t.Errorf("keyIs(%q, %q) = %v, want %v", c.key, c.kind, got, c.want)
		}
	}
}
