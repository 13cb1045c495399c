package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Settings are a chat's choices beyond notice kinds and components, made
// with /settings (issue 12). The zero value is how chats subscribed before
// settings existed behave: messages mode, every severity, no quiet hours,
// UTC, reminders on at 60 minutes.
type Settings struct {
	// Mode is ModeCards (one live message per incident, edited, with
	// replies) or ModeMessages (one message per update). New chats get
	// cards; "" is messages.
	Mode string `bson:"mode,omitempty" json:"mode,omitempty"`
	// PinCards pins a chat's open card silently, unpinned on resolve.
	PinCards bool `bson:"pin_cards,omitempty" json:"pin_cards,omitempty"`
	// MinSeverity is SeverityAll ("") or SeverityOutage: only partial and
	// full outages, major and critical incidents.
	MinSeverity string `bson:"min_severity,omitempty" json:"min_severity,omitempty"`
	// BelowSilent sends what is below MinSeverity silently instead of not
	// at all.
	BelowSilent bool `bson:"below_silent,omitempty" json:"below_silent,omitempty"`
	// RingEvery rings on every update of a story; by default only news
	// rings (a new story, a status or impact change, the end) and the
	// other steps come silently (notice.News).
	RingEvery bool `bson:"ring_every,omitempty" json:"ring_every,omitempty"`
	// QuietStart and QuietEnd ("22:00", "07:00", in TimeZone) bound the
	// quiet hours: notices go out with disable_notification. Empty: none.
	QuietStart string `bson:"quiet_start,omitempty" json:"quiet_start,omitempty"`
	QuietEnd   string `bson:"quiet_end,omitempty" json:"quiet_end,omitempty"`
	// QuietResolutions makes resolutions silent too during quiet hours.
	QuietResolutions bool `bson:"quiet_resolutions,omitempty" json:"quiet_resolutions,omitempty"`
	// QuietHold: notices in the window are held, not sent, and one
	// morning summary goes out when it ends (resolutions too).
	QuietHold bool `bson:"quiet_hold,omitempty" json:"quiet_hold,omitempty"`
	// TimeZone is an IANA name for every time the bot shows; "" is UTC.
	TimeZone string `bson:"tz,omitempty" json:"tz,omitempty"`
	// NoReminders turns maintenance reminders off; ReminderMinutes is how
	// long before a maintenance starts the reminder goes (0: 60).
	NoReminders     bool `bson:"no_reminders,omitempty" json:"no_reminders,omitempty"`
	ReminderMinutes int  `bson:"reminder_minutes,omitempty" json:"reminder_minutes,omitempty"`
	// Lang is the catalog the bot speaks in the chat (package i18n: "de",
	// "pt-BR"; "" English). A private chat takes its user's Telegram
	// language and follows it; a group the language of the admin who
	// subscribed it. LangChosen: set with /settings, no longer followed.
	Lang       string `bson:"lang,omitempty" json:"lang,omitempty"`
	LangChosen bool   `bson:"lang_chosen,omitempty" json:"lang_chosen,omitempty"`
}

// Delivery modes and severities of Settings.
const (
	ModeCards      = "cards"
	ModeMessages   = "messages"
	SeverityAll    = ""
	SeverityOutage = "outage"
)

// Cards reports whether the chat gets incident cards.
func (s Settings) Cards() bool { return s.Mode == ModeCards }

// DefaultReminderMinutes is the lead of a chat that chose none.
const DefaultReminderMinutes = 60

// ReminderLead is how long before a maintenance starts the chat is
// reminded; 0 when it turned reminders off.
func (s Settings) ReminderLead() time.Duration {
	switch {
	case s.NoReminders:
		return 0
	case s.ReminderMinutes == 0:
		return DefaultReminderMinutes * time.Minute
	}
	return time.Duration(s.ReminderMinutes) * time.Minute
}

// Limits of ReminderMinutes: a reminder less than five minutes ahead is no
// warning, one more than a day ahead is forgotten by the time it matters.
const (
	MinReminderMinutes = 5
	MaxReminderMinutes = 24 * 60
)

// ParseClock reads "HH:MM" (24-hour) as minutes after midnight.
func ParseClock(s string) (int, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 {
		return 0, fmt.Errorf("%q is not a time like 22:00", s)
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 || h[0] == '+' || h[0] == '-' {
		return 0, fmt.Errorf("%q is not a time like 22:00", s)
	}
	return hh*60 + mm, nil
}

// LoadZone returns the IANA time zone name ("" is UTC).
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	// time.LoadLocation also takes "Local" and file paths; neither is a zone.
	if name == "Local" || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	return loc, nil
}

// ErrBadSetting wraps a setting value that is not allowed.
var ErrBadSetting = errors.New("invalid setting")

// SettingChange is one choice made in /settings: the fields it sets
// together (quiet hours set both ends). Build it with the Set* helpers,
// which validate.
type SettingChange struct {
	fields bson.D
	// lead: the change may move the reminder lead (reminders.go).
	lead bool
}

