package event_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func outage(n int, from int, statuses ...string) statuspage.Incident {
	inc := statuspage.Incident{ID: "gh", Name: "Incident with GitHub.com", Status: "investigating", Impact: "critical"}
	t0 := ts("2026-08-17T10:00:00Z")
	for i := from; i < n; i++ {
		st := "investigating"
		if i < len(statuses) && statuses[i] != "" {
			st = statuses[i]
		}
		inc.Updates = append(inc.Updates, statuspage.IncidentUpdate{ID: fmt.Sprintf("u%d", i), Status: st, Body: fmt.Sprintf("update %d", i),
			CreatedAt: t0.Add(time.Duration(i) * 10 * time.Minute), DisplayAt: t0.Add(time.Duration(i) * 10 * time.Minute)})
	}
	inc.Status = inc.Updates[len(inc.Updates)-1].Status
	return inc
}

func notified(evs []event.Event) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if e.Notify {
			out = append(out, e)
		}
	}
	return out
}

// The first sight of an incident with six updates is one notice: the
// newest, telling the five before it (newest first); the poll with four
// more is one notice waiting for the one before; every update is recorded.
func TestFoldStories(t *testing.T) {
	cp := baseline(t)
	p := basePage()
	p.Incidents = append(p.Incidents, outage(6, 0))
	r := event.Diff(cp, p)
	event.FoldStories(r.Events)
	got := notified(r.Events)
	if len(got) != 1 || len(r.Events) != 6 {
		t.Fatalf("first sight: %d notices of %d events, want 1 of 6", len(got), len(r.Events))
	}
	first := got[0]
	if first.UpdateID != "u5" || first.Predecessor != "" || first.Together() != 5 || first.Folded[0].UpdateID != "u4" || first.Folded[4].UpdateID != "u0" {
		t.Fatalf("first sight: %+v", first)
	}
	for _, e := range r.Events[:5] {
		if e.FoldedInto != first.Key {
			t.Fatalf("%s folded into %q, want %s", e.Key, e.FoldedInto, first.Key)
		}
	}
	cp.Apply(r.Events)
	if again := event.Diff(cp, p); len(again.Events) != 0 {
		t.Fatalf("found again: %v", keys(again.Events))
	}

	p.Incidents[len(p.Incidents)-1] = outage(10, 0, "", "", "", "", "", "", "", "identified")
	r = event.Diff(cp, p)
	event.FoldStories(r.Events)
	got = notified(r.Events)
	if len(got) != 1 {
		t.Fatalf("four new updates: %d notices, want 1", len(got))
	}
	e := got[0]
	if e.UpdateID != "u9" || e.Predecessor != first.Key || e.Together() != 3 || e.PrevStatus != "investigating" || e.Seq != 10 {
		t.Fatalf("four new updates: %+v", e)
	}
	cp.Apply(r.Events)
	if cp.Incidents["gh"].LastEvent != e.Key || cp.Incidents["gh"].Impact != "critical" {
		t.Fatalf("checkpoint: %+v", cp.Incidents["gh"])
	}
}

// A correction of an update told before stays its own notice, between the
// runs it splits; component changes are left alone.
func TestFoldStoriesKeepsCorrectionsAndComponents(t *testing.T) {
	at := ts("2026-08-17T10:00:00Z")
	inc := func(key string, i int, edit bool) event.Event {
		return event.Event{Key: key, OrderKey: "incident:x", Kind: event.KindIncident, Notify: true, At: at.Add(time.Duration(i) * time.Minute), UpdateID: key, Edit: edit}
	}
	evs := []event.Event{inc("a", 0, false), inc("b", 1, false), {Key: "c1", OrderKey: "component:c", Kind: event.KindComponent, Notify: true},
		{Key: "c2", OrderKey: "component:c", Kind: event.KindComponent, Notify: true}, inc("e", 2, true), inc("f", 3, false), inc("g", 4, false)}
	evs[1].Predecessor, evs[4].Predecessor, evs[5].Predecessor, evs[6].Predecessor = "a", "b", "e", "f"
	event.FoldStories(evs)
	var told []string
	for _, e := range evs {
		if e.Notify {
			told = append(told, e.Key+"<"+e.Predecessor)
		}
	}
	if want := []string{"b<", "c1<", "c2<", "e<b", "g<e"}; !slices.Equal(told, want) {
		t.Fatalf("told %v, want %v", told, want)
	}
}

