package commands

import (
	"context"
	"errors"
	"html"
	"strconv"
	"strings"

	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// SettingsRequest is a parsed "/settings <name> <value>".
type SettingsRequest struct {
	// Show: no arguments, open the keyboard.
	Show bool
	// Test: send a test notice as a real one would go.
	Test bool
	// Change is the choice to store; Kinds is set instead for "types".
	Change store.SettingChange
	Kinds  []event.Kind
	// Name is the setting's canonical name ("quiet", "pin", ...).
	Name string
	// Done says what was set, for the reply (English); doneIn says it in
	// a chat's language.
	Done   string
	doneIn func(i18n.Catalog) string
	// Err is the problem with the input, for the reply (plain text);
	// errIn says it in the chat's language where a catalog has it (nil:
	// Err, in English).
	Err   string
	errIn func(i18n.Catalog) string
	// bare: the error is said without the list of typed settings.
	bare bool
	// Lang is the language chosen ("language": a catalog tag).
	Lang string
}

// ErrIn is the problem with the input in c's language.
func (r SettingsRequest) ErrIn(c i18n.Catalog) string {
	if r.errIn != nil {
		return r.errIn(c)
	}
	return message.Escape(r.Err)
}

// settingsUsage lists the typed settings.
func settingsUsage(c i18n.Catalog) string { return c.T("settings.usage") }

// ParseSettings reads the arguments of /settings.
func ParseSettings(args string) SettingsRequest {
	name, value, _ := strings.Cut(strings.TrimSpace(args), " ")
	name, value = strings.ToLower(name), strings.TrimSpace(value)
	req := parseSetting(name, value)
	if req.Err == "" && !req.Show && !req.Test {
		req.Name = canonicalSetting[name]
	}
	return req
}

// canonicalSetting maps the names /settings accepts to one each.
var canonicalSetting = map[string]string{
	"types": "types", "type": "types", "kinds": "types", "severity": "severity", "quiet": "quiet",
	"quiet-resolutions": "quiet-resolutions", "quiet-mode": "quiet-mode", "resolutions": "quiet-resolutions",
	"tz": "tz", "timezone": "tz", "zone": "tz", "mode": "mode", "pin": "pin",
	"reminders": "reminders", "reminder": "reminders", "ring": "ring",
	"language": "language", "lang": "language",
}

func parseSetting(name, value string) SettingsRequest {
	lv := strings.ToLower(value)
	// failIn is a bad value said by the catalogs: message id, placeholders
	// (Count: a plural form).
	failIn := func(id string, data ...any) SettingsRequest {
		in := func(c i18n.Catalog) string {
			for i := 0; i+1 < len(data); i += 2 {
				if data[i] == "Count" {
					return c.N(id, data[i+1].(int), data...)
				}
			}
			return c.T(id, data...)
		}
		return SettingsRequest{Err: html.UnescapeString(in(en)), errIn: in}
	}
	// storeFail is a value the store refused: its reason in English as it
	// always read, the catalog's id in the other languages.
	storeFail := func(err error, id string, data ...any) SettingsRequest {
		r := failIn(id, data...)
		r.Err = strings.TrimPrefix(err.Error(), store.ErrBadSetting.Error()+": ")
		in := r.errIn
		r.errIn = func(c i18n.Catalog) string {
			if c.Tag() == i18n.Default {
				return message.Escape(r.Err)
			}
			return in(c)
		}
		return r
	}
	// ok is a change made: what was set, message id and placeholders.
	ok := func(c store.SettingChange, err error, id string, data ...any) SettingsRequest {
		if err != nil {
			return storeFail(err, "settings.badValue")
		}
		in := func(cat i18n.Catalog) string { return cat.T(id, data...) }
		if id == "set.remMinutes" {
			in = func(cat i18n.Catalog) string { return cat.N(id, data[1].(int)) }
		}
		return SettingsRequest{Change: c, Done: in(en), doneIn: in}
	}
	switch name {
	case "":
		return SettingsRequest{Show: true}
	case "test":
		return SettingsRequest{Test: true}
	case "types", "type", "kinds":
		req := ParseSubscribe(value)
		if req.Op != SubKinds {
			return failIn("settings.badTypes")
		}
		in := func(cat i18n.Catalog) string { return cat.T("set.kinds", "Kinds", screens.KindListIn(cat, req.Kinds)) }
		return SettingsRequest{Kinds: req.Kinds, Done: in(en), doneIn: in}
	case "severity":
		switch lv {
		case "all", "everything":
			c, err := store.SetSeverity(store.SeverityAll, false)
			return ok(c, err, "set.sevAll")
		case "outage", "outages":
			c, err := store.SetSeverity(store.SeverityOutage, false)
			return ok(c, err, "set.sevOutage")
		case "outage-silent", "outages-silent":
			c, err := store.SetSeverity(store.SeverityOutage, true)
			return ok(c, err, "set.sevOutageSilent")
		}
		return failIn("settings.badSeverity")
	case "quiet":
		if lv == "off" || lv == "none" {
			c, err := store.SetQuietHours("", "")
			return ok(c, err, "set.quietOff")
		}
		window, mode := value, ""
		if f := strings.Fields(value); len(f) > 1 {
			if m := strings.ToLower(f[len(f)-1]); m == "hold" || m == "silent" {
				window, mode = strings.Join(f[:len(f)-1], ""), m
			}
		}
		a, b, found := strings.Cut(strings.NewReplacer(" ", "", "–", "-", "—", "-").Replace(window), "-")
		if !found {
			return failIn("settings.badQuiet")
		}
		c, err := store.SetQuietHours(a, b)
		if err != nil {
			return storeFail(err, "settings.badQuietTime", "Start", escEcho(a), "End", escEcho(b))
		}
		switch mode {
		case "hold":
			return ok(c.And(store.SetQuietHold(true)), err, "set.quietHold", "Start", a, "End", b)
		case "silent":
			return ok(c.And(store.SetQuietHold(false)), err, "set.quietSilent", "Start", a, "End", b)
		}
		return ok(c, err, "set.quiet", "Start", a, "End", b)
	case "quiet-mode":
		switch lv {
		case "hold", "summary":
			return ok(store.SetQuietHold(true), nil, "set.modeHold")
		case "silent":
			return ok(store.SetQuietHold(false), nil, "set.modeSilent")
		}
		return failIn("settings.badQuietMode")
	case "quiet-resolutions", "resolutions":
		switch lv {
		case "silent", "on":
			return ok(store.SetQuietResolutions(true), nil, "set.resSilent")
		case "audible", "off":
			return ok(store.SetQuietResolutions(false), nil, "set.resAudible")
		}
		return failIn("settings.badResolutions")
	case "ring":
		switch lv {
		case "every", "all", "always":
			return ok(store.SetRingEvery(true), nil, "set.ringEvery")
		case "news", "changes":
			return ok(store.SetRingEvery(false), nil, "set.ringNews")
		}
		return failIn("settings.badRing")
	case "tz", "timezone", "zone":
		if value == "" {
			return failIn("settings.sayZone")
		}
		zone, abbrev, _ := ResolveZone(value)
		c, err := store.SetTimeZone(zone)
		if err != nil {
			return storeFail(err, "settings.badZone", "Zone", escEcho(value))
		}
		if abbrev {
			return ok(c, err, "set.zoneAbbrev", "Zone", zone, "Abbrev", strings.ToUpper(value))
		}
		return ok(c, err, "set.zone", "Zone", zone)
	case "mode":
		c, err := store.SetMode(lv)
		if err != nil {
			return failIn("settings.badMode")
		}
		if lv == store.ModeCards {
			return ok(c, nil, "set.cards")
		}
		return ok(c, nil, "set.messages")
	case "pin":
		on, valid := onOff(lv)
		if !valid {
			return failIn("settings.badPin")
		}
		if on {
			return ok(store.SetPinCards(on), nil, "set.pinOn")
		}
		return ok(store.SetPinCards(on), nil, "set.pinOff")
	case "reminders", "reminder":
		if on, valid := onOff(lv); valid {
			c, err := store.SetReminders(on, 0)
			if on {
				return ok(c, err, "set.remOn")
			}
			return ok(c, err, "set.remOff")
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(lv, "min"), "m"))
		if err != nil {
			return failIn("settings.badReminders")
		}
		if n <= 0 {
			// SetReminders(true, 0) means "on, keeping the lead": never
			// what "0 minutes" asks for.
			return failIn("settings.remindersMin", "Count", store.MinReminderMinutes)
		}
		c, err := store.SetReminders(true, n)
		if err != nil {
			return storeFail(err, "settings.remindersRange", "Min", strconv.Itoa(store.MinReminderMinutes), "Max", strconv.Itoa(store.MaxReminderMinutes))
		}
		return ok(c, err, "set.remMinutes", "Count", n)
	case "language", "lang":
		if value == "" {
			return SettingsRequest{Err: "Say which language, like /settings language de.", bare: true,
				errIn: func(c i18n.Catalog) string { return c.T("settings.languageSay", "List", languageList()) }}
		}
		tag, known := typedLanguage(value)
		if !known {
			return SettingsRequest{Err: "Unknown language “" + echo(value) + "”.", bare: true,
				errIn: func(c i18n.Catalog) string {
					return c.T("settings.languageUnknown", "Code", escEcho(value), "List", languageList())
				}}
		}
		return SettingsRequest{Change: store.SetLanguage(stored(tag), true), Lang: tag, Done: "language " + i18n.Name(tag)}
	case "components", "component":
		return failIn("settings.components")
	}
	return failIn("settings.unknown", "Name", escEcho(name))
}

