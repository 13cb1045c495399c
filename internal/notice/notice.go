// Package notice holds the rules of what a chat hears: its settings
// (store.Settings) and what it was told of a story applied to one event
// (Decide), quiet hours judged when a notice goes out (Quiet), and how
// times read in the chat's zone. Everything here is pure: the caller
// passes the clock and the records.
package notice

import (
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Level is how serious an event is, for MinSeverity.
type Level int

const (
	// Minor: degraded performance, minor (or no) impact incidents.
	Minor Level = iota
	// Outage: partial and full outages, major and critical incidents.
	Outage
)

// Severity rates an event. A resolution (a component back to operational,
// an incident resolved) is rated as what it resolves, so a chat hears the
// end of everything it heard the start of. Maintenance is rated Outage:
// it is chosen or not by its notice type, never hidden by severity.
func Severity(e event.Event) (lvl Level, resolution bool) {
	switch e.Kind {
	case event.KindComponent:
		status := e.NewStatus
		if status == "operational" {
			resolution, status = true, e.OldStatus
		}
		return statusLevel(status), resolution
	case event.KindMaintenance:
		return Outage, false
	default:
		resolution = e.UpdateStatus == "resolved" || e.UpdateStatus == "postmortem"
		switch e.Impact {
		case "major", "critical":
			return Outage, resolution
		}
		return Minor, resolution
	}
}

func statusLevel(status string) Level {
	switch status {
	case "partial_outage", "major_outage", "full_outage":
		return Outage
	}
	return Minor
}

// below reports whether the event is under the chat's threshold.
func below(s store.Settings, e event.Event) bool {
	if s.MinSeverity != store.SeverityOutage {
		return false
	}
	lvl, _ := Severity(e)
	return lvl < Outage
}

// Wants reports whether a chat with these settings gets the event at all
// (kinds and components are event.Accepts's business): below the minimum
// severity only when the chat asked for those silently; a maintenance
// reminder only when it is the chat's reminder (on, and its lead).
func Wants(s store.Settings, e event.Event) bool {
	if e.Reminder != nil {
		lead := s.ReminderLead()
		return lead > 0 && e.Reminder.Matches(lead)
	}
	return !below(s, e) || s.BelowSilent
}

// InQuietHours reports whether now falls in the chat's quiet window, read
// in its time zone; a window may cross midnight (22:00-07:00). The start
// is inside the window, the end is not.
func InQuietHours(s store.Settings, now time.Time) bool {
	if s.QuietStart == "" || s.QuietEnd == "" {
		return false
	}
	return (&Quiet{Start: s.QuietStart, End: s.QuietEnd, Zone: s.TimeZone}).Covers(now)
}

// Zone is the chat's time zone; UTC when unset or unknown.
func Zone(s store.Settings) *time.Location {
	loc, err := store.LoadZone(s.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// TextZone is the zone a chat's texts of e are rendered in: its zone's
// name when that is not UTC and the texts show times (a maintenance
// window, an incident card's timeline), else "": the text stored in UTC
// serves. Deliveries carry it with each recipient, so it stays short and
// is left out where it would change nothing.
func TextZone(s store.Settings, e event.Event) string {
	loc := Zone(s)
	if loc == time.UTC {
		return ""
	}
	if message.ShowsTimes(e) || ((e.Kind == event.KindIncident || e.Kind == event.KindComponent) && s.Cards()) {
		return loc.String()
	}
	return ""
}

// FormatTime shows t in loc: "2026-03-08 10:02 CET"; zones without an
// abbreviation show their offset ("+03"), UTC reads "UTC".
func FormatTime(t time.Time, loc *time.Location) string {
	return FormatTimeIn(i18n.Of(i18n.Default), t, loc)
}

// FormatTimeIn is FormatTime saying "unknown" in c's language (the
// digits are the same in every language).
func FormatTimeIn(c i18n.Catalog, t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return c.T("misc.timeUnknown")
	}
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("2006-01-02 15:04 MST")
}

// FormatTimeHTML is FormatTime as a date-time entity: Telegram apps show
// each reader their own time; the text, FormatTime in loc, is the fallback.
func FormatTimeHTML(t time.Time, loc *time.Location) string {
	return FormatTimeHTMLIn(i18n.Of(i18n.Default), t, loc)
}

// FormatTimeHTMLIn is FormatTimeHTML saying "unknown" in c's language.
func FormatTimeHTMLIn(c i18n.Catalog, t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return c.T("misc.timeUnknown")
	}
	if loc == nil {
		loc = time.UTC
	}
	return message.TimeHTML(t, loc, "2006-01-02 15:04 MST", message.FormatDateTime)
}
