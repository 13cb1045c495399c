package activities_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

var tgTime = regexp.MustCompile(`</?tg-time[^>]*>`)

func TestMorningSummarySortsStories(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 12, 2, h, m, 0, 0, time.UTC) }
	api := func(s string, opens, ends bool, t time.Time) store.Held {
		return store.Held{Story: "component:api", Title: "API", Summary: s, Opens: opens, Ends: ends, EventAt: t}
	}
	inc := func(s string, opens bool, t time.Time) store.Held {
		return store.Held{Story: "incident:x", Title: "Elevated errors on ChatGPT", Summary: s, Opens: opens, EventAt: t}
	}
	old := store.Held{Story: "incident:old", Title: "Slow Files", Summary: "Incident update: Slow Files, Monitoring", EventAt: at(3, 0)}
	for _, tc := range []struct {
		name string
		held []store.Held
		want string
	}{
		{"opened and resolved, opened and open", []store.Held{
			api("Component change: API, Operational → Major Outage", true, false, at(1, 2)),
			inc("Incident update: Elevated errors on ChatGPT, Investigating", true, at(2, 0)),
			api("Component change: API, Major Outage → Operational", false, true, at(2, 14)),
			inc("Incident update: Elevated errors on ChatGPT, Identified", false, at(5, 40)),
		}, "☀️ <b>Morning summary</b>: what happened during your quiet hours\n\n" +
			"<b>Opened, still open</b>\n• <b>Elevated errors on ChatGPT</b>: Incident update: Elevated errors on ChatGPT, Identified (Dec 2 05:40, 2 updates)\n\n" +
			"<b>Resolved meanwhile</b>\n• <b>API</b>: Component change: API, Major Outage → Operational (Dec 2 02:14, 2 updates)"},
		{"open before the window, updated in it", []store.Held{old},
			"☀️ <b>Morning summary</b>: what happened during your quiet hours\n\n" +
				"<b>Still open</b>\n• <b>Slow Files</b>: Incident update: Slow Files, Monitoring (Dec 2 03:00)"},
		{"reopened after its end is open", []store.Held{
			api("down", true, false, at(1, 0)), api("up", false, true, at(1, 10)), api("down again", true, false, at(1, 20)),
		}, "☀️ <b>Morning summary</b>: what happened during your quiet hours\n\n" +
			"<b>Opened, still open</b>\n• <b>API</b>: down again (Dec 2 01:20, 3 updates)"},
		{"names are escaped", []store.Held{{Story: "s", Title: "<A&B>", Summary: "x < y", EventAt: at(4, 0)}},
			"☀️ <b>Morning summary</b>: what happened during your quiet hours\n\n" +
				"<b>Still open</b>\n• <b>&lt;A&amp;B&gt;</b>: x &lt; y (Dec 2 04:00)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := activities.MorningSummary(tc.held, time.UTC, false)
			require.Len(t, parts, 1)
			got := parts[0].Text
			require.Equal(t, tc.want, tgTime.ReplaceAllString(got, ""))
			require.Len(t, parts[0].Told, len(tc.held), "every held notice told")
			require.Equal(t, len(tc.held) > 0, strings.Contains(got, `<tg-time unix="`), "times are date-time entities")
		})
	}
}

// badNight is a broad outage overnight: n components down and back, and
// incidents each with updates, all held.
func badNight(components, incidents, updates int) []store.Held {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var held []store.Held
	add := func(story, title, summary string, opens, ends bool) {
		at = at.Add(time.Minute)
		held = append(held, store.Held{Sub: "s", Window: time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC), Event: fmt.Sprintf("e%d", len(held)),
			Story: story, Title: title, Summary: summary, Opens: opens, Ends: ends, EventAt: at})
	}
	for i := range incidents {
		for u := range updates {
			add(fmt.Sprintf("incident:%d", i), fmt.Sprintf("Elevated error rates across the API and ChatGPT, part %d", i),
				fmt.Sprintf("Incident update: Elevated error rates across the API and ChatGPT, Investigating (update %d)", u), u == 0, false)
		}
	}
	for i := range components {
		name := fmt.Sprintf("Component number %02d of the page", i)
		add(fmt.Sprintf("component:c%d", i), name, "Component change: "+name+", Operational → Major Outage", true, false)
	}
	for i := range components {
		name := fmt.Sprintf("Component number %02d of the page", i)
		add(fmt.Sprintf("component:c%d", i), name, "Component change: "+name+", Major Outage → Operational", false, true)
	}
	return held
}

