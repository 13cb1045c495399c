package worker

import (
	"slices"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
)

func TestReminderChanges(t *testing.T) {
	now := time.Date(2026, 7, 18, 8, 0, 0, 0, time.UTC)
	up := func(id string, start time.Time) event.Upcoming {
		return event.Upcoming{Start: start, Template: event.Event{IncidentID: id, IncidentName: "Upgrade " + id}}
	}
	a, b := up("a", now.Add(time.Hour)), up("b", now.Add(2*time.Hour))
	moved := up("a", now.Add(3*time.Hour))
	started := up("c", now.Add(-time.Minute))
	told := map[string]string{"a": a.Signature(), "c": started.Signature(), "gone": "x"}
	for _, tc := range []struct {
		name      string
		scheduled []event.Upcoming
		complete  bool
		tell      []string
		cancel    []string
	}{
		{"idle: nothing to tell", []event.Upcoming{a, started}, true, nil, []string{"gone"}},
		{"a new window is told", []event.Upcoming{a, b, started}, true, []string{"b"}, []string{"gone"}},
		{"a moved window is told", []event.Upcoming{moved, started}, true, []string{"a"}, []string{"gone"}},
		{"not scheduled any more: cancelled", nil, true, nil, []string{"a", "c", "gone"}},
		{"list not read: nothing cancelled", nil, false, nil, nil},
		{"a start already passed is not told", []event.Upcoming{up("d", now)}, false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tell, cancel := reminderChanges(told, tc.scheduled, now, tc.complete)
			var ids []string
			for _, u := range tell {
				ids = append(ids, u.Template.IncidentID)
			}
			slices.Sort(cancel)
			if !slices.Equal(ids, tc.tell) || !slices.Equal(cancel, tc.cancel) {
				t.Fatalf("tell %v cancel %v, want %v %v", ids, cancel, tc.tell, tc.cancel)
			}
		})
	}
}
