// Package event turns two views of a status page into the changes worth
// telling subscribers about. Everything here is pure: no I/O, no clock.
package event

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Kind is what an event is about; subscribers choose kinds.
type Kind string

const (
	KindIncident    Kind = "incident"
	KindComponent   Kind = "component"
	KindMaintenance Kind = "maintenance"
)

// Kinds lists every kind in the order users read them.
var Kinds = []Kind{KindIncident, KindComponent, KindMaintenance}

// Event is one change to deliver: a component status change or one new or
// edited incident (or maintenance) update.
type Event struct {
	Key string `json:"key"`
	// OrderKey groups events that every subscriber must get in order:
	// the updates of one incident, the changes of one component.
	OrderKey string `json:"order_key"`
	// Predecessor is the key of the previous event with the same OrderKey
	// (empty for the first), so its delivery can wait for that one.
	Predecessor string    `json:"predecessor,omitempty"`
	Kind        Kind      `json:"kind"`
	At          time.Time `json:"at"`
	// Notify is false for a change that is only recorded (a component that
	// appeared after the baseline in its normal state).
	Notify  bool   `json:"notify"`
	PageURL string `json:"page_url,omitempty"`

	ComponentID    string    `json:"component_id,omitempty"`
	ComponentName  string    `json:"component_name,omitempty"`
	ComponentLabel string    `json:"component_label,omitempty"`
	OldStatus      string    `json:"old_status,omitempty"`
	NewStatus      string    `json:"new_status,omitempty"`
	StatusSince    time.Time `json:"status_since,omitempty"`

	IncidentID   string   `json:"incident_id,omitempty"`
	IncidentName string   `json:"incident_name,omitempty"`
	Impact       string   `json:"impact,omitempty"`
	UpdateID     string   `json:"update_id,omitempty"`
	UpdateStatus string   `json:"update_status,omitempty"`
	Body         string   `json:"body,omitempty"`
	URL          string   `json:"url,omitempty"`
	Version      string   `json:"version,omitempty"`
	ComponentIDs []string `json:"component_ids,omitempty"`
}

// Summary is a one-line description for operators (Web UI, logs).
func (e Event) Summary() string {
	switch e.Kind {
	case KindComponent:
		return "Component change: " + e.ComponentName + ", " +
			statuspage.Label(e.OldStatus) + " → " + statuspage.Label(e.NewStatus)
	case KindMaintenance:
		return "Maintenance update: " + e.IncidentName + ", " + statuspage.Label(e.UpdateStatus)
	default:
		return "Incident update: " + e.IncidentName + ", " + statuspage.Label(e.UpdateStatus)
	}
}

// Checkpoint is what has been handed over for delivery so far.
type Checkpoint struct {
	Baseline   bool                     `bson:"baseline" json:"baseline"`
	Components map[string]ComponentMark `bson:"components" json:"components"`
	Incidents  map[string]IncidentMark  `bson:"incidents" json:"incidents"`
	// Intent lists the events of a poll that may have started deliveries
	// but not committed yet; the next poll settles it before diffing.
	Intent []Event `bson:"intent,omitempty" json:"intent,omitempty"`
}

type ComponentMark struct {
	Status    string    `bson:"status" json:"status"`
	UpdatedAt time.Time `bson:"updated_at" json:"updated_at"`
	LastEvent string    `bson:"last_event,omitempty" json:"last_event,omitempty"`
}

type IncidentMark struct {
	// Updates maps an update ID to the content version handed over.
	Updates   map[string]string `bson:"updates" json:"updates"`
	LastEvent string            `bson:"last_event,omitempty" json:"last_event,omitempty"`
}

// Result is what one poll found.
type Result struct {
	// Baseline is set on the first successful poll: record it, tell no one.
	Baseline *Checkpoint
	// Events in the order they happened.
	Events []Event
	// Prune lists incidents that left the feed; their marks can go.
	Prune []string
}

