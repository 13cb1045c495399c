package importer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Fate is what an import does with one previous subscriber's key.
type Fate int

const (
	Create  Fate = iota // not known here: written
	Present             // subscribed here: left exactly as it is
	Left                // the chat left here since (a stop, a removal, a move): not subscribed again
)

// Entry is one key of the previous subscribers and what becomes of it.
type Entry struct {
	Key  string
	Sub  store.Subscriber // what the import writes (its records merged)
	IDs  []string         // the records' _ids, as stored
	Fate Fate
	Why  string // Left: what the chat did here
}

// Plan is what an import does, decided before anything is written, so a
// dry run reports what the import then does.
type Plan struct {
	Entries []Entry // in key order
	Report  Report
}

// PlanImport decides every previous subscriber's fate against what the
// bot knows (state). What the bot learned since wins over the previous
// bot's record: a subscription here is left as it is, and a key that
// stopped, was removed, moved or was imported before is not subscribed
// again. Records of one chat stored twice (a numeric and a string _id)
// become one subscription with what both asked for, reported.
func PlanImport(subs []Previous, old map[string]OldComponent, today []statuspage.Component, state store.ImportState, now time.Time) Plan {
	p := Plan{Report: Report{Read: len(subs)}}
	type records struct {
		ids  []string
		subs []store.Subscriber
	}
	byKey := map[string]*records{}
	reported := map[Problem]bool{} // a duplicate's filter is reported once
	note := func(list *[]Problem, pr Problem) {
		if !reported[pr] {
			reported[pr] = true
			*list = append(*list, pr)
		}
	}
	for _, prev := range subs {
		if prev.Err != "" {
			p.Report.Invalid = append(p.Report.Invalid, Problem{Key: prev.Key, Entry: prev.ID, Why: prev.Err})
			continue
		}
		sub, m, unknown, err := Subscription(prev, old, today, now)
		if err != nil {
			p.Report.Invalid = append(p.Report.Invalid, Problem{Key: prev.Key, Entry: prev.ID, Why: err.Error()})
			continue
		}
		p.Report.ByID += m.ByID
		p.Report.ByName += m.ByName
		for _, u := range m.Unmapped {
			note(&p.Report.Unmapped, Problem{Key: sub.Key, Entry: u.Entry, Why: u.Why})
		}
		for _, t := range unknown {
			note(&p.Report.Types, Problem{Key: sub.Key, Entry: t, Why: "unknown notification type, left out"})
		}
		r := byKey[sub.Key]
		if r == nil {
			r = &records{}
			byKey[sub.Key] = r
		}
		r.ids = append(r.ids, prev.ID)
		r.subs = append(r.subs, sub)
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := byKey[k]
		e := Entry{Key: k, Sub: r.subs[0], IDs: r.ids}
		if len(r.subs) > 1 {
			var why string
			e.Sub, why = merge(r.ids, r.subs)
			p.Report.Merged = append(p.Report.Merged, Problem{Key: k, Why: why})
		}
		e.Fate, e.Why = fateOf(k, state)
		switch e.Fate {
		case Create:
			p.Report.Created++
		case Present:
			p.Report.Present++
		case Left:
			p.Report.Left = append(p.Report.Left, Problem{Key: k, Why: e.Why})
		}
		p.Entries = append(p.Entries, e)
	}
	return p
}

// fateOf: a subscription here wins; then what the chat did here; then an
// earlier import's record (kept settings and moves expire, it does not).
func fateOf(key string, state store.ImportState) (Fate, string) {
	if state.Subscribed[key] {
		return Present, ""
	}
	if at, ok := state.Stopped[key]; ok {
		return Left, "stopped here on " + day(at) + " (/stop, or the bot was removed from the chat): not subscribed again"
	}
	if to, ok := state.Moved[key]; ok {
		return Left, "moved here to " + to + " (the group became a supergroup): not subscribed again under its old ID"
	}
	if at, ok := state.Imported[key]; ok {
		return Left, "imported on " + day(at) + " and unsubscribed here since (/stop, or the bot removed or blocked): not subscribed again"
	}
	return Create, ""
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// merge is one subscription for records of the same chat: the previous
// bot sent each record its notices, so the chat received what either
// asked for; the union keeps that (a filter that is empty in one record
// is every component).
func merge(ids []string, subs []store.Subscriber) (store.Subscriber, string) {
	out := subs[0]
	same := true
	var incident, component, maintenance, everyComponent bool
	var components []string
	var shown []string
	for i, s := range subs {
		shown = append(shown, fmt.Sprintf("_id %s: types %s, filter %s", ids[i], kindList(s.Kinds), filterList(s.Components)))
		if !slices.Equal(kindStrings(s.Kinds), kindStrings(out.Kinds)) || !slices.Equal(sorted(s.Components), sorted(out.Components)) {
			same = false
		}
		for _, k := range s.Kinds {
			incident = incident || k == event.KindIncident
			component = component || k == event.KindComponent
			maintenance = maintenance || k == event.KindMaintenance
		}
		everyComponent = everyComponent || len(s.Components) == 0
		for _, c := range s.Components {
			if !slices.Contains(components, c) {
				components = append(components, c)
			}
		}
	}
	if same {
		return out, fmt.Sprintf("stored %d times (%s), the same settings: imported once", len(subs), strings.Join(quoteIDs(ids), ", "))
	}
	if everyComponent {
		components = []string{}
	}
	out.Components = components
	switch {
	case incident && component || maintenance:
		out.Kinds = slices.Clone(event.DefaultKinds)
	case incident:
		out.Kinds = []event.Kind{event.KindIncident}
	default:
		out.Kinds = []event.Kind{event.KindComponent}
	}
	return out, fmt.Sprintf("stored %d times with different settings (%s): imported once with what either asked for, types %s, filter %s (the previous bot sent each record its notices)",
		len(subs), strings.Join(shown, "; "), kindList(out.Kinds), filterList(out.Components))
}

func quoteIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "_id " + id
	}
	return out
}

func kindList(kinds []event.Kind) string { return "[" + strings.Join(kindStrings(kinds), " ") + "]" }

func filterList(ids []string) string {
	if len(ids) == 0 {
		return "none (every component)"
	}
	return "[" + strings.Join(ids, " ") + "]"
}
