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

func TestLead(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "1 minute"}, {40 * time.Second, "1 minute"}, {15 * time.Minute, "15 minutes"},
		{59*time.Minute + 59*time.Second, "1 hour"}, {time.Hour, "1 hour"}, {90 * time.Minute, "90 minutes"},
		{2 * time.Hour, "2 hours"}, {24 * time.Hour, "24 hours"},
	} {
		if got := message.Lead(tc.d); got != tc.want {
			t.Errorf("Lead(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// A reminder names the maintenance, its window and components, and says
// how long is left; it carries no update text.
func TestReminderNotice(t *testing.T) {
	start := time.Date(2026, 7, 18, 9, 0, 0, 0, time.UTC)
	end := start.Add(2 * time.Hour)
	e := event.Event{Kind: event.KindMaintenance, IncidentName: "Database <upgrade>", WindowStart: &start, WindowEnd: &end,
		ComponentNames: []string{"Responses"}, URL: "https://status.openai.com/incidents/m1", Body: "We will upgrade",
		Reminder: &event.Reminder{Start: start, Lead: time.Hour, Until: 2 * time.Hour}}
	want := "⏰ <b>Maintenance starts in 1 hour</b>\n\n<b>Database &lt;upgrade&gt;</b>\nWindow: 2026-07-18 09:00 – 11:00 UTC\n" +
		"Components: Responses\n\n<a href=\"https://status.openai.com/incidents/m1\">View maintenance</a>"
	if got := message.Notification(e); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
