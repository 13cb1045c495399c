package store

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
	// QuietStart and QuietEnd ("22:00", "07:00", in TimeZone) bound the
	// quiet hours: notices go out with disable_notification. Empty: none.
	QuietStart string `bson:"quiet_start,omitempty" json:"quiet_start,omitempty"`
	QuietEnd   string `bson:"quiet_end,omitempty" json:"quiet_end,omitempty"`
	// QuietResolutions makes resolutions silent too during quiet hours.
	QuietResolutions bool `bson:"quiet_resolutions,omitempty" json:"quiet_resolutions,omitempty"`
	// TimeZone is an IANA name for every time the bot shows; "" is UTC.
	TimeZone string `bson:"tz,omitempty" json:"tz,omitempty"`
	// NoReminders turns maintenance reminders off; ReminderMinutes is how
	// long before a maintenance starts the reminder goes (0: 60).
	NoReminders     bool `bson:"no_reminders,omitempty" json:"no_reminders,omitempty"`
	ReminderMinutes int  `bson:"reminder_minutes,omitempty" json:"reminder_minutes,omitempty"`
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
