package store

import (
	"errors"
	"testing"
)

func TestParseClock(t *testing.T) {
	for in, want := range map[string]int{"00:00": 0, "7:05": 425, "22:00": 1320, "23:59": 1439} {
		if got, err := ParseClock(in); err != nil || got != want {
			t.Errorf("%q: %d %v", in, got, err)
		}
	}
	for _, in := range []string{"", "24:00", "12:60", "1200", "12:5", "-1:00", "+1:00", "ab:cd", "12:00:00"} {
		if _, err := ParseClock(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestSettingChangesValidate(t *testing.T) {
	bads := []func() error{
		func() error { _, err := SetMode("cardz"); return err },
		func() error { _, err := SetSeverity("critical", false); return err },
		func() error { _, err := SetQuietHours("22:00", "22:00"); return err },
		func() error { _, err := SetQuietHours("22:00", ""); return err },
		func() error { _, err := SetTimeZone("Mars/Olympus"); return err },
		func() error { _, err := SetTimeZone("Local"); return err },
		func() error { _, err := SetTimeZone("../../etc/passwd"); return err },
		func() error { _, err := SetReminders(true, 4); return err },
		func() error { _, err := SetReminders(true, 1441); return err },
	}
	for i, f := range bads {
		if err := f(); !errors.Is(err, ErrBadSetting) {
			t.Errorf("case %d: want ErrBadSetting, got %v", i, err)
		}
	}
	c, err := SetQuietHours("7:00", "22:30")
	if err != nil || c.fields[0].Value != "07:00" || c.fields[1].Value != "22:30" {
		t.Errorf("quiet hours normalised: %v %v", c.fields, err)
	}
	c, err = SetTimeZone("UTC")
	if err != nil || c.fields[0].Value != "" {
		t.Errorf("UTC is stored as empty: %v %v", c.fields, err)
	}
	c, _ = SetSeverity(SeverityAll, true)
	if c.fields[1].Value != false {
		t.Error("below_silent means nothing without a threshold")
	}
}
