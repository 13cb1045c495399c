package event_test

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// An edited update keeps its original's time but is numbered after every
// update handed over before it, and its card is as of the newest of them.
func TestDiffNumbersStepsAndEditsComeAfterTheirOriginal(t *testing.T) {
	cp := baseline(t)
	inc := statuspage.Incident{ID: "inc", Name: "Errors", Status: "investigating", Impact: "major", Updates: []statuspage.IncidentUpdate{
		upd("u2", "identified", "Found it.", "2026-03-08T10:05:00Z"),
		upd("u1", "investigating", "Lookign into it.", "2026-03-08T10:00:00Z"),
	}}
	p := basePage()
	p.Incidents = append(p.Incidents, inc)
	first := event.Diff(cp, p).Events
	if len(first) != 2 || first[0].UpdateID != "u1" || first[0].Seq != 1 || first[1].Seq != 2 || first[1].Predecessor != first[0].Key {
		t.Fatalf("first poll: %+v", first)
	}
	if !first[0].CardAt.Equal(ts("2026-03-08T10:00:00Z")) || !first[1].CardAt.Equal(ts("2026-03-08T10:05:00Z")) {
		t.Fatalf("each step's card is as of that step: %v %v", first[0].CardAt, first[1].CardAt)
	}
	cp.Apply(first)

	p2 := clonePage(p)
	p2.Incidents[1].Updates[1].Body = "Looking into it."
	edit := event.Diff(cp, p2).Events
	if len(edit) != 1 || edit[0].UpdateID != "u1" {
		t.Fatalf("the edit: %+v", edit)
	}
	e := edit[0]
	if e.Seq != 3 || e.Predecessor != first[1].Key || !e.At.Equal(first[0].At) {
		t.Fatalf("the edit comes third, after u2, at u1's time: seq %d, predecessor %s, at %v", e.Seq, e.Predecessor, e.At)
	}
	if !e.Edit || first[0].Edit || first[1].Edit {
		t.Fatalf("only the correction is an edit: %v %v %v", e.Edit, first[0].Edit, first[1].Edit)
	}
	if !e.CardAt.Equal(ts("2026-03-08T10:05:00Z")) {
		t.Fatalf("the edit's card is as of u2: %v", e.CardAt)
	}
	cp.Apply(edit)
	if cp.Incidents["inc"].Seq != 3 {
		t.Fatalf("the checkpoint keeps the count: %d", cp.Incidents["inc"].Seq)
	}
}

func TestDiffNumbersComponentSteps(t *testing.T) {
	cp := baseline(t)
	seqs := []int{}
	for i, status := range []string{"major_outage", "degraded_performance", "operational"} {
		p := basePage()
		p.Components[1] = comp("api", "API", status, "2026-03-08T10:0"+string(rune('1'+i))+":00Z")
		evs := event.Diff(cp, p).Events
		if len(evs) != 1 {
			t.Fatalf("step %d: %+v", i, evs)
		}
		seqs = append(seqs, evs[0].Seq)
		cp.Apply(evs)
	}
	if seqs[0] != 1 || seqs[1] != 2 || seqs[2] != 3 {
		t.Fatalf("component steps numbered in order: %v", seqs)
	}
}

func TestEpisodeBounds(t *testing.T) {
	for _, tt := range []struct {
		name        string
		e           event.Event
		opens, ends bool
	}{
		{"leaves operational", event.Event{Kind: event.KindComponent, OldStatus: "operational", NewStatus: "partial_outage"}, true, false},
		{"new component, not operational", event.Event{Kind: event.KindComponent, NewStatus: "major_outage"}, true, false},
		{"worse step", event.Event{Kind: event.KindComponent, OldStatus: "degraded_performance", NewStatus: "major_outage"}, false, false},
		{"better step", event.Event{Kind: event.KindComponent, OldStatus: "major_outage", NewStatus: "degraded_performance"}, false, false},
		{"back to operational", event.Event{Kind: event.KindComponent, OldStatus: "degraded_performance", NewStatus: "operational"}, false, true},
		{"incident opened", event.Event{Kind: event.KindIncident, UpdateStatus: "investigating"}, false, false},
		{"incident resolved", event.Event{Kind: event.KindIncident, UpdateStatus: "resolved"}, false, true},
		{"postmortem", event.Event{Kind: event.KindIncident, UpdateStatus: "postmortem"}, false, true},
		{"maintenance completed", event.Event{Kind: event.KindMaintenance, UpdateStatus: "completed"}, false, true},
		{"maintenance in progress", event.Event{Kind: event.KindMaintenance, UpdateStatus: "in_progress"}, false, false},
	} {
		if got := tt.e.OpensEpisode(); got != tt.opens {
			t.Errorf("%s: opens = %v", tt.name, got)
		}
		if got := tt.e.EndsEpisode(); got != tt.ends {
			t.Errorf("%s: ends = %v", tt.name, got)
		}
	}
}
