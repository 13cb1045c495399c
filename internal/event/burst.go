package event

import (
	"cmp"
	"slices"
	"time"
)

// MarkBursts numbers the component changes to notify of when one poll
// found several of them (a large outage: many components at once), in the
// order of their time and key (the order of their sends' tickets), so
// that chats in cards mode get them gathered into few messages, in order.
func MarkBursts(events []Event) {
	var burst []int
	for i, e := range events {
		events[i].Burst = 0
		if e.Kind == KindComponent && e.Notify {
			burst = append(burst, i)
		}
	}
	if len(burst) < 2 {
		return
	}
	slices.SortStableFunc(burst, func(a, b int) int {
		return cmp.Or(events[a].At.UTC().Truncate(time.Millisecond).Compare(events[b].At.UTC().Truncate(time.Millisecond)),
			cmp.Compare(events[a].Key+"|", events[b].Key+"|")) // as in the tickets
	})
	for n, i := range burst {
		events[i].Burst = n + 1
	}
}
