package notice

import (
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func comp(old, new string) event.Event {
	return event.Event{Kind: event.KindComponent, OldStatus: old, NewStatus: new}
}

func inc(impact, status string) event.Event {
	return event.Event{Kind: event.KindIncident, Impact: impact, UpdateStatus: status}
}

func TestSeverity(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    event.Event
		lvl  Level
		res  bool
	}{
		{"degraded", comp("operational", "degraded_performance"), Minor, false},
		{"partial", comp("operational", "partial_outage"), Outage, false},
		{"major", comp("degraded_performance", "major_outage"), Outage, false},
		{"down to degraded", comp("major_outage", "degraded_performance"), Minor, false},
		{"recovered from degraded", comp("degraded_performance", "operational"), Minor, true},
		{"recovered from outage", comp("partial_outage", "operational"), Outage, true},
		{"maintenance status", comp("operational", "under_maintenance"), Minor, false},
		{"minor incident", inc("minor", "investigating"), Minor, false},
		{"no impact", inc("none", "identified"), Minor, false},
		{"major incident", inc("major", "investigating"), Outage, false},
		{"critical incident", inc("critical", "monitoring"), Outage, false},
		{"major resolved", inc("major", "resolved"), Outage, true},
		{"minor resolved", inc("minor", "resolved"), Minor, true},
		{"maintenance", event.Event{Kind: event.KindMaintenance, Impact: "maintenance"}, Outage, false},
	} {
		lvl, res := Severity(tc.e)
		if lvl != tc.lvl || res != tc.res {
			t.Errorf("%s: got %v %v, want %v %v", tc.name, lvl, res, tc.lvl, tc.res)
		}
	}
}

func TestWantsAndSilentBelowThreshold(t *testing.T) {
	all := store.Settings{}
	skip := store.Settings{MinSeverity: store.SeverityOutage}
	quietly := store.Settings{MinSeverity: store.SeverityOutage, BelowSilent: true}
	for _, tc := range []struct {
		name         string
		s            store.Settings
		e            event.Event
		wants, quiet bool
	}{
		{"all: degraded sent", all, comp("operational", "degraded_performance"), true, false},
		{"outage: degraded skipped", skip, comp("operational", "degraded_performance"), false, true},
		{"outage: partial sent", skip, comp("operational", "partial_outage"), true, false},
		{"outage: minor incident skipped", skip, inc("minor", "investigating"), false, true},
		{"outage: critical incident sent", skip, inc("critical", "investigating"), true, false},
		{"outage: its resolution sent", skip, inc("critical", "resolved"), true, false},
		{"outage: minor resolution skipped", skip, inc("minor", "resolved"), false, true},
		{"outage silently: degraded silent", quietly, comp("operational", "degraded_performance"), true, true},
		{"outage silently: major audible", quietly, comp("operational", "major_outage"), true, false},
		{"maintenance never below", skip, event.Event{Kind: event.KindMaintenance}, true, false},
	} {
		if got := Wants(tc.s, tc.e); got != tc.wants {
			t.Errorf("%s: Wants = %v", tc.name, got)
		}
		if v := Decide(store.Subscriber{Settings: tc.s}, tc.e, false); tc.wants && v.Silent != tc.quiet {
			t.Errorf("%s: Silent = %v", tc.name, v.Silent)
		}
	}
}

func TestQuietHours(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	night := store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin"}
	day := store.Settings{QuietStart: "09:30", QuietEnd: "17:00"}
	at := func(h, m int, loc *time.Location) time.Time { return time.Date(2026, 1, 15, h, m, 0, 0, loc) }
	for _, tc := range []struct {
		name string
		s    store.Settings
		now  time.Time
		want bool
	}{
		{"before start", night, at(21, 59, berlin), false},
		{"at start", night, at(22, 0, berlin), true},
		{"midnight", night, at(0, 0, berlin), true},
		{"early morning", night, at(6, 59, berlin), true},
		{"at end", night, at(7, 0, berlin), false},
		{"noon", night, at(12, 0, berlin), false},
		// 21:30 UTC is 22:30 in Berlin in winter.
		{"read in the chat's zone", night, at(21, 30, time.UTC), true},
		{"same window in UTC would be off", store.Settings{QuietStart: "22:00", QuietEnd: "07:00"}, at(21, 30, time.UTC), false},
		{"day window inside", day, at(12, 0, time.UTC), true},
		{"day window after", day, at(17, 0, time.UTC), false},
		{"day window before", day, at(9, 29, time.UTC), false},
		{"none", store.Settings{}, at(23, 0, time.UTC), false},
		{"garbage", store.Settings{QuietStart: "25:00", QuietEnd: "07:00"}, at(23, 0, time.UTC), false},
	} {
		if got := InQuietHours(tc.s, tc.now); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestSilentInQuietHoursResolutions(t *testing.T) {
	s := store.Settings{QuietStart: "22:00", QuietEnd: "07:00"}
	night := time.Date(2026, 1, 15, 23, 0, 0, 0, time.UTC)
	noon := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	silent := func(s store.Settings, e event.Event, at time.Time) bool { return QuietFor(s, e).Covers(at) }
	if !silent(s, inc("major", "investigating"), night) {
		t.Error("an update in quiet hours must be silent")
	}
	if silent(s, inc("major", "investigating"), noon) {
		t.Error("an update outside quiet hours must be audible")
	}
	if silent(s, inc("major", "resolved"), night) {
		t.Error("a resolution stays audible unless quiet_resolutions")
	}
	s.QuietResolutions = true
	if !silent(s, inc("major", "resolved"), night) || !silent(s, comp("major_outage", "operational"), night) {
		t.Error("with quiet_resolutions a resolution is silent too")
	}
}

func TestFormatTime(t *testing.T) {
	at := time.Date(2026, 3, 8, 9, 2, 0, 0, time.UTC)
	for _, tc := range []struct{ tz, want string }{
		{"", "2026-03-08 09:02 UTC"},
		{"Europe/Berlin", "2026-03-08 10:02 CET"},
		{"America/New_York", "2026-03-08 05:02 EDT"},
		{"Asia/Kolkata", "2026-03-08 14:32 IST"},
		{"Nowhere/Land", "2026-03-08 09:02 UTC"},
	} {
		if got := FormatTime(at, Zone(store.Settings{TimeZone: tc.tz})); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.tz, got, tc.want)
		}
	}
	if FormatTime(time.Time{}, nil) != "unknown" {
		t.Error("zero time")
	}
}

