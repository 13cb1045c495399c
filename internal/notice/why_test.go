package notice_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

var tagsOfTimes = regexp.MustCompile(`</?tg-time[^>]*>`)

func TestFate(t *testing.T) {
	at := time.Date(2026, 12, 1, 13, 45, 0, 0, time.UTC)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		name string
		f    store.Fate
		loc  *time.Location
		want string
	}{
		{"sent as a card with sound", store.Fate{Outcome: store.FateSent, As: store.AsCard, At: at}, nil,
			"Sent Dec 1 13:45 UTC, with sound, as the incident's card."},
		{"sent in the chat's zone", store.Fate{Outcome: store.FateSent, As: store.AsMessage, At: at}, berlin,
			"Sent Dec 1 14:45 CET, with sound, as a message."},
		{"silent by quiet hours", store.Fate{Outcome: store.FateSent, As: store.AsReply, Silent: true, Quiet: true, At: at}, nil,
			"Sent Dec 1 13:45 UTC, silently (quiet hours), as a reply under the incident's card (the card edited)."},
		{"silent by severity", store.Fate{Outcome: store.FateSent, As: store.AsMessage, Silent: true, At: at}, nil,
			"Sent Dec 1 13:45 UTC, silently (a later step under your severity threshold), as a message."},
		{"silent: no news", store.Fate{Outcome: store.FateSent, As: store.AsReply, Silent: true, NoNews: true, At: at}, nil,
			"Sent Dec 1 13:45 UTC, silent: no change of status or impact, as a reply under the incident's card (the card edited)."},
		{"told together with earlier steps", store.Fate{Outcome: store.FateSent, As: store.AsMessage, Together: "2 earlier updates (Investigating, Dec 1 13:30 UTC; Investigating, Dec 1 13:20 UTC)", At: at}, nil,
			"Sent Dec 1 13:45 UTC, with sound, as a message; told together with 2 earlier updates (Investigating, Dec 1 13:30 UTC; Investigating, Dec 1 13:20 UTC)."},
		{"folded into the card", store.Fate{Outcome: store.FateSent, As: store.AsCardEdit, At: at}, nil,
			"Told on the incident's card Dec 1 13:45 UTC: an edit, no new message and no sound."},
		{"told with the changes before it", store.Fate{Outcome: store.FateSent, As: store.AsFolded, At: at}, nil,
			"Told Dec 1 13:45 UTC in one message with the component changes just before it (several came at once)."},
		{"withheld by the filter", store.Fate{Outcome: store.FateWithheld, Why: string(notice.WhyFilter), At: at}, nil,
			"Withheld: not about the components this chat follows (/subscribe component)."},
		{"withheld by the threshold", store.Fate{Outcome: store.FateWithheld, Why: string(notice.WhySeverity)}, nil,
			"Withheld: under this chat's severity threshold (/settings)."},
		{"withheld by the kinds", store.Fate{Outcome: store.FateWithheld, Why: string(notice.WhyKinds)}, nil,
			"Withheld: this chat does not take this kind of notice (/subscribe)."},
		{"withheld: never told", store.Fate{Outcome: store.FateWithheld, Why: string(notice.WhyNeverTold)}, nil,
			"Withheld: the end of a story this chat was told nothing of."},
		{"waiting on retry_after", store.Fate{Outcome: store.FateWaiting, Why: "Telegram asked to wait (retry_after 30 s)", At: at, RetryAt: at.Add(30 * time.Second)}, nil,
			"Waiting since Dec 1 13:45 UTC: Telegram asked to wait (retry_after 30 s); next try Dec 1 13:45 UTC."},
		{"waiting behind an earlier update", store.Fate{Outcome: store.FateWaiting, Why: "behind an earlier update of the same story", At: at}, nil,
			"Waiting since Dec 1 13:45 UTC: behind an earlier update of the same story."},
		{"failed", store.Fate{Outcome: store.FateFailed, Why: "Telegram refused it: Bad Request: <x>", At: at}, nil,
			"Not delivered (Dec 1 13:45 UTC): Telegram refused it: Bad Request: &lt;x&gt;."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := notice.Fate(tc.f, tc.loc)
			if plain := tagsOfTimes.ReplaceAllString(got, ""); plain != tc.want {
				t.Errorf("got  %q\nwant %q", plain, tc.want)
			}
			if !tc.f.At.IsZero() && tc.f.Outcome != store.FateWithheld && !strings.Contains(got, `<tg-time unix="1796132700" format="dt">`) {
				t.Errorf("the time is no date-time entity: %q", got)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	if got := notice.Explain(nil, nil); !strings.HasPrefix(got, "No notices") {
		t.Errorf("no fates: %q", got)
	}
	got := notice.Explain([]store.Fate{
		{Summary: "Incident update: Errors <API>, Investigating", Outcome: store.FateSent, As: store.AsCard, At: time.Unix(1796132700, 0)},
		{Outcome: store.FateWithheld, Why: string(notice.WhySeverity)},
	}, nil)
	for _, want := range []string{"<b>The last notices in this chat</b>", "• <b>Incident update: Errors &lt;API&gt;, Investigating</b>\n  Sent ",
		"• <b>A notice</b>\n  Withheld: under"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

type fates []store.Fate

func (f fates) LastFates(context.Context, string, int) ([]store.Fate, error) {
	return append([]store.Fate(nil), f...), nil
}
func (f fates) Summaries(_ context.Context, events []string) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range events {
		out[e] = "Stored summary of " + e
	}
	return out, nil
}

// A chat of several pages reads in /why which page each notice was of, as
// its notices name it; a chat of one page reads no page (before: /why never
// named the page).
func TestWhyNamesThePage(t *testing.T) {
	at := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	fs := fates{
		{Event: "github/incident:x:u1", Summary: "Incident update: Degraded Actions, Investigating", Outcome: store.FateSent, At: at},
		{Event: "incident:y:u1", Outcome: store.FateSent, At: at.Add(-time.Minute)},
	}
	label := func(event string) string {
		if strings.HasPrefix(event, "github/") {
			return "github"
		}
		return "openai"
	}
	text, err := notice.WhyAnswer(context.Background(), fs, "1", time.UTC, label)
	require.NoError(t, err)
	require.Contains(t, text, "<b>github · Incident update: Degraded Actions, Investigating</b>")
	require.Contains(t, text, "<b>openai · Stored summary of incident:y:u1</b>")
	text, err = notice.WhyAnswer(context.Background(), fs, "1", time.UTC, notice.OnePage)
	require.NoError(t, err)
	require.Contains(t, text, "<b>Incident update: Degraded Actions, Investigating</b>")
	require.NotContains(t, text, " · ")
}

// A fate's reason and the steps it told are stored as codes and their
// arguments: /why says them in the chat's language, Telegram's own words
// as Telegram wrote them; in English they read as the Why the delivery
// stores beside them. A record from before the codes quotes its English.
// (Before: the stored English sentence inside any language's frame.)
func TestFateInSpeaksTheChatsLanguage(t *testing.T) {
	at := time.Date(2026, 12, 1, 13, 45, 0, 0, time.UTC)
	reason := func(code string, n int, args ...string) *store.Reason {
		r := &store.Reason{Code: code, N: n}
		for i := 0; i+1 < len(args); i += 2 {
			if r.Args == nil {
				r.Args = map[string]string{}
			}
			r.Args[args[i]] = args[i+1]
		}
		return r
	}
	earlier := &store.FateSteps{Count: 2, Steps: []store.FateStep{{Status: "investigating", At: at.Add(-15 * time.Minute)}, {Status: "investigating", At: at.Add(-25 * time.Minute)}}}
	later := &store.FateSteps{Count: 3, Steps: []store.FateStep{{Status: "identified", At: at.Add(5 * time.Minute)}}, More: true}
	for _, tc := range []struct {
		name, lang string
		f          store.Fate
		want       string
	}{
		{"bursts spent, en", "en", store.Fate{Outcome: store.FateFailed, Why: "gave up after 12 bursts: 502 <Bad> Gateway", Reason: reason("burstsSpent", 12, "Detail", "502 <Bad> Gateway"), At: at},
			"Not delivered (Dec 1 13:45 UTC): gave up after 12 bursts: 502 &lt;Bad&gt; Gateway."},
		{"bursts spent, de", "de", store.Fate{Outcome: store.FateFailed, Why: "gave up after 12 bursts: 502 <Bad> Gateway", Reason: reason("burstsSpent", 12, "Detail", "502 <Bad> Gateway"), At: at},
			"Nicht zugestellt (01.12. 13:45 UTC): aufgegeben nach 12 Versuchsrunden: 502 &lt;Bad&gt; Gateway."},
		{"bursts spent, ru few", "ru", store.Fate{Outcome: store.FateFailed, Why: "gave up after 3 bursts: 502", Reason: reason("burstsSpent", 3, "Detail", "502"), At: at},
			"Не доставлено (01.12 13:45 UTC): попытки прекращены после 3 серий: 502."},
		{"operator gave up, en", "en", store.Fate{Outcome: store.FateFailed, Reason: reason("operatorGaveUp", 0), At: at},
			"Not delivered (Dec 1 13:45 UTC): given up by an operator (the delivery's give-up in the Temporal Web UI)."},
		{"operator gave up, de", "de", store.Fate{Outcome: store.FateFailed, Reason: reason("operatorGaveUp", 0), At: at},
			"Nicht zugestellt (01.12. 13:45 UTC): von einem Operator aufgegeben (Give-up der Zustellung in der Temporal Web UI)."},
		{"retry_after, de", "de", store.Fate{Outcome: store.FateWaiting, Reason: reason("rateLimited", 0, "Seconds", "30"), At: at, RetryAt: at.Add(30 * time.Second)},
			"Wartet seit 01.12. 13:45 UTC: Telegram bat zu warten (retry_after 30 s); nächster Versuch 01.12. 13:45 UTC."},
		{"behind an earlier update, ru", "ru", store.Fate{Outcome: store.FateWaiting, Reason: reason("behindEarlier", 0), At: at},
			"Ждёт с 01.12 13:45 UTC: за более ранним обновлением той же истории."},
		{"dropped by the filter, en", "en", store.Fate{Outcome: store.FateFailed, Reason: reason("dropped.filter", 0, "Setting", "component-filter"), At: at},
			"Not delivered (Dec 1 13:45 UTC): not sent: the chat's settings changed before its retry (component-filter)."},
		{"dropped by the filter, de", "de", store.Fate{Outcome: store.FateFailed, Reason: reason("dropped.filter", 0, "Setting", "component-filter"), At: at},
			"Nicht zugestellt (01.12. 13:45 UTC): nicht gesendet: Die Einstellungen des Chats haben sich vor dem erneuten Versuch geändert — betrifft nicht die Komponenten, denen dieser Chat folgt (/subscribe component)."},
		{"told together, en", "en", store.Fate{Outcome: store.FateSent, As: store.AsMessage, Together: "stored", Earlier: earlier, Later: later, At: at},
			"Sent Dec 1 13:45 UTC, with sound, as a message; told together with 2 earlier updates (Investigating, Dec 1 13:30 UTC; Investigating, Dec 1 13:20 UTC) and 3 later updates (Identified, Dec 1 13:50 UTC; …)."},
		{"told together, de", "de", store.Fate{Outcome: store.FateSent, As: store.AsMessage, Together: "stored", Earlier: earlier, Later: later, At: at},
			"Gesendet (01.12. 13:45 UTC), mit Ton, als Nachricht; zusammen gemeldet mit 2 früheren Updates (Wird untersucht, 01.12. 13:30 UTC; Wird untersucht, 01.12. 13:20 UTC) und 3 späteren Updates (Ursache gefunden, 01.12. 13:50 UTC; …)."},
		{"told with one later, ru", "ru", store.Fate{Outcome: store.FateSent, As: store.AsMessage, Later: &store.FateSteps{Count: 1}, At: at},
			"Отправлено (01.12 13:45 UTC), со звуком, сообщением; вместе с 1 более поздним обновлением."},
		{"old record: its English", "de", store.Fate{Outcome: store.FateFailed, Why: "gave up after 12 bursts: 502", At: at},
			"Nicht zugestellt (01.12. 13:45 UTC): gave up after 12 bursts: 502."},
		{"old record told together: its English", "de", store.Fate{Outcome: store.FateSent, As: store.AsMessage, Together: "1 later update", At: at},
			"Gesendet (01.12. 13:45 UTC), mit Ton, als Nachricht; zusammen gemeldet mit 1 later update."},
		{"a code no catalog has: its English", "de", store.Fate{Outcome: store.FateFailed, Why: "something new", Reason: reason("fromTheFuture", 0), At: at},
			"Nicht zugestellt (01.12. 13:45 UTC): something new."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tagsOfTimes.ReplaceAllString(notice.FateIn(i18n.Of(tc.lang), tc.f, nil), "")
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// What a notice is about, in the chat's language: English as the summary
// stored with it (event.Summary); names as the page wrote them.
func TestSummaryIn(t *testing.T) {
	comp := event.Event{Kind: event.KindComponent, ComponentName: "API", OldStatus: "operational", NewStatus: "major_outage"}
	inc := event.Event{Kind: event.KindIncident, IncidentName: "Errors", UpdateStatus: "investigating"}
	rem := event.Event{Kind: event.KindMaintenance, IncidentName: "DB", Reminder: &event.Reminder{Lead: 60 * time.Minute}}
	maint := event.Event{Kind: event.KindMaintenance, IncidentName: "DB", UpdateStatus: "scheduled"}
	for _, e := range []event.Event{comp, inc, rem, maint} {
		if got := notice.SummaryIn(i18n.Of("en"), e); got != e.Summary() {
			t.Errorf("en: %q, want %q", got, e.Summary())
		}
	}
	for _, tc := range []struct {
		lang string
		e    event.Event
		want string
	}{
		{"de", inc, "Störungs-Update: Errors, Wird untersucht"},
		{"ru", inc, "Обновление инцидента: Errors, Расследуется"},
		{"de", rem, "Wartungserinnerung: DB, beginnt in 60 Min."},
		{"ru", rem, "Напоминание о работах: DB, начало через 60 мин"},
	} {
		if got := notice.SummaryIn(i18n.Of(tc.lang), tc.e); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.lang, got, tc.want)
		}
	}
	if got := notice.SummaryIn(i18n.Of("de"), comp); !strings.HasPrefix(got, "Komponentenänderung: API, ") || strings.Contains(got, "Operational") {
		t.Errorf("de component: %q", got)
	}
}

// withEvents is a Fates that reads the notices' stored events.
type withEvents struct {
	fates
	events map[string]event.Event
}

func (w withEvents) NoticeEvents(context.Context, []string) (map[string]event.Event, error) {
	return w.events, nil
}

// /why in German says what each stored notice is about in German; one
// whose event is gone keeps its English summary; English reads as before.
func TestWhyAnswerSaysWhatInTheChatsLanguage(t *testing.T) {
	at := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	st := withEvents{fates: fates{
		{Event: "incident:x:u1", Summary: "Incident update: Errors, Investigating", Outcome: store.FateWithheld, Why: string(notice.WhySeverity), At: at},
		{Event: "incident:gone:u1", Summary: "Incident update: Gone, Investigating", Outcome: store.FateWithheld, Why: string(notice.WhySeverity), At: at.Add(-time.Minute)},
	}, events: map[string]event.Event{"incident:x:u1": {Kind: event.KindIncident, IncidentName: "Errors", UpdateStatus: "investigating"}}}
	de, err := notice.WhyAnswerIn(context.Background(), i18n.Of("de"), st, "1", time.UTC, notice.OnePage)
	require.NoError(t, err)
	require.Contains(t, de, "<b>Störungs-Update: Errors, Wird untersucht</b>")
	require.Contains(t, de, "<b>Incident update: Gone, Investigating</b>")
	en, err := notice.WhyAnswer(context.Background(), st, "1", time.UTC, notice.OnePage)
	require.NoError(t, err)
	require.Contains(t, en, "<b>Incident update: Errors, Investigating</b>")
}
