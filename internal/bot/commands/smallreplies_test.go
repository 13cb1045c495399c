package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// The test notice, its note, and the flood reply speak the chat's (the
// sender's) language; English reads as it always did.
func TestSmallRepliesSpeakTheChatsLanguage(t *testing.T) {
	testNow := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	quiet := store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin"}
	noIncidents := []event.Kind{event.KindComponent}

	if got, want := testNoticeNote(en, quiet, noIncidents, true), "<i>Sent silently: it is quiet hours (22:00–07:00 Europe/Berlin). "+
		"Incident notices are off for this chat: real ones would not come (/settings types).</i>"; got != want {
		t.Errorf("English note:\n got %q\nwant %q", got, want)
	}
	if got := testNoticeNote(en, store.Settings{}, nil, false); got != "<i>Sent with sound.</i>" {
		t.Errorf("English note: %q", got)
	}
	if e := testEvent(en, testNow); e.IncidentName != "Test notice from /settings test" ||
		e.Body != "This is a test. Nothing is wrong: it shows how a notice reaches this chat." {
		t.Errorf("English sample: %+v", e)
	}
	if ReplyFlood != "Too many commands at once: some of yours were not answered. Please wait a few seconds between commands." {
		t.Errorf("English flood reply: %q", ReplyFlood)
	}

	de := i18n.Of("de")
	if got, want := testNoticeNote(de, quiet, noIncidents, true), "<i>Lautlos gesendet: Es ist Ruhezeit (22:00–07:00 Europe/Berlin). "+
		"Störungsmeldungen sind für diesen Chat ausgeschaltet: Echte kämen nicht an (/settings types).</i>"; got != want {
		t.Errorf("German note:\n got %q\nwant %q", got, want)
	}
	if e := testEvent(de, testNow); e.IncidentName != "Testmeldung von /settings test" || !strings.HasPrefix(e.Body, "Das ist ein Test.") {
		t.Errorf("German sample: %+v", e)
	}
	if got := ReplyFloodIn(de); !strings.HasPrefix(got, "Zu viele Befehle auf einmal") {
		t.Errorf("German flood reply: %q", got)
	}
	for _, l := range i18n.Languages {
		if l.Tag == i18n.Default {
			continue
		}
		c := i18n.Of(l.Tag)
		for _, s := range []string{testNoticeNote(c, quiet, noIncidents, true), testNoticeNote(c, store.Settings{}, nil, false),
			testEvent(c, testNow).IncidentName, testEvent(c, testNow).Body, ReplyFloodIn(c), c.T("misc.doneRemoves"), c.T("misc.addedToFilter", "Name", "Sora")} {
			for _, english := range []string{"Sent ", "Test notice", "This is a test", "Too many commands", "Done removes", "Added "} {
				if strings.Contains(s, english) {
					t.Errorf("%s: %q has English %q", l.Tag, s, english)
				}
			}
		}
	}
}