func change(kv ...any) SettingChange {
	var d bson.D
	for i := 0; i < len(kv); i += 2 {
		d = append(d, bson.E{Key: "settings." + kv[i].(string), Value: kv[i+1]})
	}
	return SettingChange{fields: d}
}

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadSetting}, args...)...)
}

// SetMode chooses cards or messages.
func SetMode(mode string) (SettingChange, error) {
	if mode != ModeCards && mode != ModeMessages {
		return SettingChange{}, bad("mode is cards or messages, not %q", mode)
	}
	return change("mode", mode), nil
}

// SetPinCards turns pinning of open cards on or off.
func SetPinCards(on bool) SettingChange { return change("pin_cards", on) }

// SetSeverity sets the minimum severity and what happens below it.
func SetSeverity(min string, belowSilent bool) (SettingChange, error) {
	if min != SeverityAll && min != SeverityOutage {
		return SettingChange{}, bad("severity is all or outage, not %q", min)
	}
	if min == SeverityAll {
		belowSilent = false
	}
	return change("min_severity", min, "below_silent", belowSilent), nil
}

// SetQuietHours sets the window ("22:00", "07:00"); both empty: none.
func SetQuietHours(start, end string) (SettingChange, error) {
	if start == "" && end == "" {
		return change("quiet_start", "", "quiet_end", ""), nil
	}
	a, err := ParseClock(start)
	if err != nil {
		return SettingChange{}, bad("%v", err)
	}
	b, err := ParseClock(end)
	if err != nil {
		return SettingChange{}, bad("%v", err)
	}
	if a == b {
		return SettingChange{}, bad("quiet hours must not start and end at the same time")
	}
	return change("quiet_start", clock(a), "quiet_end", clock(b)), nil
}

func clock(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

// SetQuietHold makes quiet hours hold notices for a morning summary
// (true) or send them silently (false).
func SetQuietHold(on bool) SettingChange { return change("quiet_hold", on) }

// And is c with the fields of o too (one write).
func (c SettingChange) And(o SettingChange) SettingChange {
	c.fields = append(append(bson.D{}, c.fields...), o.fields...)
	c.lead = c.lead || o.lead
	return c
}

// SetLanguage sets the chat's language (a catalog tag, checked by the
// caller against package i18n); chosen: typed or tapped in /settings, so
// the user's Telegram language is no longer followed.
func SetLanguage(tag string, chosen bool) SettingChange {
	return change("lang", tag, "lang_chosen", chosen)
}

// FollowLanguage sets the language of a chat that did not choose one in
// /settings (a private chat following its user's Telegram language); a
// chosen language is kept. It reports whether it changed anything.
func (s *Store) FollowLanguage(ctx context.Context, key, tag string) (bool, error) {
	res, err := s.subs().UpdateOne(ctx,
		bson.D{{Key: "_id", Value: key}, {Key: "settings.lang_chosen", Value: bson.D{{Key: "$ne", Value: true}}}, {Key: "settings.lang", Value: bson.D{{Key: "$ne", Value: tag}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "settings.lang", Value: tag}}}})
	if err != nil {
		return false, fmt.Errorf("mongodb: follow language: %w", err)
	}
	return res.ModifiedCount > 0, nil
}

// SetRingEvery makes every update of a story ring (true), or only news.
func SetRingEvery(on bool) SettingChange { return change("ring_every", on) }

// SetQuietResolutions makes resolutions silent in quiet hours, or not.
func SetQuietResolutions(on bool) SettingChange { return change("quiet_resolutions", on) }

// SetTimeZone sets an IANA zone ("UTC" is stored as "").
func SetTimeZone(name string) (SettingChange, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return SettingChange{}, bad("%v", err)
	}
	if loc == time.UTC {
		name = ""
	}
	return change("tz", name), nil
}

// SetReminders turns maintenance reminders on (minutes ahead; 0 keeps the
// current value) or off.
func SetReminders(on bool, minutes int) (SettingChange, error) {
	if !on {
		return leadChange("no_reminders", true), nil
	}
	if minutes == 0 {
		return leadChange("no_reminders", false), nil
	}
	if minutes < MinReminderMinutes || minutes > MaxReminderMinutes {
		return SettingChange{}, bad("reminders go %d to %d minutes ahead, not %d", MinReminderMinutes, MaxReminderMinutes, minutes)
	}
	return leadChange("no_reminders", false, "reminder_minutes", minutes), nil
}

// ChangeSettings applies one choice with a single $set (atomic: a choice
// made meanwhile elsewhere is kept) and returns the settings after it.
func (s *Store) ChangeSettings(ctx context.Context, key string, c SettingChange) (*Subscriber, error) {
	if len(c.fields) == 0 {
		return nil, bad("no setting")
	}
	var sub Subscriber
	err := s.subs().FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: key}}, c.updateOf(),
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&sub)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, ErrNotSubscribed
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: change settings: %w", err)
	}
	if c.lead {
		if err := s.keepReminderLead(ctx, &sub); err != nil {
			return nil, err
		}
	}
	return &sub, nil
}
