package bot

import (
	"regexp"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
)

// Uptime percentages: "99,95\u00a0%" or "100\u00a0%" in German, "99.95%" in
// English.
var (
	germanPercent  = regexp.MustCompile(`: (100|\d{1,2},\d\d)\x{00a0}% · `)
	englishPercent = regexp.MustCompile(`: (100|\d{1,2}\.\d\d)% · `)
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
	// Percentages as German writes them ("99,95 %"), never "99.95%".
	if !germanPercent.MatchString(up) || englishPercent.MatchString(up) {
		t.Errorf("/uptime (de) percentages not German:\n%s", up)
	}
	// /settings test: the sample notice and its note in German.
	test := ask(de, "de", "/settings test")
	for _, want := range []string{"Testmeldung von /settings test", "Das ist ein Test. Alles ist in Ordnung", "<i>Mit Ton gesendet.</i>"} {
		if !strings.Contains(test, want) {
			t.Errorf("/settings test (de) lacks %q:\n%s", want, test)
		}
	}
	for _, s := range []string{bad, up, sub, test} {
		for _, english := range []string{"Typed settings", "Uptime", "last 24 hours", "count as up", "Usage", "Current settings", "Notice types", "Test notice", "This is a test", "Sent with"} {
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
	} else if !englishPercent.MatchString(got) || germanPercent.MatchString(got) {
		t.Errorf("/uptime (en) percentages:\n%s", got)
	}
	if got := ask(en, "en", "/settings test"); !strings.Contains(got, "<b>Test notice from /settings test</b>") ||
		!strings.Contains(got, "This is a test. Nothing is wrong: it shows how a notice reaches this chat.") || !strings.HasSuffix(got, "<i>Sent with sound.</i>") {
		t.Errorf("/settings test (en):\n%s", got)
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

// A German chat follows and drops pages in German on the real stack:
// /subscribe page (the pages on offer), a name not on offer, now follows,
// already follows, no longer follows, does not follow, the only page,
// /unsubscribe's usage, /subscribe component of a page not followed, the
// pages lines of /subscribe's usage, and the Pages line of /info and
// /settings; a German forum topic hears the topic's own sentences; an
// English topic reads as it always did. The page names stay as configured.
func TestPageRepliesSpeakTheChatsLanguage(t *testing.T) {
	h, _ := twoPageHarness(t)
	const forum = -1007311
	h.tg.ChatMembers(map[int64]map[int64]string{forum: {1: "administrator"}})
	h.start()
	const de = 7311
	h.exchange(de, 0, speaking(de, "de", "/start"))
	expect := func(chat int64, thread int, u models.Update, want string) {
		t.Helper()
		if got := h.ask(chat, thread, u); got != want {
			t.Errorf("%s:\n got %q\nwant %q", u.Message.Text, got, want)
		}
	}
	say := func(text string) models.Update { return speaking(de, "de", text) }
	const followed = "\nVerfolgte Seiten: openai, github. Jede Meldung nennt ihre Seite."
	expect(de, 0, say("/subscribe page"), "<b>Angebotene Seiten</b>\n✅ openai\n▫️ github\n\n/subscribe page &lt;Name&gt; folgt einer, /unsubscribe page &lt;Name&gt; beendet das Folgen.")
	expect(de, 0, say("/subscribe page gitlab"), "Keine Seite heißt „gitlab“; angeboten werden openai, github.")
	expect(de, 0, say("/subscribe page GitHub"), "Dieser Chat folgt jetzt <b>github</b>."+followed)
	expect(de, 0, say("/subscribe page github"), "Dieser Chat folgt <b>github</b> bereits."+followed)
	expect(de, 0, say("/unsubscribe page openai"), "Dieser Chat folgt <b>openai</b> nicht mehr; die Komponenten dieser Seite sind aus dem Komponentenfilter entfernt.\nVerfolgte Seiten: github.")
	expect(de, 0, say("/unsubscribe page openai"), "Dieser Chat folgt <b>openai</b> nicht.\nVerfolgte Seiten: github.")
	expect(de, 0, say("/unsubscribe page github"), "<b>github</b> ist die einzige Seite, der dieser Chat folgt. Folge zuerst einer anderen (/subscribe page &lt;Name&gt;) oder beende mit /stop alle Meldungen.")
	expect(de, 0, say("/unsubscribe"), "/unsubscribe page &lt;Name&gt; beendet das Folgen einer Statusseite (angeboten werden openai, github). Um alle Meldungen in diesem Chat zu beenden, verwende /stop.")
	expect(de, 0, say("/subscribe component openai API"), "Dieser Chat folgt <b>openai</b> nicht. Folge der Seite zuerst: /subscribe page openai.")
	usage := h.ask(de, 0, say("/subscribe"))
	if !strings.HasSuffix(usage, "\n/subscribe page &lt;Name&gt; — einer weiteren Statusseite folgen (angeboten werden openai, github)\n"+
		"/unsubscribe page &lt;Name&gt; — einer Seite nicht mehr folgen\n"+
		"/status, /components, /history, /uptime nehmen zuerst den Namen einer Seite (/status github); ohne ihn decken sie die Seiten dieses Chats ab") {
		t.Errorf("/subscribe (de):\n%s", usage)
	}
	info := h.ask(de, 0, say("/info"))
	if !strings.Contains(info, "\nSeiten: github") {
		t.Errorf("/info (de):\n%s", info)
	}
	settings := h.openSettings(say("/settings"), de)
	if !strings.Contains(settings.Text, "\nSeiten: github\n") {
		t.Errorf("/settings (de):\n%s", settings.Text)
	}
	for _, s := range []string{usage, info, settings.Text} {
		for _, english := range []string{"Pages:", "follow one more", "stop following", "take a page's name"} {
			if strings.Contains(s, english) {
				t.Errorf("German reply has English %q:\n%s", english, s)
			}
		}
	}

	// A forum topic, subscribed by a German admin: the topic's sentences.
	inTopic := func(thread int, code, text string) models.Update {
		u := topicMsg(forum, 1, thread, text)
		u.Message.From.LanguageCode = code
		return u
	}
	h.exchange(forum, 5, inTopic(5, "de", "/start"))
	expect(forum, 5, inTopic(5, "de", "/subscribe page github"), "Dieses Thema folgt jetzt <b>github</b>."+followed)
	expect(forum, 5, inTopic(5, "de", "/unsubscribe page openai"), "Dieses Thema folgt <b>openai</b> nicht mehr; die Komponenten dieser Seite sind aus dem Komponentenfilter entfernt.\nVerfolgte Seiten: github.")
	expect(forum, 5, inTopic(5, "de", "/unsubscribe page github"), "<b>github</b> ist die einzige Seite, der dieses Thema folgt. Folge zuerst einer anderen (/subscribe page &lt;Name&gt;) oder beende mit /stop alle Meldungen.")
	expect(forum, 5, inTopic(5, "de", "/subscribe component openai API"), "Dieses Thema folgt <b>openai</b> nicht. Folge der Seite zuerst: /subscribe page openai.")

	// English, as it always read.
	h.exchange(forum, 6, inTopic(6, "en", "/start"))
	expect(forum, 6, inTopic(6, "en", "/subscribe page github"), "This topic now follows <b>github</b>.\nPages followed: openai, github. Each notice names its page.")
	expect(forum, 6, inTopic(6, "en", "/unsubscribe page openai"), "This topic no longer follows <b>openai</b>; its components left the component filter.\nPages followed: github.")
	expect(forum, 6, inTopic(6, "en", "/subscribe component openai API"), "This topic does not follow <b>openai</b>. Follow it first: /subscribe page openai.")
	expect(forum, 6, inTopic(6, "en", "/unsubscribe page github"), "<b>github</b> is the only page this topic follows. Follow another first (/subscribe page &lt;name&gt;), or use /stop to stop every notice.")
	expect(forum, 6, inTopic(6, "en", "/subscribe page gitlab"), "No page is called \"gitlab\"; the pages on offer are openai, github.")
}
