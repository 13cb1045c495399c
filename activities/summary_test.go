package activities_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
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
			got := activities.MorningSummary(tc.held, time.UTC)
			require.Equal(t, tc.want, tgTime.ReplaceAllString(got, ""))
			require.Equal(t, len(tc.held) > 0, strings.Contains(got, `<tg-time unix="`), "times are date-time entities")
		})
	}
}
