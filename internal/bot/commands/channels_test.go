package commands

import (
	"testing"
	"time"
)

func TestParseChannelRef(t *testing.T) {
	for _, c := range []struct {
		in, ref, rest string
		ok            bool
	}{
		{"@ournews", "@ournews", "", true},
		{"  @our_news_2 quiet 22:00-07:00", "@our_news_2", "quiet 22:00-07:00", true},
		{"-1001234567890 test", "-1001234567890", "test", true},
		{"@abc", "", "", false},                         // too short for a username
		{"@" + string(make([]byte, 33)), "", "", false}, // not a username
		{"@our-news", "", "", false},                    // no dashes in usernames
		{"-42 quiet off", "", "", false},                // a basic group's ID: not a channel
		{"1001234567890", "", "", false},                // a user
		{"quiet 22:00-07:00", "", "", false},            // a setting
		{"", "", "", false},
	} {
		ref, rest, ok := parseChannelRef(c.in)
		if ref != c.ref || rest != c.rest || ok != c.ok {
			t.Errorf("parseChannelRef(%q) = %q, %q, %v; want %q, %q, %v", c.in, ref, rest, ok, c.ref, c.rest, c.ok)
		}
	}
}

func FuzzParseChannelRef(f *testing.F) {
	for _, s := range []string{"@ournews x", "-1001234567890", "-100", "@", "@😀😀😀😀😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ref, rest, ok := parseChannelRef(in)
		if !ok {
			return
		}
		if ref == "" || len(ref)+len(rest) > len(in) {
			t.Fatalf("%q -> %q %q", in, ref, rest)
		}
	})
}

func TestInTime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "in a minute", 10 * time.Minute: "in 10 minutes", 30 * time.Second: "in 30 seconds",
		1500 * time.Millisecond: "in 2 seconds", 400 * time.Millisecond: "in a moment",
	} {
		if got := inTime(d); got != want {
			t.Errorf("inTime(%v) = %q, want %q", d, got, want)
		}
	}
}
