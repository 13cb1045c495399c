package screens

import (
	"errors"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// ValidComponentRef checks a G or c button's page token and indices.
func ValidComponentRef(cb Callback, idx *PageIndex) bool {
	if idx == nil {
		return false
	}
	if cb.Args[len(cb.Args)-1] != idx.Tok {
		return false
	}
	if cb.Op == "G" {
		_, ok := cb.Arg(0, len(idx.Groups))
		return ok
	}
	_, ok := cb.Arg(0, len(idx.Comps))
	_, ok2 := cb.Arg(1, 2)
	return ok && ok2
}

// SettingFor turns a settings button into its change.
func SettingFor(cb Callback) (store.SettingChange, error) {
	invalid := errors.New("invalid button")
	switch cb.Op {
	case "L":
		i, ok := cb.Arg(0, len(i18n.Languages))
		if !ok {
			return store.SettingChange{}, invalid
		}
		tag := i18n.Languages[i].Tag
		if tag == i18n.Default {
			tag = "" // as the settings keep English
		}
		return store.SetLanguage(tag, true), nil
	case "S":
		i, ok := cb.Arg(0, len(severityLabels))
		if !ok {
			return store.SettingChange{}, invalid
		}
		if i == 0 {
			return store.SetSeverity(store.SeverityAll, false)
		}
		return store.SetSeverity(store.SeverityOutage, i == 2)
	case "Q":
		if cb.Args[0] == "x" {
			return store.SetQuietHours("", "")
		}
		i, ok := cb.Arg(0, len(quietPresets))
		if !ok {
			return store.SettingChange{}, invalid
		}
		return store.SetQuietHours(quietPresets[i][0], quietPresets[i][1])
	case "r", "p", "e", "H", "R":
		v, ok := cb.Arg(0, 2)
		if !ok {
			return store.SettingChange{}, invalid
		}
		switch cb.Op {
		case "r":
			return store.SetQuietResolutions(v == 1), nil
		case "H":
			return store.SetQuietHold(v == 1), nil
		case "p":
			return store.SetPinCards(v == 1), nil
		case "R":
			return store.SetRingEvery(v == 1), nil
		}
		return store.SetReminders(v == 1, 0)
	case "Z":
		i, ok := cb.Arg(0, len(zonePresets))
		if !ok {
			return store.SettingChange{}, invalid
		}
		return store.SetTimeZone(zonePresets[i])
	case "o":
		switch cb.Args[0] {
		case "c":
			return store.SetMode(store.ModeCards)
		case "m":
			return store.SetMode(store.ModeMessages)
		}
	case "E":
		i, ok := cb.Arg(0, len(reminderOpts))
		if !ok {
			return store.SettingChange{}, invalid
		}
		return store.SetReminders(true, reminderOpts[i])
	}
	return store.SettingChange{}, invalid
}

// ToggleKind sets or clears one kind, keeping event.Kinds' order.
func ToggleKind(kinds []event.Kind, k event.Kind, on bool) []event.Kind {
	if len(kinds) == 0 {
		kinds = event.DefaultKinds
	}
	var out []event.Kind
	for _, x := range event.Kinds {
		has := false
		for _, y := range kinds {
			has = has || y == x
		}
		if x == k {
			has = on
		}
		if has {
			out = append(out, x)
		}
	}
	return out
}
