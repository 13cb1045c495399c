package telegram

import (
	"slices"
	"time"
)

// ChatBudget is Telegram's limit on the Bot API calls that post or change
// messages in one chat (apis.md: about one a second in a chat, 20 a
// minute in a group or channel; edits and pins count like messages), with
// a margin: Telegram measures arrivals, the caller departures.
type ChatBudget struct {
	Interval  time.Duration // between two calls in the chat
	PerMinute int           // calls in any minute; 0: no such limit
}

// Budgets with their margins.
var (
	privateBudget = ChatBudget{Interval: 1050 * time.Millisecond}
	groupBudget   = ChatBudget{Interval: 1050 * time.Millisecond, PerMinute: 19}
)

// BudgetOf is the budget of a chat: groups, supergroups and channels have
// negative IDs.
func BudgetOf(chatID int64) ChatBudget {
	if chatID < 0 {
		return groupBudget
	}
	return privateBudget
}

// Slot is when a call may start at the earliest (now or later), after the
// calls already made (calls, oldest first) and ahead more calls that go
// first, each at its own earliest slot.
func (b ChatBudget) Slot(calls []time.Time, ahead int, now time.Time) time.Time {
	calls = slices.Clone(calls)
	for {
		at := now
		if n := len(calls); n > 0 {
			at = later(at, calls[n-1].Add(b.Interval))
			if b.PerMinute > 0 && n >= b.PerMinute {
				at = later(at, calls[n-b.PerMinute].Add(time.Minute))
			}
		}
		if ahead == 0 {
			return at
		}
		calls = append(calls, at)
		ahead--
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
