package message_test

import (
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
)

func TestWindow(t *testing.T) {
	at := func(s string) *time.Time { v, _ := time.Parse(time.RFC3339, s); return &v }
	for _, tt := range []struct {
		start, end *time.Time
		want       string
	}{
		{at("2026-01-25T00:00:00Z"), at("2026-01-25T02:00:00Z"), "2026-01-25 00:00 – 02:00 UTC"},
		{at("2026-01-25T23:00:00+01:00"), at("2026-01-26T01:00:00Z"), "2026-01-25 22:00 – 2026-01-26 01:00 UTC"},
		{at("2026-01-25T00:00:00Z"), nil, "2026-01-25 00:00 UTC"},
		{nil, at("2026-01-25T00:00:00Z"), ""},
	} {
		if got := message.Window(tt.start, tt.end); got != tt.want {
			t.Errorf("Window = %q, want %q", got, tt.want)
		}
	}
}

func TestMaintenanceNoticeShowsWindowAndComponents(t *testing.T) {
	s, e := time.Date(2026, 1, 25, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 25, 2, 0, 0, 0, time.UTC)
	got := message.Notification(event.Event{Kind: event.KindMaintenance, IncidentName: "DB <upgrade>", UpdateStatus: "scheduled",
		Impact: "maintenance", Body: "We will upgrade.", WindowStart: &s, WindowEnd: &e, ComponentNames: []string{"Responses", "Login & SSO"}})
	for _, want := range []string{"Window: 2026-01-25 00:00 – 02:00 UTC", "Components: Responses, Login &amp; SSO", "DB &lt;upgrade&gt;", "We will upgrade."} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
