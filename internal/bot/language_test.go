package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// speaking is a private message from a user whose Telegram language is
// code.
func speaking(chatID int64, code, text string) models.Update {
	u := private(chatID, text)
	u.Message.From.LanguageCode = code
	return u
}

// groupSpeaking is a group message from a user whose Telegram language
// is code.
func groupSpeaking(chatID, userID int64, code, text string) models.Update {
	u := group(chatID, userID, text)
	u.Message.From.LanguageCode = code
	return u
}

// A user whose Telegram language is German gets /start, its buttons, the
// settings keyboard, its Language screen, /help, /info and errors in
// German, on the real stack (the bot's long poll against the fake
// Telegram over HTTP, FerretDB); the chat stores "de".
func TestGermanUser(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	const chat = 7001
	got := h.exchange(chat, 0, speaking(chat, "de", "/start"))
	if len(got) != 1 {
		t.Fatalf("/start: %+v", got)
	}
	start := got[0]
	for _, want := range []string{"Dieser Chat erhält jetzt die Statusmeldungen von OpenAI", "<b>Aktueller Status:</b>", "Mit /settings wählst du"} {
		if !strings.Contains(start.Text, want) {
			t.Errorf("/start lacks %q:\n%s", want, start.Text)
		}
	}
	button(t, start, "⚙️ Einstellungen")
	button(t, start, "Komponenten")
	if sub := h.subscription("7001"); sub == nil || sub.Settings.Lang != "de" || sub.Settings.LangChosen {
		t.Fatalf("stored language: %+v", sub)
	}

	// A typed setting is confirmed in German, its note too.
	if s := h.ask(chat, 0, speaking(chat, "de", "/settings quiet 22:00-07:00")); s != "Gespeichert: Ruhezeiten 22:00–07:00. Das sind UTC-Zeiten: Stelle deine Zone mit /settings tz Europe/Berlin ein (oder der deiner Stadt)." {
		t.Errorf("/settings quiet: %q", s)
	}

	kb := h.openSettings(speaking(chat, "de", "/settings"), chat)
	if !strings.HasPrefix(kb.Text, "<b>Einstellungen</b>") || !strings.Contains(kb.Text, "Tippe zum Ändern") {
		t.Errorf("settings screen:\n%s", kb.Text)
	}
	for _, want := range []string{"<b>Meldungsarten:</b> Störungen, Komponenten, Wartungen", "<b>Komponenten:</b> alle Komponenten",
		"<b>Ruhezeiten:</b> 22:00–07:00, Behebungen mit Ton", "<b>Wartungserinnerungen:</b> 60 Minuten vorher", "<b>Ton:</b> Neuigkeiten klingeln"} {
		if !strings.Contains(kb.Text, want) {
			t.Errorf("settings summary lacks %q:\n%s", want, kb.Text)
		}
	}
	for _, label := range []string{"Meldungsarten", "Schweregrad", "Ruhezeiten", "Zeitzone", "🌐 Sprache", "Fertig"} {
		button(t, kb, label)
	}
	_, kinds := h.tap(kb, models.ChatTypePrivate, chat, button(t, kb, "Meldungsarten").CallbackData)
	if !strings.HasPrefix(kinds.Text, "<b>Meldungsarten</b>\nTippe auf eine Art") {
		t.Errorf("notice types screen:\n%s", kinds.Text)
	}
	button(t, kinds, "✅ Störungen")
	button(t, kinds, "✅ Komponentenänderungen")
	_, kb = h.tap(kinds, models.ChatTypePrivate, chat, button(t, kinds, "« Zurück").CallbackData)
	_, delivery := h.tap(kb, models.ChatTypePrivate, chat, button(t, kb, "Karten, Ton").CallbackData)
	if !strings.HasPrefix(delivery.Text, "<b>Karten, Ton und Erinnerungen</b>") {
		t.Errorf("delivery screen:\n%s", delivery.Text)
	}
	button(t, delivery, "✅ Störungskarten")
	button(t, delivery, "✅ 60 Min.")
	_, kb = h.tap(delivery, models.ChatTypePrivate, chat, button(t, delivery, "« Zurück").CallbackData)
	_, langs := h.tap(kb, models.ChatTypePrivate, chat, button(t, kb, "🌐 Sprache").CallbackData)
	if !strings.Contains(langs.Text, "<b>Sprache</b>: Deutsch") {
		t.Errorf("language screen:\n%s", langs.Text)
	}
	button(t, langs, "✅ Deutsch")
	button(t, langs, "« Zurück")

	if s := h.ask(chat, 0, speaking(chat, "de", "/info")); !strings.Contains(s, "<b>Sprache:</b> Deutsch") || !strings.Contains(s, "<b>Angemeldet:</b> ja") {
		t.Errorf("/info:\n%s", s)
	}
	if s := h.ask(chat, 0, speaking(chat, "de", "/nosuchcommand")); s != i18n.Of("de").T("reply.unknown") {
		t.Errorf("unknown command: %q", s)
	}
	if s := h.ask(chat, 0, speaking(chat, "de", "hallo")); !strings.HasPrefix(s, "Ich antworte nur auf Befehle.") {
		t.Errorf("plain text: %q", s)
	}
	// /help (exchange sends it after each update) came in German.
	all := h.tg.MessagesTo(chat, 0)
	if last := all[len(all)-1].Text; !strings.HasPrefix(last, "<b>OpenAI-Status-Bot</b>\n/start — diesen Chat") {
		t.Errorf("/help:\n%s", last)
	}

	// /why, with no records and then with two: the frame is German, the
	// times' fallback text German-style in the chat's zone.
	if s := h.ask(chat, 0, speaking(chat, "de", "/why")); !strings.HasPrefix(s, "Keine Meldungen für diesen Chat in den letzten 7 Tagen") {
		t.Errorf("/why with no records: %q", s)
	}
	at := time.Date(2026, 12, 1, 13, 45, 0, 0, time.UTC)
	if err := h.st.RecordFates(context.Background(), []store.Fate{
		{Sub: "7001", Event: "component:api:x", Summary: "API", Outcome: store.FateWithheld, Why: "component-filter", At: at},
		{Sub: "7001", Event: "incident:i:u1:v", Summary: "Errors", Outcome: store.FateSent, As: store.AsCard, At: at.Add(time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	why := h.ask(chat, 0, speaking(chat, "de", "/why"))
	for _, want := range []string{"<b>Die letzten Meldungen in diesem Chat</b>", "Zurückgehalten: betrifft nicht die Komponenten, denen dieser Chat folgt",
		"Gesendet (", "01.12. 13:46 UTC", "mit Ton, als Karte der Störung."} {
		if !strings.Contains(why, want) {
			t.Errorf("/why lacks %q:\n%s", want, why)
		}
	}
	if s := h.ask(chat, 0, speaking(chat, "de", "/info")); !strings.Contains(s, "<b>Letzte Meldung:</b> Gesendet (") || !strings.Contains(s, "Mehr: /why") {
		t.Errorf("/info's last notice:\n%s", s)
	}

	// A held, a given-up and a told-together delivery, recorded as the
	// delivery records them (activities/fates.go: the English Why and
	// Together beside their codes): /why says their reasons and the steps
	// told in German too (before: the English sentences inside the German
	// frame).
	if err := h.st.RecordFates(context.Background(), []store.Fate{
		{Sub: "7001", Event: "incident:h:u1:v", Summary: "Held", Outcome: store.FateHeld, Why: "held for the morning summary",
			RetryAt: at.Add(10 * time.Hour), At: at.Add(2 * time.Minute)},
		{Sub: "7001", Event: "incident:g:u1:v", Summary: "GivenUp", Outcome: store.FateFailed,
			Why:    "gave up after 12 bursts: 502 Bad Gateway",
			Reason: &store.Reason{Code: "burstsSpent", N: 12, Args: map[string]string{"Detail": "502 Bad Gateway"}}, At: at.Add(3 * time.Minute)},
		{Sub: "7001", Event: "incident:o:u1:v", Summary: "Operator", Outcome: store.FateFailed,
			Why:    "given up by an operator (the delivery's give-up in the Temporal Web UI)",
			Reason: &store.Reason{Code: "operatorGaveUp"}, At: at.Add(4 * time.Minute)},
		{Sub: "7001", Event: "incident:t:u2:v", Summary: "Together", Outcome: store.FateSent, As: store.AsMessage,
			Together: "1 later update (Identified, Dec 1 13:50 UTC)",
			Later:    &store.FateSteps{Count: 1, Steps: []store.FateStep{{Status: "identified", At: at.Add(5 * time.Minute)}}}, At: at.Add(5 * time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	// The told-together notice is stored: /why says what it is about in
	// German too, the incident's name as the page wrote it.
	told := event.Event{Key: "incident:t:u2:v", OrderKey: "incident:t", Kind: event.KindIncident, IncidentID: "t", IncidentName: "Errors <API>",
		UpdateID: "u2", UpdateStatus: "identified", At: at}
	if err := h.st.SaveNotice(context.Background(), told, "text", at); err != nil {
		t.Fatal(err)
	}
	why = h.ask(chat, 0, speaking(chat, "de", "/why"))
	checkHTML(t, why)
	if !strings.Contains(why, "• <b>Störungs-Update: Errors &lt;API&gt;, Ursache gefunden</b>\n  Gesendet") {
		t.Errorf("/why: the stored notice's summary is not German:\n%s", why)
	}
	for _, want := range []string{"Für die Morgenzusammenfassung zurückgehalten", "aufgegeben nach 12 Versuchsrunden: 502 Bad Gateway.",
		"von einem Operator aufgegeben (Give-up der Zustellung in der Temporal Web UI).",
		"mit Ton, als Nachricht; zusammen gemeldet mit 1 späteren Update (Ursache gefunden, 01.12. 13:50 UTC)."} {
		if !strings.Contains(why, want) {
			t.Errorf("/why lacks %q:\n%s", want, why)
		}
	}
	for _, english := range []string{"held for", "gave up", "given up", "later update", "Identified", "Incident update"} {
		if strings.Contains(why, english) {
			t.Errorf("/why says %q in English:\n%s", english, why)
		}
	}

	// The tap on another language saves it, chosen, and redraws the
	// screen in it.
	a, langs := h.tap(langs, models.ChatTypePrivate, chat, button(t, langs, "✅ Deutsch").CallbackData)
	if a.Text != "Gespeichert." {
		t.Errorf("tap Deutsch: answered %q", a.Text)
	}
	a, now := h.tap(langs, models.ChatTypePrivate, chat, button(t, langs, "Español").CallbackData)
	if a.Text != "Guardado." || !strings.Contains(now.Text, "<b>Idioma</b>: Español") {
		t.Errorf("tap Español: %q, screen:\n%s", a.Text, now.Text)
	}
	if sub := h.subscription("7001"); sub.Settings.Lang != "es" || !sub.Settings.LangChosen {
		t.Fatalf("after the tap: %+v", sub.Settings)
	}
	// Chosen: the user's Telegram language no longer moves it, and a
	// /start after /stop brings it back with the other settings.
	if s := h.ask(chat, 0, speaking(chat, "de", "/stop")); !strings.HasPrefix(s, "Se canceló la suscripción de este chat.") {
		t.Errorf("/stop after choosing Spanish: %q", s)
	}
	if got := h.exchange(chat, 0, speaking(chat, "de", "/start")); len(got) != 1 || !strings.HasPrefix(got[0].Text, "Este chat vuelve a estar suscrito") {
		t.Errorf("/start after /stop: %+v", got)
	}
}

// The command menus are set per language_code: German users see German
// descriptions, users of a language without a catalog English ones.
func TestCommandMenusPerLanguage(t *testing.T) {
	h := newHarness(t)
	h.start()
	de := h.tg.CommandMenuIn("all_private_chats", "de")
	if len(de) == 0 || de[0].Command != "start" || !strings.HasPrefix(de[0].Description, "Diesen Chat") {
		t.Fatalf("German menu: %+v", de)
	}
	en := h.tg.CommandMenu("all_private_chats")
	if len(en) == 0 || en[0].Description != "Subscribe this chat (or forum topic) to status notices" {
		t.Fatalf("English menu: %+v", en)
	}
	if ru := h.tg.CommandMenuIn("all_group_chats", "ru"); len(ru) == 0 || !strings.HasPrefix(ru[0].Description, "Общий статус") {
		t.Fatalf("Russian group members' menu: %+v", ru)
	}
	if zh := h.tg.CommandMenuIn("default", "zh"); len(zh) == 0 || !strings.HasPrefix(zh[0].Description, "为此聊天") {
		t.Fatalf("Chinese menu: %+v", zh)
	}
}

// A group starts in the language of the admin who subscribed it, whoever
// speaks later; "/settings language es" switches it for everyone.
func TestGroupLanguage(t *testing.T) {
	h := newHarness(t)
	h.snapshot(testPage(h.sp.URL()))
	const g = -1007002
	h.tg.ChatMembers(map[int64]map[int64]string{g: {1: "administrator", 3: "member"}})
	h.start()
	got := h.exchange(g, 0, groupSpeaking(g, 1, "ru", "/start"))
	if len(got) != 1 || !strings.HasPrefix(got[0].Text, "Этот чат подписан на уведомления о статусе OpenAI") {
		t.Fatalf("/start by a Russian admin: %+v", got)
	}
	// A member whose Telegram speaks French reads the group's Russian.
	if s := h.ask(g, 0, groupSpeaking(g, 3, "fr", "/stop")); s != i18n.Of("ru").T("reply.notAdmin") {
		t.Errorf("a member's refused /stop: %q", s)
	}
	if s := h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings language es")); s != "Guardado: el bot habla Español aquí." {
		t.Errorf("/settings language es: %q", s)
	}
	if sub := h.subscription(store.SubscriberKey(g, 0)); sub.Settings.Lang != "es" || !sub.Settings.LangChosen {
		t.Fatalf("stored: %+v", sub.Settings)
	}
	if s := h.ask(g, 0, groupSpeaking(g, 1, "ru", "/info")); !strings.Contains(s, "<b>Idioma:</b> Español") {
		t.Errorf("/info after the switch:\n%s", s)
	}
	// Russian plurals in a confirmation: 21 минуту, 45 минут.
	h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings language ru"))
	if s := h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings reminders 21")); s != "Сохранено: напоминания о работах за 21 минуту." {
		t.Errorf("/settings reminders 21: %q", s)
	}
	if s := h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings reminders 45")); s != "Сохранено: напоминания о работах за 45 минут." {
		t.Errorf("/settings reminders 45: %q", s)
	}
	h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings language es"))
	// A typed code no catalog is near is refused, saying which there are.
	if s := h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings language xx")); !strings.HasPrefix(s, "Idioma desconocido: «xx».") || !strings.Contains(s, "pt-BR (Português (Brasil))") {
		t.Errorf("/settings language xx: %q", s)
	}
	// "pt" names Brazilian Portuguese.
	if s := h.ask(g, 0, groupSpeaking(g, 1, "ru", "/settings language pt")); s != "Salvo: o bot fala Português (Brasil) aqui." {
		t.Errorf("/settings language pt: %q", s)
	}
}

// A user whose language has no catalog (xx) gets English, byte for byte
// today's /start; a private chat follows its user's language when it
// changes in Telegram.
func TestUnknownLanguageIsEnglishAndPrivateChatsFollow(t *testing.T) {
	h := newHarness(t)
	page := testPage(h.sp.URL())
	h.snapshot(page)
	h.start()
	const chat = 7003
	got := h.exchange(chat, 0, speaking(chat, "xx", "/start"))
	if want := commands.StartReply(true, nil, false, false, page); len(got) != 1 || got[0].Text != want {
		t.Fatalf("/start in xx:\n got %+v\nwant %q", got, want)
	}
	if sub := h.subscription("7003"); sub.Settings.Lang != "" {
		t.Fatalf("English is stored as the default: %+v", sub.Settings)
	}
	if s := h.ask(chat, 0, speaking(chat, "pt-br", "/info")); !strings.Contains(s, "<b>Idioma:</b> Português (Brasil)") {
		t.Errorf("/info after the user switched Telegram to Portuguese:\n%s", s)
	}
	if sub := h.subscription("7003"); sub == nil || sub.Settings.Lang != "pt-BR" || sub.Settings.LangChosen {
		t.Fatalf("followed: %+v", sub)
	}
}
