package message_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

var t0 = time.Date(2026, 11, 30, 14, 2, 0, 0, time.UTC)

func incidentEvent(status, update, body string, at time.Time) event.Event {
	return event.Event{Kind: event.KindIncident, IncidentID: "inc1", IncidentName: "Elevated errors on <API>", Impact: "major",
		UpdateID: update, UpdateStatus: status, Body: body, At: at, URL: "https://status.openai.com/incidents/inc1",
		ComponentNames: []string{"API", "ChatGPT"}}
}

func TestTimeline(t *testing.T) {
	inc := &statuspage.Incident{Updates: []statuspage.IncidentUpdate{
		{ID: "u3", Status: "resolved", DisplayAt: t0.Add(2 * time.Hour)},
		{ID: "u2", Status: "identified", DisplayAt: t0.Add(time.Hour)},
		{ID: "u1", Status: "investigating", CreatedAt: t0},
	}}
	cases := []struct {
		name string
		inc  *statuspage.Incident
		e    event.Event
		want []string
	}{
		{"first update", inc, incidentEvent("investigating", "u1", "", t0), []string{"investigating"}},
		{"later updates left out", inc, incidentEvent("identified", "u2", "", t0.Add(time.Hour)), []string{"investigating", "identified"}},
		{"all", inc, incidentEvent("resolved", "u3", "", t0.Add(2*time.Hour)), []string{"investigating", "identified", "resolved"}},
		{"event's own status wins", inc, incidentEvent("monitoring", "u2", "", t0.Add(time.Hour)), []string{"investigating", "monitoring"}},
		{"incident gone from the page", nil, incidentEvent("identified", "u2", "", t0), []string{"identified"}},
		{"update not on the page yet", &statuspage.Incident{}, incidentEvent("identified", "u9", "", t0), []string{"identified"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range message.Timeline(tc.inc, tc.e) {
				got = append(got, s.Status)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCard(t *testing.T) {
	steps := []message.Step{{Status: "investigating", At: t0}, {Status: "identified", At: t0.Add(18 * time.Minute)}}
	cases := []struct {
		name     string
		e        event.Event
		steps    []message.Step
		contains []string
		absent   []string
	}{
		{"open", incidentEvent("identified", "u2", "We found the cause & fix it.", t0), steps,
			[]string{"🚨 <b>Incident</b>", "<b>Elevated errors on &lt;API&gt;</b>", "Impact: Major · Status: Identified",
				"Components: API, ChatGPT", "• Nov 30 14:02 Investigating\n• Nov 30 14:20 Identified",
				"<b>Latest:</b> We found the cause &amp; fix it.", `<a href="https://status.openai.com/incidents/inc1">View incident</a>`},
			[]string{"resolved"}},
		{"resolved", incidentEvent("resolved", "u3", "", t0), append(steps, message.Step{Status: "resolved", At: t0.Add(time.Hour)}),
			[]string{"✅ <b>Incident resolved</b>", "Status: Resolved", "• Nov 30 15:02 Resolved", "<i>" + message.NoBody + "</i>"}, nil},
		{"long timeline keeps the first and the latest", incidentEvent("monitoring", "u50", "x", t0), manySteps(50),
			[]string{"• Nov 30 14:02 Investigating\n<i>… 20 more</i>", "• Nov 30 14:51 Monitoring"}, []string{"14:03"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := message.Card(tc.e, tc.steps)
			_, err := parseHTML(got)
			require.NoError(t, err, got)
			got = untimed(got)
			for _, s := range tc.contains {
				require.Contains(t, got, s)
			}
			for _, s := range tc.absent {
				require.NotContains(t, got, s)
			}
		})
	}
}

func manySteps(n int) []message.Step {
	out := []message.Step{{Status: "investigating", At: t0}}
	for i := 1; i < n; i++ {
		out = append(out, message.Step{Status: "monitoring", At: t0.Add(time.Duration(i) * time.Minute)})
	}
	return out
}

// Whatever the name, body and timeline, a card and its reply stay within
// Telegram's limit and parse.
func TestCardIsBounded(t *testing.T) {
	e := incidentEvent("identified", "u1", strings.Repeat("a&<b> ", 3000), t0)
	e.IncidentName = strings.Repeat("N&", 2000)
	e.ComponentNames = []string{strings.Repeat("C<", 2000)}
	for _, text := range []string{message.Card(e, manySteps(500)), message.CardReply(e, false), message.CardReply(e, true)} {
		visible, err := parseHTML(text)
		require.NoError(t, err)
		require.LessOrEqual(t, message.VisibleLength(text), message.MaxLength, visible[:40])
		require.LessOrEqual(t, len([]rune(text)), message.MaxLength)
	}
}

func TestCardReply(t *testing.T) {
	cases := []struct {
		name   string
		e      event.Event
		edited bool
		want   string
	}{
		{"update", incidentEvent("monitoring", "u2", "A fix is deployed.", t0), false, "🔄 <b>Monitoring</b>\n\nA fix is deployed."},
		{"edited", incidentEvent("monitoring", "u2", "A fix is rolling out.", t0), true, "✏️ <b>Update edited</b> (Monitoring)\n\nA fix is rolling out."},
		{"resolved", incidentEvent("resolved", "u3", "", t0), false, "✅ <b>Resolved</b>\n\n<i>" + message.NoBody + "</i>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, message.CardReply(tc.e, tc.edited))
		})
	}
}

func TestCardIn(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		require.NoError(t, err)
		return loc
	}
	// Mar 29 2026: Berlin moves from CET to CEST at 01:00 UTC.
	dst := time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC)
	cases := []struct {
		name     string
		steps    []message.Step
		loc      *time.Location
		contains []string
	}{
		{"nil is UTC", []message.Step{{Status: "investigating", At: t0}}, nil, []string{"<b>Timeline (UTC)</b>\n• Nov 30 14:02 Investigating"}},
		{"Berlin", []message.Step{{Status: "investigating", At: t0}}, zone("Europe/Berlin"),
			[]string{"<b>Timeline (Europe/Berlin)</b>\n• Nov 30 15:02 Investigating"}},
		{"half-hour offset", []message.Step{{Status: "investigating", At: t0}}, zone("Asia/Kolkata"),
			[]string{"<b>Timeline (Asia/Kolkata)</b>\n• Nov 30 19:32 Investigating"}},
		{"change of offset inside", []message.Step{{Status: "investigating", At: dst}, {Status: "resolved", At: dst.Add(time.Hour)}}, zone("Europe/Berlin"),
			[]string{"• Mar 29 01:30 Investigating\n• Mar 29 03:30 Resolved"}},
		{"midnight in the zone", []message.Step{{Status: "investigating", At: t0}, {Status: "resolved", At: t0.Add(10 * time.Hour)}}, zone("Asia/Tokyo"),
			[]string{"• Nov 30 23:02 Investigating\n• Dec 1 09:02 Resolved"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := message.CardIn(incidentEvent("resolved", "u2", "x", t0), tc.steps, tc.loc)
			_, err := parseHTML(got)
			require.NoError(t, err, got)
			got = untimed(got)
			for _, s := range tc.contains {
				require.Contains(t, got, s)
			}
		})
	}
	e := incidentEvent("identified", "u2", "x", t0)
	require.Equal(t, message.Card(e, manySteps(3)), message.CardIn(e, manySteps(3), time.UTC))
}

// A card always shows the incident as of the event's place in the story:
// an edit of the first update after the resolution keeps it resolved, with
// the edited status in its timeline and the resolution's text as latest.
func TestCardStateAfterAnEditOfAnOldUpdate(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 8, 9, m, 0, 0, time.UTC) }
	inc := &statuspage.Incident{ID: "i", Updates: []statuspage.IncidentUpdate{
		{ID: "u3", Status: "resolved", Body: "All good.", DisplayAt: at(9)},
		{ID: "u2", Status: "identified", Body: "Found it.", DisplayAt: at(5)},
		{ID: "u1", Status: "investigating", Body: "We are investigating.", DisplayAt: at(1)},
	}}
	cardAt := at(9)
	edit := event.Event{Kind: event.KindIncident, IncidentID: "i", IncidentName: "Errors", Impact: "minor", UpdateID: "u1",
		UpdateStatus: "investigating", Body: "We are investigating.", At: at(1), CardAt: &cardAt}
	state := message.CardState(inc, edit)
	if state.UpdateStatus != "resolved" || state.Body != "All good." || !state.At.Equal(at(9)) {
		t.Fatalf("card state: %+v", state)
	}
	card := untimed(message.Card(state, message.Timeline(inc, edit)))
	for _, want := range []string{"Incident resolved", "Status: Resolved", "Mar 8 09:01 Investigating — We are investigating.", "Mar 8 09:05 Identified — Found it.", "Mar 8 09:09 Resolved\n", "All good."} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}

	// Without CardAt (events from before it): the update's own time, as before.
	old := edit
	old.CardAt = nil
	if s := message.CardState(inc, old); s.UpdateStatus != "investigating" {
		t.Fatalf("legacy event: %+v", s)
	}
	// A step handed over before a later one shows only what came before it.
	twoAt := at(5)
	second := event.Event{Kind: event.KindIncident, UpdateID: "u2", UpdateStatus: "identified", Body: "Found it.", At: at(5), CardAt: &twoAt}
	if s := message.CardState(inc, second); s.UpdateStatus != "identified" || len(message.Timeline(inc, second)) != 2 {
		t.Fatalf("second step: %+v %v", s, message.Timeline(inc, second))
	}
}

