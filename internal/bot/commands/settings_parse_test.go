package commands

import (
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// "/settings reminders 0" used to confirm "0 minutes ahead" while
// turning reminders on with the old lead.
func TestSettingsRemindersZeroIsRefused(t *testing.T) {
	for _, in := range []string{"reminders 0", "reminders 0m", "reminders -5", "reminder 0min"} {
		r := ParseSettings(in)
		if r.Err == "" || strings.Contains(r.Done, "0 minutes") {
			t.Errorf("%q: Done %q, Err %q; want a clear error", in, r.Done, r.Err)
		}
		if !strings.Contains(r.Err, "/settings reminders off") {
			t.Errorf("%q: the error does not say how to turn reminders off: %q", in, r.Err)
		}
	}
	if r := ParseSettings("reminders 30"); r.Err != "" || r.Done != "maintenance reminders 30 minutes ahead" {
		t.Errorf("reminders 30: %+v", r)
	}
}

// Zone names are IANA names typed in any case; abbreviations mean their
// region's zone with daylight saving, not tzdata's fixed EST (UTC-5 all
// year).
func TestSettingsTimeZoneNames(t *testing.T) {
	for in, want := range map[string]string{
		"tz us/eastern":             "time zone US/Eastern",
		"tz europe/isle_of_man":     "time zone Europe/Isle_of_Man",
		"tz AMERICA/PORT-AU-PRINCE": "time zone America/Port-au-Prince",
		"tz europe/berlin":          "time zone Europe/Berlin",
		"tz utc":                    "time zone UTC",
		"tz EST":                    "time zone America/New_York (EST read as that region's time, daylight saving included)",
		"tz pst":                    "time zone America/Los_Angeles (PST read as that region's time, daylight saving included)",
	} {
		if r := ParseSettings(in); r.Err != "" || r.Done != want {
			t.Errorf("%q: Done %q, Err %q; want %q", in, r.Done, r.Err, want)
		}
	}
	if r := ParseSettings("tz Mars/Olympus"); !strings.Contains(r.Err, "unknown time zone") {
		t.Errorf("unknown zone: %+v", r)
	}
}

func TestSettingNote(t *testing.T) {
	for _, c := range []struct {
		name string
		s    store.Settings
		want string
	}{
		{"quiet", store.Settings{QuietStart: "22:00", QuietEnd: "07:00"}, "These are UTC times"},
		{"quiet", store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin"}, ""},
		{"quiet", store.Settings{}, ""},
		{"pin", store.Settings{Mode: store.ModeMessages, PinCards: true}, "Pinning applies to incident cards"},
		{"pin", store.Settings{Mode: store.ModeCards, PinCards: true}, ""},
		{"tz", store.Settings{}, ""},
	} {
		got := settingNote(en, c.name, c.s)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s %+v: %q, want %q", c.name, c.s, got, c.want)
		}
	}
}

func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{"", "tz Europe/Berlin", "quiet 22:00-07:00", "quiet off", "reminders 30", "severity outage-silent", "pin on", "types all", "quiet 1:1-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		r := ParseSettings(cutArgs(args))
		if r.Err == "" && !r.Show && !r.Test && r.Kinds == nil && r.Done == "" {
			t.Fatalf("%q: neither an error nor a change", args)
		}
	})
}
