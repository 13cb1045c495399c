package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/i18n"
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

// The cleanup note says when in a whole sentence per unit, in the
// channel's language; English reads as it always did.
func TestCleanupNoteInEveryLanguage(t *testing.T) {
	const ref = "@ournews"
	tail := ". To change the channel's settings without posting here, send me /settings @ournews in a private chat."
	for d, want := range map[time.Duration]string{
		time.Minute: "in a minute", 10 * time.Minute: "in 10 minutes", 30 * time.Second: "in 30 seconds",
		1500 * time.Millisecond: "in 2 seconds", 400 * time.Millisecond: "in a moment",
	} {
		if got := cleanupIn(en, d, ref); got != "I remove this post and the command "+want+tail {
			t.Errorf("cleanupIn(en, %v) = %q", d, got)
		}
	}
	for _, c := range []struct {
		tag  string
		d    time.Duration
		want string
	}{
		{"de", time.Minute, "Ich entferne diesen Beitrag und den Befehl in einer Minute."},
		{"de", 10 * time.Minute, "Ich entferne diesen Beitrag und den Befehl in 10 Minuten."},
		{"de", 30 * time.Second, "in 30 Sekunden."},
		{"ru", 2 * time.Minute, "через 2 минуты."},
		{"ru", 5 * time.Minute, "через 5 минут."},
		{"ru", 21 * time.Minute, "через 21 минуту."},
		{"ja", 10 * time.Minute, "10 分後に削除します。"},
		{"tr", 30 * time.Second, "30 saniye içinde"},
	} {
		got := cleanupIn(i18n.Of(c.tag), c.d, ref)
		if !strings.Contains(got, c.want) || !strings.Contains(got, "/settings "+ref) {
			t.Errorf("cleanupIn(%s, %v) = %q, want it to contain %q and the channel", c.tag, c.d, got, c.want)
		}
	}
	// Every language: each unit its own sentence, never English.
	for _, l := range i18n.Languages {
		if l.Tag == i18n.Default {
			continue
		}
		c := i18n.Of(l.Tag)
		for _, d := range []time.Duration{time.Minute, 10 * time.Minute, 30 * time.Second, 0} {
			if got := cleanupIn(c, d, ref); strings.Contains(got, "I remove") || strings.Contains(got, "private chat") {
				t.Errorf("cleanupIn(%s, %v) is English: %q", l.Tag, d, got)
			}
		}
	}
}

// A channel known only by its ID is named by it: the name goes into
// sentences of every language, so no English words wrap it.
func TestChannelKnownByIDOnly(t *testing.T) {
	if ref := unnamedChannel(-1001234567890); ref.title != "-1001234567890" || ref.typed != "-1001234567890" {
		t.Errorf("unnamed channel = %+v", ref)
	}
}