// Diff compares the page with the checkpoint.
func Diff(cp Checkpoint, p *statuspage.Page) Result {
	if !cp.Baseline {
		if p.ComponentsErr != "" || p.IncidentsErr != "" || p.MaintenancesErr != "" {
			// A baseline from part of a page would announce the rest as new.
			return Result{}
		}
		return Result{Baseline: Baseline(p)}
	}
	var evs []Event
	if p.ComponentsErr == "" {
		evs = append(evs, componentEvents(cp, p)...)
	}
	var prune []string
	if p.IncidentsErr == "" {
		evs = append(evs, incidentEvents(cp, p)...)
	}
	// Maintenances come from summary.json and scheduled-maintenances.json:
	// prune only when every endpoint was read, or a maintenance would be
	// forgotten and announced again.
	if p.IncidentsErr == "" && p.ComponentsErr == "" && p.MaintenancesErr == "" {
		inFeed := map[string]bool{}
		for _, i := range p.Incidents {
			inFeed[i.ID] = true
		}
		for id := range cp.Incidents {
			if !inFeed[id] {
				prune = append(prune, id)
			}
		}
		sort.Strings(prune)
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if !evs[a].At.Equal(evs[b].At) {
			return evs[a].At.Before(evs[b].At)
		}
		return evs[a].Key < evs[b].Key
	})
	chain(cp, evs)
	return Result{Events: evs, Prune: prune}
}

// Baseline records the page as already known.
func Baseline(p *statuspage.Page) *Checkpoint {
	cp := &Checkpoint{Baseline: true, Components: map[string]ComponentMark{}, Incidents: map[string]IncidentMark{}}
	// A listed ID counts once, first row wins, as in Diff.
	for _, c := range p.Components {
		if _, dup := cp.Components[c.ID]; !c.Group && !dup {
			cp.Components[c.ID] = ComponentMark{Status: c.Status, UpdatedAt: c.UpdatedAt}
		}
	}
	for _, i := range p.Incidents {
		if _, dup := cp.Incidents[i.ID]; dup {
			continue
		}
		m := IncidentMark{Updates: map[string]string{}}
		for _, u := range i.Updates {
			if _, dup := m.Updates[u.ID]; !dup {
				m.Updates[u.ID] = Version(u)
			}
		}
		cp.Incidents[i.ID] = m
	}
	return cp
}

func componentEvents(cp Checkpoint, p *statuspage.Page) []Event {
	names := map[string]int{}
	for _, c := range p.Components {
		if !c.Group {
			names[c.Name]++
		}
	}
	var evs []Event
	seen := map[string]bool{}
	for _, c := range p.Components {
		if c.Group || c.ID == "" || seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		mark, known := cp.Components[c.ID]
		if known && mark.Status == c.Status {
			continue
		}
		label := c.Name
		if names[c.Name] > 1 {
			label = c.Name + " (ID: " + shortID(c.ID) + ")"
		}
		evs = append(evs, Event{
			Key:            "component:" + c.ID + ":" + c.Status + ":" + c.UpdatedAt.UTC().Format(time.RFC3339Nano),
			OrderKey:       "component:" + c.ID,
			Kind:           KindComponent,
			At:             c.UpdatedAt,
			Notify:         known || c.Status != "operational",
			PageURL:        p.URL,
			ComponentID:    c.ID,
			ComponentName:  c.Name,
			ComponentLabel: label,
			OldStatus:      mark.Status,
			NewStatus:      c.Status,
			StatusSince:    c.UpdatedAt,
		})
	}
	return evs
}

