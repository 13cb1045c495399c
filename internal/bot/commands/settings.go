package commands

import (
	"context"
	"errors"
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
const settingsUsage = "<b>Typed settings</b>\n" +
	"/settings types incident component maintenance|all\n" +
	"/settings severity all|outage|outage-silent\n" +
	"/settings quiet 22:00-07:00 [silent|hold]|off\n" +
	"/settings quiet-mode silent|hold — hold: no notices in the window, one morning summary at its end\n" +
	"/settings quiet-resolutions silent|audible\n" +
	"/settings ring news|every — news (default): only a new incident, a status or impact change and the end ring; every: each update rings\n" +
	"/settings tz Europe/Berlin|UTC\n" +
	"/settings mode cards|messages\n" +
	"/settings pin on|off\n" +
	"/settings language de|es|pt-BR|ru|uk|fr|tr|id|hi|zh-Hans|ja|fa|en\n" +
	"/settings reminders on|off|&lt;minutes&gt;\n" +
	"/settings test — a test notice, sent as a real one would be (quiet hours, topic)\n" +
	"Components: /subscribe component &lt;name&gt;, or the buttons."

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
	fail := func(msg string) SettingsRequest { return SettingsRequest{Err: msg} }
	// ok is a change made: what was set, message id and placeholders.
	ok := func(c store.SettingChange, err error, id string, data ...any) SettingsRequest {
		if err != nil {
			return fail(strings.TrimPrefix(err.Error(), store.ErrBadSetting.Error()+": "))
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
			return fail("Say which notice types: incident, component, maintenance or all.")
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
		return fail("Severity is all, outage or outage-silent.")
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
			return fail("Quiet hours are written like 22:00-07:00, or 22:00-07:00 hold, or off.")
		}
		c, err := store.SetQuietHours(a, b)
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
		return fail("Quiet hours are silent (notices without sound) or hold (one morning summary).")
	case "quiet-resolutions", "resolutions":
		switch lv {
		case "silent", "on":
			return ok(store.SetQuietResolutions(true), nil, "set.resSilent")
		case "audible", "off":
			return ok(store.SetQuietResolutions(false), nil, "set.resAudible")
		}
		return fail("Resolutions in quiet hours are silent or audible.")
	case "ring":
		switch lv {
		case "every", "all", "always":
			return ok(store.SetRingEvery(true), nil, "set.ringEvery")
		case "news", "changes":
			return ok(store.SetRingEvery(false), nil, "set.ringNews")
		}
		return fail("Ring on news (a new incident, a status or impact change, the end) or on every update: /settings ring news|every.")
	case "tz", "timezone", "zone":
		if value == "" {
			return fail("Say which time zone, like /settings tz Europe/Berlin.")
		}
		zone, abbrev, _ := ResolveZone(value)
		c, err := store.SetTimeZone(zone)
		if abbrev {
			return ok(c, err, "set.zoneAbbrev", "Zone", zone, "Abbrev", strings.ToUpper(value))
		}
		return ok(c, err, "set.zone", "Zone", zone)
	case "mode":
		c, err := store.SetMode(lv)
		if err != nil {
			return fail("Mode is cards or messages.")
		}
		if lv == store.ModeCards {
			return ok(c, nil, "set.cards")
		}
		return ok(c, nil, "set.messages")
	case "pin":
		on, valid := onOff(lv)
		if !valid {
			return fail("Pinning is on or off.")
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
			return fail("Reminders are on, off or a number of minutes before the maintenance.")
		}
		if n <= 0 {
			// SetReminders(true, 0) means "on, keeping the lead": never
			// what "0 minutes" asks for.
			return fail("Reminders come at least " + strconv.Itoa(store.MinReminderMinutes) + " minutes before a maintenance; /settings reminders off turns them off.")
		}
		c, err := store.SetReminders(true, n)
		return ok(c, err, "set.remMinutes", "Count", n)
	case "language", "lang":
		if value == "" {
			return SettingsRequest{Err: "Say which language, like /settings language de.",
				errIn: func(c i18n.Catalog) string { return c.T("settings.languageSay", "List", languageList()) }}
		}
		tag, known := typedLanguage(value)
		if !known {
			return SettingsRequest{Err: "Unknown language “" + echo(value) + "”.",
				errIn: func(c i18n.Catalog) string {
					return c.T("settings.languageUnknown", "Code", escEcho(value), "List", languageList())
				}}
		}
		return SettingsRequest{Change: store.SetLanguage(stored(tag), true), Lang: tag, Done: "language " + i18n.Name(tag)}
	case "components", "component":
		return fail("Choose components with the buttons (/settings) or /subscribe component <name>.")
	}
	return fail("Unknown setting “" + echo(name) + "”.")
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
	if req.errIn != nil {
		h.reply(ctx, r, req.ErrIn(h.lang(ctx, r)))
		return
	}
	if req.Err != "" {
		h.reply(ctx, r, message.Escape(req.Err)+"\n\n"+settingsUsage)
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
		h.reply(ctx, r, fmtRef(replyChannelNoTest, message.Escape(r.about.title)))
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
