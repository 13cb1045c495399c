package bot

import (
	"strings"
	"testing"
)

// A German chat gets /status (overview and one component), /components,
// /history, /uptime, /subscribe and /settings input errors in German, on the real
// stack; the page's own words (its description, component names,
// incident titles) stay as the page wrote them, and an English chat's
// replies are unchanged.
func TestCommandRepliesSpeakTheChatsLanguage(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const de, en = 7301, 7302
	h.exchange(de, 0, speaking(de, "de", "/start"))
	h.exchange(en, 0, speaking(en, "en", "/start"))
	ask := func(chat int64, code, text string) string {
		t.Helper()
		return h.ask(chat, 0, speaking(chat, code, text))
	}
	expect := func(chat int64, code, text, want string) {
		t.Helper()
		if got := ask(chat, code, text); got != want {
			t.Errorf("%s (%s):\n got %q\nwant %q", text, code, got, want)
		}
	}
	const when = "<tg-time unix=\"1772366400\" format=\"dt\">2026-03-01 12:00 UTC</tg-time>"

	expect(de, "de", "/status", "<b>Status von OpenAI:</b> Partially Degraded Service\n\n<b>Gestörte Komponenten</b>\n• API: Eingeschränkte Leistung\n• Sora: Schwerer Ausfall")
	expect(de, "de", "/status sora", "<b>Sora:</b> Schwerer Ausfall\nLetzte Änderung: "+when)
	expect(de, "de", "/status nothing", "Keine Komponente passt auf „nothing“. Die Liste zeigt /components.")
	expect(de, "de", "/components", "<b>Komponenten</b>\n• API: Eingeschränkte Leistung\n• Embeddings: Funktioniert\n• ChatGPT: Funktioniert\n• ChatGPT Enterprise: Funktioniert\n• Sora: Schwerer Ausfall\n\nMeldungen filtern mit /subscribe component &lt;name&gt;.")
	expect(de, "de", "/history 2", "<b>Letzte Störungen</b>\n\n"+
		"<b>1. Elevated errors on API</b>\nAuswirkung: Gering · Status: Wird untersucht\nBegonnen: <tg-time unix=\"1772960520\" format=\"dt\">2026-03-08 09:02 UTC</tg-time>\n<a href=\"https://stspg.io/inc1\">Details</a>\n\n"+
		"<b>2. Sora &lt;outage&gt; &amp; more</b>\nAuswirkung: Schwer · Status: Behoben\nBegonnen: <tg-time unix=\"1772874000\" format=\"dt\">2026-03-07 09:00 UTC</tg-time>\n<a href=\""+h.sp.URL()+"/incidents/inc2\">Details</a>")
	up := ask(de, "de", "/uptime")
	if !strings.HasPrefix(up, "<b>Verfügbarkeit</b> (letzte 24 Stunden · 7 Tage · 30 Tage)\n• API: ") ||
		!strings.HasSuffix(up, "\n\n<i>Funktioniert und Wartung zählen als verfügbar; eingeschränkte Leistung und Ausfälle als nicht verfügbar.</i>") {
		t.Errorf("/uptime (de):\n%s", up)
	}
	bad := ask(de, "de", "/settings quiet soon")
	if !strings.HasPrefix(bad, "Ruhezeiten schreibst du so: 22:00-07:00, oder 22:00-07:00 hold, oder off.\n\n<b>Einstellungen per Befehl</b>\n/settings types") {
		t.Errorf("/settings quiet soon (de):\n%s", bad)
	}
	expectPrefix := func(chat int64, code, text, want string) {
		t.Helper()
		if got := ask(chat, code, text); !strings.HasPrefix(got, want) {
			t.Errorf("%s (%s):\n got %q\nwant it to start %q", text, code, got, want)
		}
	}
	expectPrefix(de, "de", "/settings bogus", "Unbekannte Einstellung „bogus“.\n\n<b>Einstellungen per Befehl</b>")
	expectPrefix(de, "de", "/settings tz Mars/Olympus", "Unbekannte Zeitzone „Mars/Olympus“. Gib Region und Stadt an")
	expectPrefix(de, "de", "/settings reminders 0", "Erinnerungen kommen mindestens 5 Minuten vor einer Wartung")
	// /subscribe: the component filter, notice types and their errors.
	expect(de, "de", "/subscribe component sora", "<b>Sora</b> ist jetzt im Komponentenfilter.\nMeldungen betreffen jetzt: Sora.")
	expect(de, "de", "/subscribe component sora", "<b>Sora</b> ist schon im Komponentenfilter.")
	expect(de, "de", "/subscribe component remove api", "„api“ ist nicht im Komponentenfilter.\nIm Filter sind: Sora.")
	expect(de, "de", "/subscribe component all", "Komponentenfilter geleert: Meldungen betreffen alle Komponenten.")
	expectPrefix(de, "de", "/subscribe bogus", "Unbekannte Meldungsart „bogus“. Die Arten sind incident, component, maintenance oder all.\n\n<b>Verwendung</b>\n")
	expectPrefix(de, "de", "/subscribe incident", "Meldungsarten jetzt: ")
	sub := ask(de, "de", "/subscribe")
	if !strings.Contains(sub, "<b>Aktuelle Einstellungen</b>\nMeldungsarten: ") || !strings.HasPrefix(sub, "<b>Verwendung</b>") {
		t.Errorf("/subscribe (de):\n%s", sub)
	}
	for _, s := range []string{bad, up, sub} {
		for _, english := range []string{"Typed settings", "Uptime", "last 24 hours", "count as up", "Usage", "Current settings", "Notice types"} {
			if strings.Contains(s, english) {
				t.Errorf("German reply has English %q:\n%s", english, s)
			}
		}
	}

	// English, as it always read.
	expect(en, "en", "/status", "<b>OpenAI status:</b> Partially Degraded Service\n\n<b>Components not operational</b>\n• API: Degraded Performance\n• Sora: Major Outage")
	expect(en, "en", "/status sora", "<b>Sora:</b> Major Outage\nLast change: "+when)
	expect(en, "en", "/status nothing", "No component matches “nothing”. See /components for the list.")
	expect(en, "en", "/components", "<b>Components</b>\n• API: Degraded Performance\n• Embeddings: Operational\n• ChatGPT: Operational\n• ChatGPT Enterprise: Operational\n• Sora: Major Outage\n\nFilter notices with /subscribe component &lt;name&gt;.")
	if got := ask(en, "en", "/history 1"); !strings.HasPrefix(got, "<b>Recent incidents</b>\n\n<b>1. Elevated errors on API</b>\nImpact: Minor · Status: Investigating\nCreated: ") {
		t.Errorf("/history (en):\n%s", got)
	}
	if got := ask(en, "en", "/uptime"); !strings.HasPrefix(got, "<b>Uptime</b> (last 24 hours · 7 days · 30 days)\n") ||
		!strings.HasSuffix(got, "<i>Operational and under maintenance count as up; degraded performance and outages as down.</i>") {
		t.Errorf("/uptime (en):\n%s", got)
	}
	expect(en, "en", "/subscribe component sora", "Added <b>Sora</b> to the component filter.\nNotices now cover: Sora.")
	expect(en, "en", "/subscribe component remove api", "“api” is not in the component filter.\nThe filter holds: Sora.")
	expectPrefix(en, "en", "/subscribe bogus", "Unknown notification type “bogus”. Types are incident, component, maintenance or all.\n\n<b>Usage</b>\n")
	expectPrefix(en, "en", "/settings quiet soon", "Quiet hours are written like 22:00-07:00, or 22:00-07:00 hold, or off.\n\n<b>Typed settings</b>\n/settings types")
	expectPrefix(en, "en", "/settings bogus", "Unknown setting “bogus”.\n\n<b>Typed settings</b>")
	expectPrefix(en, "en", "/settings tz Mars/Olympus", "unknown time zone \"Mars/Olympus\"\n\n<b>Typed settings</b>")
}