func incidentEvents(cp Checkpoint, p *statuspage.Page) []Event {
	var evs []Event
	seen := map[string]bool{}
	for _, i := range p.Incidents {
		// An ID listed twice counts once (first wins), as in Baseline:
		// otherwise the copies would be announced on every poll.
		if seen[i.ID] {
			continue
		}
		seen[i.ID] = true
		mark := cp.Incidents[i.ID]
		kind := KindIncident
		if i.IsMaintenance() {
			kind = KindMaintenance
		}
		url := i.Shortlink
		if url == "" {
			url = strings.TrimRight(p.URL, "/") + "/incidents/" + i.ID
		}
		var comps []string
		for _, c := range i.Components {
			comps = append(comps, c.ID)
		}
		seenU := map[string]bool{}
		for _, u := range i.Updates {
			if seenU[u.ID] {
				continue
			}
			seenU[u.ID] = true
			v := Version(u)
			if mark.Updates[u.ID] == v {
				continue
			}
			at := u.DisplayAt
			if at.IsZero() {
				at = u.CreatedAt
			}
			evs = append(evs, Event{
				Key:          "incident:" + i.ID + ":" + u.ID + ":" + v,
				OrderKey:     "incident:" + i.ID,
				Kind:         kind,
				At:           at,
				Notify:       true,
				PageURL:      p.URL,
				IncidentID:   i.ID,
				IncidentName: i.Name,
				Impact:       i.Impact,
				UpdateID:     u.ID,
				UpdateStatus: u.Status,
				Body:         u.Body,
				URL:          url,
				Version:      v,
				ComponentIDs: comps,
			})
		}
	}
	return evs
}

// chain links each event to the previous one of the same OrderKey.
func chain(cp Checkpoint, evs []Event) {
	last := map[string]string{}
	for i := range evs {
		e := &evs[i]
		prev, ok := last[e.OrderKey]
		if !ok {
			if e.Kind == KindComponent {
				prev = cp.Components[e.ComponentID].LastEvent
			} else {
				prev = cp.Incidents[e.IncidentID].LastEvent
			}
		}
		if e.Notify {
			e.Predecessor = prev
			last[e.OrderKey] = e.Key
		}
	}
}

// Version identifies an update's content. updated_at is left out on
// purpose: Statuspage refreshes it without changing anything users see.
func Version(u statuspage.IncidentUpdate) string {
	h := sha256.New()
	for _, s := range []string{u.Status, u.Body, u.DisplayAt.UTC().Format(time.RFC3339Nano), u.CreatedAt.UTC().Format(time.RFC3339Nano)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Apply records handed-over events in the checkpoint, as the store does.
func (cp *Checkpoint) Apply(evs []Event) {
	if cp.Components == nil {
		cp.Components = map[string]ComponentMark{}
	}
	if cp.Incidents == nil {
		cp.Incidents = map[string]IncidentMark{}
	}
	for _, e := range evs {
		if e.Kind == KindComponent {
			m := ComponentMark{Status: e.NewStatus, UpdatedAt: e.StatusSince, LastEvent: cp.Components[e.ComponentID].LastEvent}
			if e.Notify {
				m.LastEvent = e.Key
			}
			cp.Components[e.ComponentID] = m
			continue
		}
		m := cp.Incidents[e.IncidentID]
		if m.Updates == nil {
			m.Updates = map[string]string{}
		}
		m.Updates[e.UpdateID] = e.Version
		m.LastEvent = e.Key
		cp.Incidents[e.IncidentID] = m
	}
}

// Accepts reports whether a subscriber with these kinds and component filter
// wants the event. An empty kinds list means the defaults.
func (e Event) Accepts(kinds []Kind, components []string) bool {
	if len(kinds) == 0 {
		kinds = DefaultKinds
	}
	if !slices.Contains(kinds, e.Kind) {
		return false
	}
	if len(components) == 0 {
		return true
	}
	switch e.Kind {
	case KindComponent:
		return slices.Contains(components, e.ComponentID) || slices.Contains(components, e.ComponentName)
	default:
		// An incident that names no component concerns everyone.
		if len(e.ComponentIDs) == 0 {
			return true
		}
		for _, id := range e.ComponentIDs {
			if slices.Contains(components, id) {
				return true
			}
		}
		return false
	}
}

// DefaultKinds are what /start subscribes to.
var DefaultKinds = []Kind{KindIncident, KindComponent, KindMaintenance}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