// The card lists the incident's components with their statuses, and its
// timeline the component changes folded into it, placed by time.
func TestCardOfComponents(t *testing.T) {
	e := incidentEvent("identified", "u2", "Rolling back.", t0.Add(time.Hour))
	steps := []message.Step{{Status: "investigating", At: t0, Text: "Looking."}, {Status: "identified", At: t0.Add(time.Hour)}}
	notes := []message.Step{{Component: "API", Status: "partial_outage", At: t0.Add(time.Minute)},
		{Component: "API", Status: "operational", At: t0.Add(2 * time.Hour)}}
	comps := []message.ComponentState{{Name: "API", Status: "operational"}, {Name: "Chat<GPT>", Status: "major_outage"}, {Name: "Files"}}
	got := message.CardOf(e, message.WithNotes(steps, notes), comps, time.UTC)
	_, err := parseHTML(got)
	require.NoError(t, err)
	require.Contains(t, got, `• <tg-time unix="1796047320" format="dt">Nov 30 14:02</tg-time> Investigating`, "times are date-time entities")
	got = untimed(got)
	require.Contains(t, got, "<b>Components</b>\n🟢 API: Operational\n🔴 Chat&lt;GPT&gt;: Major Outage\n⚪ Files: Unknown\n")
	require.Contains(t, got, "• Nov 30 14:02 Investigating — Looking.\n• Nov 30 14:03 API: Partial Outage\n• Nov 30 15:02 Identified\n• Nov 30 16:02 API: Operational")
	require.NotContains(t, got, "Components: API, ChatGPT", "the statuses replace the list of names")
	require.Equal(t, message.CardIn(e, steps, time.UTC), message.CardOf(e, steps, nil, time.UTC), "without statuses: the names")

	var many []message.ComponentState
	for i := range 30 {
		many = append(many, message.ComponentState{Name: "C" + strings.Repeat("x", i), Status: "operational"})
	}
	got = message.CardOf(e, steps, many, time.UTC)
	require.Contains(t, got, "<i>… 18 more</i>")
	require.LessOrEqual(t, message.VisibleLength(got), message.MaxLength)
}