// A bad night fits: 45 components down and back and 2 incidents (94 held
// notices; 4,737 characters in one message before) make one summary that
// Telegram accepts, naming every story, the components on one line; a
// night too long even so is split into as few parts as hold it, each
// within the limit, every notice told by exactly one part.
func TestMorningSummaryOfABadNightFits(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		components, incidents, updates int
		parts                          int
	}{
		{"45 components, 2 incidents", 45, 2, 2, 1},
		{"one story", 0, 1, 1, 1},
		{"400 components, 30 incidents", 400, 30, 3, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held := badNight(tc.components, tc.incidents, tc.updates)
			parts := activities.MorningSummary(held, time.UTC, false)
			require.Len(t, parts, tc.parts)
			told := map[string]int{}
			for i, p := range parts {
				require.LessOrEqual(t, message.VisibleLength(p.Text), message.MaxLength, "part %d", i)
				require.LessOrEqual(t, utf8.RuneCountInString(p.Text), message.MaxLength, "part %d", i)
				if i == 0 {
					require.Contains(t, p.Text, "what happened during your quiet hours")
				} else {
					require.Contains(t, p.Text, "Morning summary</b> (continued)")
				}
				for _, h := range p.Told {
					told[h.Event]++
				}
			}
			for _, h := range held {
				require.Equal(t, 1, told[h.Event], "notice %s told once", h.Event)
			}
			all := strings.Join(texts(parts), "\n")
			for i := range tc.incidents {
				require.Contains(t, all, fmt.Sprintf("part %d</b>", i), "every incident named")
			}
			for i := range tc.components {
				require.Contains(t, all, fmt.Sprintf("Component number %02d of the page", i), "every component named")
			}
			if tc.components > 0 && tc.parts == 1 {
				require.Contains(t, all, fmt.Sprintf("<b>Components (%d)</b>: ", tc.components), "the components on one line")
			}
		})
	}
	// Continued: what is left after a part went out is headed so.
	parts := activities.MorningSummary(badNight(1, 0, 0), time.UTC, true)
	require.Len(t, parts, 1)
	require.Contains(t, parts[0].Text, "(continued)")
	require.Nil(t, activities.MorningSummary(nil, time.UTC, false))
}

func texts(parts []activities.SummaryPart) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return out
}

// Issue 34: the morning summary speaks the chat's language, plurals by
// the language's rule; the page's words stay as the page wrote them. On
// the old code every summary was English.
func TestMorningSummarySpeaksTheChatsLanguage(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 12, 2, h, m, 0, 0, time.UTC) }
	var held []store.Held
	for i := range 5 {
		held = append(held, store.Held{Story: "incident:x", Title: "Elevated errors on ChatGPT", Summary: fmt.Sprintf("Incident update %d", i),
			Opens: i == 0, EventAt: at(1, i)})
	}
	held = append(held, store.Held{Story: "incident:y", Title: "Slow Files", Summary: "Resolved", Ends: true, EventAt: at(2, 0)})
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"de", []string{"☀️ <b>Morgenübersicht</b>: was in Ihren Ruhezeiten geschah", "<b>Neu und noch offen</b>", "5 Updates", "<b>Inzwischen behoben</b>"}},
		{"ru", []string{"<b>Утренняя сводка</b>", "5 обновлений", "<b>Решены за это время</b>"}},
		{"xx", []string{"☀️ <b>Morning summary</b>: what happened during your quiet hours", "5 updates", "<b>Resolved meanwhile</b>"}},
	} {
		parts := activities.MorningSummaryIn(i18n.Of(i18n.Match(tc.lang)), held, time.UTC, false)
		require.Len(t, parts, 1, tc.lang)
		for _, w := range tc.want {
			require.Contains(t, parts[0].Text, w, tc.lang)
		}
		require.Contains(t, parts[0].Text, "<b>Elevated errors on ChatGPT</b>: Incident update 4", "%s: the page's words as written", tc.lang)
	}
	// Russian plurals: 2 обновления, 5 обновлений, 21 обновление.
	ru := i18n.Of("ru")
	for n, want := range map[int]string{2: "2 обновления", 5: "5 обновлений", 21: "21 обновление"} {
		var many []store.Held
		for i := range n {
			many = append(many, store.Held{Story: "incident:x", Title: "X", Summary: "s", EventAt: at(1, 0).Add(time.Duration(i) * time.Minute)})
		}
		require.Contains(t, activities.MorningSummaryIn(ru, many, time.UTC, false)[0].Text, want)
	}
}