// A German channel admin managing channels from a private chat hears the
// refusals and the channel list in German; the channel's name as it is.
func TestChannelRepliesSpeakTheUsersLanguage(t *testing.T) {
	h := newHarness(t)
	refusingChats(t, h)
	h.start()
	expectRefusals(t, h, "de", []refusal{
		{newsAdmin, "/settings channels", "Du hast von hier aus noch keine Kanaleinstellungen geändert."},
		{newsAdmin, "/settings @nosuchchannel", "Ich kann @nosuchchannel nicht sehen. Prüfe den Namen;"},
		{newsAdmin, "/settings @otherchan", "Ich bin nicht in @otherchan. Füge mich als Administrator zum Kanal hinzu"},
		{newsUser, "/settings @ournews", "Nur Administratoren von @ournews können seine Einstellungen von hier aus sehen oder ändern."},
		{newsAdmin, "/settings @ourgroup", "@ourgroup ist kein Kanal."},
		{newsAdmin, "/settings @quietnews", "@quietnews ist nicht angemeldet. Poste /start im Kanal"},
		{newsAdmin, "/info @quietnews", "@quietnews ist nicht angemeldet."},
		{newsAdmin, "/settings @ournews test", "Eine Testmeldung erreichte alle Leser von @ournews"},
		{newsAdmin, "/settings @ournews bogus", "Unbekannte Einstellung „bogus“."},
	})
	list := h.exchange(newsAdmin, 0, speaking(newsAdmin, "de", "/settings channels"))
	if len(list) != 1 || !strings.HasPrefix(list[0].Text, "<b>Deine Kanäle</b>\n") {
		t.Errorf("/settings channels: %+v", list)
	}
	// English, as it always read.
	if got := h.ask(newsAdmin, 0, private(newsAdmin, "/settings @nosuchchannel")); !strings.HasPrefix(got, "I cannot see @nosuchchannel. Check the name;") {
		t.Errorf("English: %q", got)
	}
}
