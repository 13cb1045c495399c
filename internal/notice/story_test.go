package notice

import (
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func storyComp(old, new, predecessor string) event.Event {
	return event.Event{Key: "component:c:" + new, OrderKey: "component:c", Kind: event.KindComponent, ComponentID: "c",
		OldStatus: old, NewStatus: new, Predecessor: predecessor}
}

func storyInc(status, impact, predecessor string, components ...string) event.Event {
	return event.Event{Key: "incident:i:" + status, OrderKey: "incident:i", Kind: event.KindIncident, IncidentID: "i",
		UpdateStatus: status, Impact: impact, Predecessor: predecessor, ComponentIDs: components}
}

func edited(e event.Event) event.Event { e.Edit = true; return e }

func TestDecide(t *testing.T) {
	outages := store.Subscriber{Settings: store.Settings{MinSeverity: store.SeverityOutage}}
	outagesSilent := store.Subscriber{Settings: store.Settings{MinSeverity: store.SeverityOutage, BelowSilent: true}}
	all := store.Subscriber{}
	embeddings := store.Subscriber{Components: []string{"emb"}}
	files := store.Subscriber{Components: []string{"files"}}
	noComponents := store.Subscriber{Kinds: []event.Kind{event.KindIncident}}
	for _, tt := range []struct {
		name string
		sub  store.Subscriber
		e    event.Event
		told bool
		want Verdict
	}{
		// Components, "outages only": major -> degraded -> operational.
		{"outage joins", outages, storyComp("operational", "major_outage", ""), false, Verdict{Send: true, Why: WhyJoined}},
		{"degraded step of a joined outage comes silently", outages, storyComp("major_outage", "degraded_performance", "p"), true, Verdict{Send: true, Silent: true, Why: WhyStory}},
		{"recovery of a joined outage rings", outages, storyComp("degraded_performance", "operational", "p"), true, Verdict{Send: true, Why: WhyStory}},
		{"minor trip is not joined", outages, storyComp("operational", "degraded_performance", "p"), false, Verdict{Why: WhySeverity}},
		{"end of a story never told", outages, storyComp("degraded_performance", "operational", "p"), false, Verdict{Why: WhyNeverTold}},
		{"end of a story never told, everything", all, storyComp("degraded_performance", "operational", "p"), false, Verdict{Why: WhyNeverTold}},
		{"a new trip after the end is a new story", outages, storyComp("operational", "degraded_performance", "p"), true, Verdict{Why: WhySeverity}},
		{"a worse step of a minor trip joins", outages, storyComp("degraded_performance", "partial_outage", "p"), false, Verdict{Send: true, Why: WhyJoined}},
		{"outage-silent: minor trip joins silently", outagesSilent, storyComp("operational", "degraded_performance", ""), false, Verdict{Send: true, Silent: true, Why: WhyJoined}},
		// An end without an earlier step is the whole story: rated as what it resolves.
		{"end with no earlier step", all, storyComp("degraded_performance", "operational", ""), false, Verdict{Send: true, Why: WhyJoined}},
		{"minor end with no earlier step, outages only", outages, storyComp("degraded_performance", "operational", ""), false, Verdict{Why: WhySeverity}},
		// Incidents, "outages only": opened major, lowered to minor, resolved.
		{"major incident joins", outages, storyInc("investigating", "major", ""), false, Verdict{Send: true, Why: WhyJoined}},
		{"lowered update of a joined incident comes silently", outages, storyInc("monitoring", "minor", "p"), true, Verdict{Send: true, Silent: true, Why: WhyStory}},
		{"resolution after lowering rings", outages, storyInc("resolved", "minor", "p"), true, Verdict{Send: true, Why: WhyStory}},
		{"postmortem after the resolution", outages, storyInc("postmortem", "minor", "p"), true, Verdict{Send: true, Why: WhyStory}},
		{"minor incident never joined: no resolution", outages, storyInc("resolved", "minor", "p"), false, Verdict{Why: WhyNeverTold}},
		// Filters: Embeddings, then updates list only Files.
		{"filter joins", embeddings, storyInc("investigating", "minor", "", "emb"), false, Verdict{Send: true, Why: WhyJoined}},
		{"filter stays when components move", embeddings, storyInc("identified", "minor", "p", "files"), true, Verdict{Send: true, Why: WhyStory}},
		{"filter stays to the end", embeddings, storyInc("resolved", "minor", "p", "files"), true, Verdict{Send: true, Why: WhyStory}},
		{"other filter not yet", files, storyInc("investigating", "minor", "", "emb"), false, Verdict{Why: WhyFilter}},
		{"other filter joins when its component is added", files, storyInc("identified", "minor", "p", "emb", "files"), false, Verdict{Send: true, Why: WhyJoined}},
		{"incident naming no component concerns everyone", files, storyInc("investigating", "minor", ""), false, Verdict{Send: true, Why: WhyJoined}},
		// Corrections reach the chats in the story only.
		// A correction adds words: it comes silently (only news rings).
		{"correction in the story", all, edited(storyInc("investigating", "minor", "p")), true, Verdict{Send: true, Silent: true, NoNews: true, Why: WhyStory}},
		{"correction of an update never told", all, edited(storyInc("investigating", "minor", "p")), false, Verdict{Why: WhyNeverTold}},
		// Notice types always apply.
		{"kind turned off mid-story", noComponents, storyComp("major_outage", "operational", "p"), true, Verdict{Why: WhyKinds}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.sub, tt.e, tt.told); got != tt.want {
				t.Fatalf("Decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDecideReminders(t *testing.T) {
	e := event.Event{Key: "reminder:m:1:60", OrderKey: "incident:m", Kind: event.KindMaintenance, Reminder: &event.Reminder{Lead: time.Hour, Until: 2 * time.Hour}}
	on := store.Subscriber{}
	off := store.Subscriber{Settings: store.Settings{NoReminders: true}}
	if v := Decide(on, e, false); !v.Send || v.Why != WhyReminder {
		t.Fatalf("default lead 60 gets the 60-minute reminder: %+v", v)
	}
	if v := Decide(off, e, true); v.Send {
		t.Fatalf("reminders off: %+v", v)
	}
}

func TestQuietForAndCovers(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	s := store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin"}
	down, up := storyComp("operational", "major_outage", ""), storyComp("major_outage", "operational", "p")
	resolved := storyInc("resolved", "minor", "p")
	for _, tt := range []struct {
		name string
		s    store.Settings
		e    event.Event
		at   time.Time
		want bool
	}{
		{"inside, crossing midnight", s, down, time.Date(2026, 12, 1, 23, 30, 0, 0, berlin), true},
		{"start is inside", s, down, time.Date(2026, 12, 1, 22, 0, 0, 0, berlin), true},
		{"end is outside", s, down, time.Date(2026, 12, 2, 7, 0, 0, 0, berlin), false},
		{"read in the chat's zone, not UTC", s, down, time.Date(2026, 12, 1, 21, 30, 0, 0, time.UTC), true},
		{"recovery rings through", s, up, time.Date(2026, 12, 1, 23, 30, 0, 0, berlin), false},
		{"resolution rings through", s, resolved, time.Date(2026, 12, 1, 23, 30, 0, 0, berlin), false},
		{"resolutions silenced too", store.Settings{QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "Europe/Berlin", QuietResolutions: true}, up, time.Date(2026, 12, 1, 23, 30, 0, 0, berlin), true},
		{"no quiet hours", store.Settings{}, down, time.Date(2026, 12, 1, 23, 30, 0, 0, berlin), false},
		{"same start and end is no window", store.Settings{QuietStart: "07:00", QuietEnd: "07:00"}, down, time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuietFor(tt.s, tt.e).Covers(tt.at); got != tt.want {
				t.Fatalf("covers = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzDecideNeverLeavesAJoinedStoryWithoutItsEnd(f *testing.F) {
	f.Add("major_outage", "operational", "outage", "emb", true)
	f.Add("degraded_performance", "operational", "", "", false)
	f.Fuzz(func(t *testing.T, old, new, severity, filter string, silent bool) {
		if new != "operational" || old == "operational" || old == "" {
			return
		}
		sub := store.Subscriber{Settings: store.Settings{MinSeverity: severity, BelowSilent: silent}}
		if filter != "" {
			sub.Components = []string{filter}
		}
		v := Decide(sub, storyComp(old, new, "p"), true)
		if !v.Send || v.Silent {
			t.Fatalf("a chat in the story must hear its end with sound: %+v", v)
		}
		if Decide(sub, storyComp(old, new, "p"), false).Send {
			t.Fatalf("a chat told nothing must not hear the end")
		}
	})
}
