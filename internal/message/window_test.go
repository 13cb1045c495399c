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
	if _, err := parseHTML(got); err != nil {
		t.Fatal(err)
	}
	got = untimed(got)
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
	if got := untimed(message.Notification(e)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWindowIn(t *testing.T) {
	at := func(s string) *time.Time { v, _ := time.Parse(time.RFC3339, s); return &v }
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	for _, tt := range []struct {
		name       string
		start, end *time.Time
		loc        *time.Location
		want       string
	}{
		{"nil is UTC", at("2026-07-18T09:00:00Z"), at("2026-07-18T11:00:00Z"), nil, "2026-07-18 09:00 – 11:00 UTC"},
		{"UTC", at("2026-07-18T09:00:00Z"), at("2026-07-18T11:00:00Z"), time.UTC, "2026-07-18 09:00 – 11:00 UTC"},
		{"summer time", at("2026-07-18T09:00:00Z"), at("2026-07-18T11:00:00Z"), zone("Europe/Berlin"), "2026-07-18 11:00 – 13:00 CEST"},
		{"winter time", at("2026-01-25T09:00:00Z"), at("2026-01-25T11:00:00Z"), zone("Europe/Berlin"), "2026-01-25 10:00 – 12:00 CET"},
		{"half-hour offset", at("2026-07-18T09:00:00Z"), at("2026-07-18T11:15:00Z"), zone("Asia/Kolkata"), "2026-07-18 14:30 – 16:45 IST"},
		{"quarter-hour offset without a name", at("2026-07-18T09:00:00Z"), at("2026-07-18T10:00:00Z"), zone("Asia/Kathmandu"), "2026-07-18 14:45 – 15:45 +0545"},
		{"offset as the name", at("2026-07-18T09:00:00Z"), at("2026-07-18T11:00:00Z"), zone("Europe/Istanbul"), "2026-07-18 12:00 – 14:00 +03"},
		{"daylight saving time starts inside", at("2026-03-29T00:30:00Z"), at("2026-03-29T02:30:00Z"), zone("Europe/Berlin"),
			"2026-03-29 01:30 CET – 04:30 CEST"},
		{"daylight saving time ends inside", at("2026-11-01T05:00:00Z"), at("2026-11-01T07:00:00Z"), zone("America/New_York"),
			"2026-11-01 01:00 EDT – 02:00 EST"},
		{"midnight in the zone, not in UTC", at("2026-07-18T14:00:00Z"), at("2026-07-18T16:00:00Z"), zone("Asia/Tokyo"),
			"2026-07-18 23:00 – 2026-07-19 01:00 JST"},
		{"midnight in UTC, not in the zone", at("2026-07-17T23:00:00Z"), at("2026-07-18T01:00:00Z"), zone("Europe/Berlin"),
			"2026-07-18 01:00 – 03:00 CEST"},
		{"the day before in the zone", at("2026-07-18T03:00:00Z"), at("2026-07-18T05:00:00Z"), zone("America/Los_Angeles"),
			"2026-07-17 20:00 – 22:00 PDT"},
		{"no end", at("2026-07-18T09:00:00Z"), nil, zone("Asia/Kolkata"), "2026-07-18 14:30 IST"},
		{"end not after start", at("2026-03-29T00:30:00Z"), at("2026-03-29T00:30:00Z"), zone("Europe/Berlin"), "2026-03-29 01:30 CET"},
		{"no start", nil, at("2026-07-18T09:00:00Z"), zone("Europe/Berlin"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := message.WindowIn(tt.start, tt.end, tt.loc); got != tt.want {
				t.Errorf("WindowIn = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNotificationIn(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	s, end := time.Date(2026, 7, 18, 9, 0, 0, 0, time.UTC), time.Date(2026, 7, 18, 11, 0, 0, 0, time.UTC)
	maint := event.Event{Kind: event.KindMaintenance, IncidentName: "DB upgrade", UpdateStatus: "scheduled", Impact: "maintenance",
		Body: "We will upgrade.", WindowStart: &s, WindowEnd: &end}
	component := event.Event{Kind: event.KindComponent, ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage"}
	for _, tt := range []struct {
		name   string
		e      event.Event
		loc    *time.Location
		want   string
		absent string
		times  bool
	}{
		{"maintenance in UTC", maint, time.UTC, "Window: 2026-07-18 09:00 – 11:00 UTC", "CEST", true},
		{"maintenance in nil", maint, nil, "Window: 2026-07-18 09:00 – 11:00 UTC", "CEST", true},
		{"maintenance in Berlin", maint, berlin, "Window: 2026-07-18 11:00 – 13:00 CEST", "UTC", true},
		{"component change shows no time", component, berlin, "Major Outage", "CEST", false},
		{"maintenance without a window", event.Event{Kind: event.KindMaintenance, IncidentName: "x"}, berlin, "Scheduled maintenance", "Window", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := untimed(message.NotificationIn(tt.e, tt.loc))
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.absent) {
				t.Errorf("want %q and not %q in\n%s", tt.want, tt.absent, got)
			}
			if message.ShowsTimes(tt.e) != tt.times {
				t.Errorf("ShowsTimes = %v, want %v", !tt.times, tt.times)
			}
			if !tt.times && got != message.Notification(tt.e) {
				t.Errorf("a notice without times differs by zone:\n%s\n%s", got, message.Notification(tt.e))
			}
		})
	}
	if message.Notification(maint) != message.NotificationIn(maint, time.UTC) {
		t.Error("Notification is not NotificationIn UTC")
	}
}

// A reminder's window reads in the chat's zone like the notices'.
func TestReminderNoticeIn(t *testing.T) {
	start := time.Date(2026, 7, 18, 21, 0, 0, 0, time.UTC)
	end := start.Add(2 * time.Hour)
	e := event.Event{Kind: event.KindMaintenance, IncidentName: "Upgrade", WindowStart: &start, WindowEnd: &end,
		Reminder: &event.Reminder{Start: start, Lead: 30 * time.Minute, Until: time.Hour}}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if !message.ShowsTimes(e) {
		t.Fatal("a reminder shows its window")
	}
	got := message.NotificationIn(e, berlin)
	if !strings.Contains(got, `Window: <tg-time unix="1784408400" format="wdt">2026-07-18 23:00</tg-time> – <tg-time unix="1784415600" format="dt">2026-07-19 01:00 CEST</tg-time>`) {
		t.Fatalf("the window's ends are date-time entities:\n%s", got)
	}
	got = untimed(got)
	if !strings.Contains(got, "Window: 2026-07-18 23:00 – 2026-07-19 01:00 CEST") || !strings.Contains(got, "starts in 30 minutes") {
		t.Fatalf("got\n%s", got)
	}
}

// The text behind a window's date-time entities reads exactly as the
// window in the chat's zone, whatever the zone and the dates.
func TestWindowHTMLFallsBackToWindowIn(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	at := func(s string) *time.Time { v, _ := time.Parse(time.RFC3339, s); return &v }
	for _, loc := range []*time.Location{time.UTC, berlin, kolkata, nil} {
		for _, w := range [][2]*time.Time{
			{at("2026-07-18T09:00:00Z"), at("2026-07-18T11:00:00Z")},
			{at("2026-07-18T21:00:00Z"), at("2026-07-18T23:30:00Z")},
			{at("2026-03-29T00:30:00Z"), at("2026-03-29T02:30:00Z")}, // across the change to CEST
			{at("2026-07-18T09:00:00Z"), nil},
			{at("2026-07-18T09:00:00Z"), at("2026-07-18T08:00:00Z")},
			{nil, nil},
		} {
			got := message.WindowHTML(w[0], w[1], loc)
			if _, err := parseHTML(got); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			if message.Plain(got) != message.WindowIn(w[0], w[1], loc) {
				t.Errorf("fallback %q, window %q", message.Plain(got), message.WindowIn(w[0], w[1], loc))
			}
			if w[0] != nil && !strings.Contains(got, "<tg-time unix=") {
				t.Errorf("no date-time entity in %q", got)
			}
		}
	}
}

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		`<b>Errors &lt;API&gt;</b> at <tg-time unix="1" format="t">09:00 UTC</tg-time>`: "Errors <API> at 09:00 UTC",
		`<a href="https://x">View &amp; more</a>`:                                       "View & more",
		`plain & simple <3`: "plain & simple <3",
	} {
		if got := message.Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
