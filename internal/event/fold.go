package event

import (
	"slices"
	"time"
	"unicode/utf8"
)

// News, not history: when one poll finds several new updates of one
// incident (its first sight with six updates already posted, a page that
// posted four since the last poll, a worker back after an hour down), a
// chat gets one message for them: the newest, naming the earlier ones.
// The earlier events stay in the poll's events, recorded only (the
// checkpoint marks their updates handed over), so nothing is found again
// and nothing is told twice.

// FoldedStep is an earlier update told in a later event's message.
type FoldedStep struct {
	UpdateID string    `json:"update_id"`
	Key      string    `json:"key"`
	Status   string    `json:"status,omitempty"`
	At       time.Time `json:"at"`
	// Body is the update's text, cut to FoldedBodyLen characters: the
	// event travels in workflow histories.
	Body string `json:"body,omitempty"`
}

// FoldedBodyLen bounds a folded step's text (the card's timeline and the
// page have the rest).
const FoldedBodyLen = 280

// MaxFolded bounds the steps one event carries; older ones are counted
// (FoldedMore), never dropped silently.
const MaxFolded = 40

// FoldStories folds each run of new updates of one incident or
// maintenance in evs (in their order) into the run's last event: it
// carries the others (Folded, newest first), the run's first predecessor
// (the delivery it waits for) and the run's start's PrevStatus; the
// others are recorded only (Notify false, FoldedInto). A correction of an
// update told before (Edit) ends a run and stays its own notice; component
// changes and reminders are left alone. evs is changed in place.
func FoldStories(evs []Event) {
	runs := map[string][]int{} // OrderKey -> indexes of the current run
	closeRun := func(key string) {
		run := runs[key]
		delete(runs, key)
		if len(run) < 2 {
			return
		}
		last := &evs[run[len(run)-1]]
		first := evs[run[0]]
		last.Predecessor, last.PrevStatus, last.PrevImpact = first.Predecessor, first.PrevStatus, first.PrevImpact
		folded := make([]FoldedStep, 0, len(run)-1)
		for k := len(run) - 2; k >= 0; k-- {
			e := &evs[run[k]]
			folded = append(folded, e.AsFolded())
			e.Notify, e.FoldedInto = false, last.Key
		}
		last.Folded = append(folded[:0:0], folded[:min(len(folded), MaxFolded)]...)
		last.FoldedMore = len(folded) - len(last.Folded)
	}
	for i, e := range evs {
		if e.Kind == KindComponent || e.Reminder != nil || !e.Notify || e.OrderKey == "" {
			continue
		}
		if e.Edit {
			closeRun(e.OrderKey)
			continue
		}
		runs[e.OrderKey] = append(runs[e.OrderKey], i)
	}
	keys := make([]string, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		closeRun(k)
	}
}

// AsFolded is e's step as a later event tells it.
func (e Event) AsFolded() FoldedStep {
	return FoldedStep{UpdateID: e.UpdateID, Key: e.Key, Status: e.UpdateStatus, At: e.At, Body: cut(e.Body, FoldedBodyLen)}
}

// Together is how many earlier steps e tells too.
func (e Event) Together() int { return len(e.Folded) + e.FoldedMore }

// cut keeps the first n characters of s, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Since is e as told to a chat that already has the folded step key and
// every step before it (an earlier delivery, sending when e came, told it
// the newest it knew then): only the folded steps after key, judged from
// key's status. e unchanged when it does not fold key.
func (e Event) Since(key string) Event {
	i := slices.IndexFunc(e.Folded, func(f FoldedStep) bool { return f.Key == key })
	if key == "" || i < 0 {
		return e
	}
	told := e.Folded[i]
	e.Folded = append([]FoldedStep(nil), e.Folded[:i]...)
	e.FoldedMore = 0 // older than key: told
	if told.Status != "" {
		e.PrevStatus = told.Status
	}
	return e
}

// Folds says whether e tells the step key in its message.
func (e Event) Folds(key string) bool {
	return key != "" && slices.ContainsFunc(e.Folded, func(f FoldedStep) bool { return f.Key == key })
}