// A reminder reaches a chat only when reminders are on and its lead lies
// in the reminder's range; severity settings never hide it.
func TestWantsReminder(t *testing.T) {
	r := event.Event{Kind: event.KindMaintenance, Reminder: &event.Reminder{Lead: time.Hour, Until: 2 * time.Hour}}
	for _, tc := range []struct {
		name string
		s    store.Settings
		want bool
	}{
		{"default lead 60", store.Settings{}, true},
		{"lead 90 (between this reminder and the previous)", store.Settings{ReminderMinutes: 90}, true},
		{"lead 15 (a later reminder)", store.Settings{ReminderMinutes: 15}, false},
		{"lead 120 (the previous reminder)", store.Settings{ReminderMinutes: 120}, false},
		{"reminders off", store.Settings{NoReminders: true}, false},
		{"outages only", store.Settings{MinSeverity: store.SeverityOutage}, true},
	} {
		if got := Wants(tc.s, r); got != tc.want {
			t.Errorf("%s: Wants = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTextZone(t *testing.T) {
	start := time.Date(2026, 7, 18, 9, 0, 0, 0, time.UTC)
	maint := event.Event{Kind: event.KindMaintenance, WindowStart: &start}
	berlin := store.Settings{TimeZone: "Europe/Berlin"}
	berlinCards := store.Settings{TimeZone: "Europe/Berlin", Mode: store.ModeCards}
	for _, tc := range []struct {
		name string
		s    store.Settings
		e    event.Event
		want string
	}{
		{"maintenance window", berlin, maint, "Europe/Berlin"},
		{"UTC chat", store.Settings{}, maint, ""},
		{"UTC chat in cards mode", store.Settings{Mode: store.ModeCards}, inc("major", "investigating"), ""},
		{"unknown zone reads UTC", store.Settings{TimeZone: "Mars/Olympus"}, maint, ""},
		{"maintenance without a window", berlin, event.Event{Kind: event.KindMaintenance}, ""},
		{"component change", berlin, comp("operational", "major_outage"), ""},
		{"incident as a message", berlin, inc("major", "investigating"), ""},
		{"incident card timeline", berlinCards, inc("major", "investigating"), "Europe/Berlin"},
		{"half-hour zone", store.Settings{TimeZone: "Asia/Kolkata"}, maint, "Asia/Kolkata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TextZone(tc.s, tc.e); got != tc.want {
				t.Errorf("TextZone = %q, want %q", got, tc.want)
			}
		})
	}
}

// A missing time reads "unknown" in the chat's language.
func TestFormatTimeUnknownIn(t *testing.T) {
	if got := FormatTime(time.Time{}, nil); got != "unknown" {
		t.Errorf("English: %q", got)
	}
	if got := FormatTimeHTMLIn(i18n.Of("de"), time.Time{}, nil); got != "unbekannt" {
		t.Errorf("German: %q", got)
	}
	if got := FormatTimeIn(i18n.Of("ru"), time.Time{}, time.UTC); got != "неизвестно" {
		t.Errorf("Russian: %q", got)
	}
	at := time.Date(2026, 3, 8, 9, 2, 0, 0, time.UTC)
	if got := FormatTimeIn(i18n.Of("de"), at, nil); got != "2026-03-08 09:02 UTC" {
		t.Errorf("a known time: %q", got)
	}
}
