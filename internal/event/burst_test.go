package event

import (
	"slices"
	"testing"
	"time"
)

func TestMarkBursts(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	comp := func(key string, at time.Time, notify bool) Event {
		return Event{Key: key, Kind: KindComponent, At: at, Notify: notify}
	}
	inc := Event{Key: "incident:x", Kind: KindIncident, At: t0, Notify: true}
	for _, c := range []struct {
		name   string
		events []Event
		want   []int
	}{
		{"one change", []Event{comp("component:a", t0, true), inc}, []int{0, 0}},
		{"in the order of time, then key", []Event{comp("component:b", t0, true), inc, comp("component:a", t0, true), comp("component:0", t0.Add(time.Second), true)},
			[]int{2, 0, 1, 3}},
		{"one recorded only", []Event{comp("component:a", t0, true), comp("component:b", t0, false)}, []int{0, 0}},
		{"none", nil, []int{}},
	} {
		MarkBursts(c.events)
		got := []int{}
		for _, e := range c.events {
			got = append(got, e.Burst)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