// Whatever the events, every incident step is told once: by its own
// notice or named in exactly one later notice of its story, and the
// notices of a story chain to each other in order.
func FuzzFoldStories(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 1, 0})
	f.Add([]byte{3, 3, 3, 7, 0, 11})
	f.Add(make([]byte, 60)) // one run longer than MaxFolded
	f.Fuzz(func(t *testing.T, spec []byte) {
		if len(spec) > 200 {
			return
		}
		last := map[string]string{}
		var evs []event.Event
		for i, b := range spec {
			story := fmt.Sprintf("incident:%d", b%3)
			kind := event.KindIncident
			if b%7 == 6 {
				kind, story = event.KindComponent, fmt.Sprintf("component:%d", b%3)
			}
			e := event.Event{Key: fmt.Sprintf("k%d", i), OrderKey: story, Kind: kind, Notify: b%11 != 10, Edit: b%5 == 4, UpdateID: fmt.Sprintf("u%d", i)}
			if e.Notify {
				e.Predecessor, last[story] = last[story], e.Key
			}
			evs = append(evs, e)
		}
		before, _ := json.Marshal(evs)
		var orig []event.Event
		_ = json.Unmarshal(before, &orig)
		event.FoldStories(evs)
		named := map[string]int{}
		counted := 0 // steps beyond MaxFolded, counted in their notice
		prevNotice := map[string]string{}
		firstPred := map[string]string{}
		for _, e := range orig {
			if _, ok := firstPred[e.OrderKey]; !ok && e.Notify {
				firstPred[e.OrderKey] = e.Predecessor
			}
		}
		for i, e := range evs {
			if !orig[i].Notify {
				if e.Notify || e.FoldedInto != "" {
					t.Fatalf("an event recorded only became a notice: %+v", e)
				}
				continue
			}
			if e.Notify {
				named[e.Key]++
				for _, s := range e.Folded {
					named[s.Key]++
				}
				counted += e.FoldedMore
				want, ok := prevNotice[e.OrderKey]
				if !ok {
					want = firstPred[e.OrderKey]
				}
				if e.Predecessor != want {
					t.Fatalf("%s waits for %q, want %q", e.Key, e.Predecessor, want)
				}
				prevNotice[e.OrderKey] = e.Key
			} else if e.FoldedInto == "" || e.Kind == event.KindComponent {
				t.Fatalf("a step neither told nor folded: %+v", e)
			}
		}
		unnamed := 0
		for i, e := range orig {
			switch {
			case e.Notify && named[e.Key] == 0:
				unnamed++
			case e.Notify && named[e.Key] != 1:
				t.Fatalf("step %d (%s) told %d times", i, e.Key, named[e.Key])
			}
		}
		if unnamed != counted {
			t.Fatalf("%d steps not named, %d counted", unnamed, counted)
		}
	})
}

// A chat an earlier delivery told some of the folded steps (it was
// sending when they came) is told only the steps after them.
func TestSince(t *testing.T) {
	step := func(k, st string) event.FoldedStep { return event.FoldedStep{Key: k, Status: st} }
	e := event.Event{Key: "u5", PrevStatus: "investigating", FoldedMore: 3,
		Folded: []event.FoldedStep{step("u4", "monitoring"), step("u3", "identified"), step("u2", "investigating")}}
	keys := func(e event.Event) []string {
		var out []string
		for _, f := range e.Folded {
			out = append(out, f.Key)
		}
		return out
	}
	for _, c := range []struct {
		told     string
		want     []string
		more     int
		prev     string
		foldsKey bool
	}{
		{"", []string{"u4", "u3", "u2"}, 3, "investigating", false},
		{"u1", []string{"u4", "u3", "u2"}, 3, "investigating", false}, // the step before the first folded: all new
		{"u2", []string{"u4", "u3"}, 0, "investigating", true},
		{"u3", []string{"u4"}, 0, "identified", true},
		{"u4", nil, 0, "monitoring", true},
	} {
		got := e.Since(c.told)
		if !slices.Equal(keys(got), c.want) || got.FoldedMore != c.more || got.PrevStatus != c.prev || e.Folds(c.told) != c.foldsKey {
			t.Errorf("Since(%q) = %v more %d prev %q (folds %v), want %v more %d prev %q (folds %v)", c.told, keys(got), got.FoldedMore, got.PrevStatus,
				e.Folds(c.told), c.want, c.more, c.prev, c.foldsKey)
		}
	}
	if len(e.Folded) != 3 || e.FoldedMore != 3 {
		t.Errorf("Since changed its receiver: %v", keys(e))
	}
}