// typedLanguage is the catalog a typed code names: a catalog's tag in
// any case ("pt-br"), or a code whose nearest catalog is close ("pt",
// "zh-cn", "de-AT"); false for a code no catalog is near ("xx").
func typedLanguage(code string) (string, bool) {
	if tag, ok := i18n.Known(code); ok {
		return tag, true
	}
	tag := i18n.Match(code)
	if tag == i18n.Default && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(code)), "en") {
		return "", false
	}
	return tag, true
}

func onOff(s string) (on, ok bool) {
	switch s {
	case "on", "yes", "true":
		return true, true
	case "off", "no", "false":
		return false, true
	}
	return false, false
}

// settingNote adds, in c's language, what a saved setting means for this
// chat when the bare confirmation would mislead: quiet hours without a
// zone are UTC; pinning does nothing in messages mode.
func settingNote(c i18n.Catalog, name string, s store.Settings) string {
	switch {
	case name == "quiet" && s.QuietStart != "" && s.TimeZone == "":
		return c.T("set.noteUTC")
	case name == "pin" && s.PinCards && !s.Cards():
		return c.T("set.notePin")
	}
	return ""
}

func (h *handler) cmdSettings(ctx context.Context, r *request) {
	if r.private && r.about == nil && strings.EqualFold(strings.TrimSpace(r.cmd.Args), "channels") {
		h.listChannels(ctx, r)
		return
	}
	req := ParseSettings(r.cmd.Args)
	if req.Err != "" {
		c := h.lang(ctx, r)
		if req.bare {
			h.reply(ctx, r, req.ErrIn(c))
			return
		}
		h.reply(ctx, r, req.ErrIn(c)+"\n\n"+settingsUsage(c))
		return
	}
	if !h.allowed(ctx, r) {
		return
	}
	sub, ok := h.subscribed(ctx, r)
	if !ok {
		return
	}
	if req.Show {
		h.openKeyboard(ctx, r, sub)
		return
	}
	if req.Test && r.about != nil {
		h.reply(ctx, r, h.lang(ctx, r).T("chan.noTest", "Name", message.Escape(r.about.title)))
		return
	}
	if req.Test {
		h.sendTestNotice(ctx, r, sub)
		return
	}
	var err error
	changed := sub.Settings
	if req.Kinds != nil {
		err = h.st.SetKinds(ctx, r.key(), req.Kinds)
	} else {
		var after *store.Subscriber
		if after, err = h.st.ChangeSettings(ctx, r.key(), req.Change); err == nil {
			changed = after.Settings
		}
	}
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
	case errors.Is(err, store.ErrBadSetting):
		h.reply(ctx, r, message.Escape(err.Error()))
	case err != nil:
		h.storeFailed(ctx, r, err)
	case req.Lang != "":
		// Said in the language chosen: the chat reads it from now on.
		h.reply(ctx, r, i18n.Of(req.Lang).T("settings.languageSaved", "Name", i18n.Name(req.Lang)))
	default:
		c := h.lang(ctx, r)
		done := req.Done
		if req.doneIn != nil {
			done = req.doneIn(c)
		}
		h.reply(ctx, r, c.T("set.saved", "Done", message.Escape(done))+settingNote(c, req.Name, changed))
	}
}
