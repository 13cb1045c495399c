package notice

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func TestNews(t *testing.T) {
	inc := func(status, prev, impact, prevImpact, pred string) event.Event {
		return event.Event{Kind: event.KindIncident, UpdateStatus: status, PrevStatus: prev, Impact: impact, PrevImpact: prevImpact, Predecessor: pred}
	}
	comp := func(old, new string) event.Event {
		return event.Event{Kind: event.KindComponent, OldStatus: old, NewStatus: new, Predecessor: "p"}
	}
	edit := inc("identified", "investigating", "major", "major", "p")
	edit.Edit = true
	cases := []struct {
		name string
		e    event.Event
		news bool
	}{
		{"the story's first step", inc("investigating", "", "minor", "", ""), true},
		{"words only, same status", inc("investigating", "investigating", "critical", "critical", "p"), false},
		{"words only, impact unknown before", inc("investigating", "investigating", "critical", "", "p"), false},
		{"status changed", inc("identified", "investigating", "major", "major", "p"), true},
		{"monitoring", inc("monitoring", "identified", "major", "major", "p"), true},
		{"the end", inc("resolved", "monitoring", "major", "major", "p"), true},
		{"a postmortem after the end", inc("postmortem", "resolved", "major", "major", "p"), false},
		{"impact raised", inc("investigating", "investigating", "critical", "minor", "p"), true},
		{"impact lowered", inc("investigating", "investigating", "minor", "critical", "p"), false},
		{"previous state unknown (old event)", inc("investigating", "", "minor", "", "p"), true},
		{"a correction", edit, false},
		{"maintenance starts", event.Event{Kind: event.KindMaintenance, UpdateStatus: "in_progress", PrevStatus: "scheduled", Predecessor: "p"}, true},
		{"maintenance words", event.Event{Kind: event.KindMaintenance, UpdateStatus: "in_progress", PrevStatus: "in_progress", Predecessor: "p"}, false},
		{"maintenance completed", event.Event{Kind: event.KindMaintenance, UpdateStatus: "completed", PrevStatus: "in_progress", Predecessor: "p"}, true},
		{"reminder", event.Event{Kind: event.KindMaintenance, Reminder: &event.Reminder{}}, true},
		{"component trips", comp("operational", "degraded_performance"), true},
		{"component enters an outage", comp("degraded_performance", "major_outage"), true},
		{"component outage to outage", comp("partial_outage", "major_outage"), false},
		{"component leaves the outage", comp("major_outage", "degraded_performance"), true},
		{"component degraded to maintenance", comp("degraded_performance", "under_maintenance"), false},
		{"component back", comp("degraded_performance", "operational"), true},
	}
	for _, c := range cases {
		if got := News(c.e); got != c.news {
			t.Errorf("%s: News = %v, want %v", c.name, got, c.news)
		}
	}
}

// A later step that is no news comes silently, and says why; the end and a
// status change ring; a chat that rings on every update hears each.
func TestDecideOnlyNewsRings(t *testing.T) {
	sub := store.Subscriber{Key: "1"}
	words := event.Event{Kind: event.KindIncident, UpdateStatus: "investigating", PrevStatus: "investigating", Impact: "major", PrevImpact: "major", Predecessor: "p"}
	v := Decide(sub, words, true)
	if !v.Send || !v.Silent || !v.NoNews {
		t.Fatalf("words only: %+v, want sent silently, no news", v)
	}
	changed := words
	changed.UpdateStatus = "identified"
	if v := Decide(sub, changed, true); !v.Send || v.Silent || v.NoNews {
		t.Fatalf("status change: %+v, want with sound", v)
	}
	every := sub
	every.Settings.RingEvery = true
	if v := Decide(every, words, true); !v.Send || v.Silent || v.NoNews {
		t.Fatalf("ring on every update: %+v, want with sound", v)
	}
	// Joining mid-story is news to the chat, whatever the step says.
	if v := Decide(sub, words, false); !v.Send || v.Silent {
		t.Fatalf("joining: %+v, want with sound", v)
	}
}

func FuzzNews(f *testing.F) {
	f.Add("incident", "investigating", "investigating", "major", "minor", "p", false, "", "")
	f.Add("component", "", "", "", "", "p", false, "operational", "major_outage")
	f.Fuzz(func(t *testing.T, kind, status, prev, impact, prevImpact, pred string, edit bool, old, new string) {
		e := event.Event{Kind: event.Kind(kind), UpdateStatus: status, PrevStatus: prev, Impact: impact, PrevImpact: prevImpact,
			Predecessor: pred, Edit: edit, OldStatus: old, NewStatus: new}
		news := News(e)
		switch {
		case e.Kind == event.KindComponent:
			if (e.OpensEpisode() || e.EndsEpisode()) && !news {
				t.Fatalf("a component's trip or end is news: %+v", e)
			}
		case edit:
			if news {
				t.Fatalf("a correction is no news: %+v", e)
			}
		case pred == "":
			if !news {
				t.Fatalf("a story's first step is news: %+v", e)
			}
		case prev != "" && status == prev && (impactRank(impact) <= impactRank(prevImpact) || prevImpact == ""):
			if news {
				t.Fatalf("no change of status or impact is no news: %+v", e)
			}
		}
	})
}
