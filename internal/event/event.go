// Package event turns two views of a status page into the changes worth
// telling subscribers about. Everything here is pure: no I/O, no clock.
package event

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	Predecessor string `json:"predecessor,omitempty"`
	// Seq is the event's place among the events of its OrderKey, counted
	// from 1 as they are handed over: an edited update comes after the
	// updates handed over before it, whatever its timestamp. 0 in events
	// from before it was kept (ordered by At then).
	Seq  int       `json:"seq,omitempty"`
	Kind Kind      `json:"kind"`
	At   time.Time `json:"at"`
	// Notify is false for a change that is only recorded (a component that
	// appeared after the baseline in its normal state).
	Notify  bool   `json:"notify"`
	PageURL string `json:"page_url,omitempty"`
	// Page names the status page the event is of (STATUS_PAGES); empty for
	// the legacy page, whose keys and IDs are today's (pages.Scope).
	// Activities choose the page's fetcher, snapshot and followers by it,
	// not by the key's text.
	Page string `json:"page,omitempty"`
	// Burst is the place (from 1) of a component change among several the
	// same poll found (a large outage), in the order of their tickets;
	// 0: not of a burst. A chat in cards mode hears a burst in few
	// messages.
	Burst int `json:"burst,omitempty"`

	ComponentID    string    `json:"component_id,omitempty"`
	ComponentName  string    `json:"component_name,omitempty"`
	ComponentLabel string    `json:"component_label,omitempty"`
	ComponentGroup string    `json:"component_group,omitempty"`
	OldStatus      string    `json:"old_status,omitempty"`
	NewStatus      string    `json:"new_status,omitempty"`
	StatusSince    time.Time `json:"status_since,omitempty"`

	IncidentID   string `json:"incident_id,omitempty"`
	IncidentName string `json:"incident_name,omitempty"`
	Impact       string `json:"impact,omitempty"`
	UpdateID     string `json:"update_id,omitempty"`
	UpdateStatus string `json:"update_status,omitempty"`
	Body         string `json:"body,omitempty"`
	URL          string `json:"url,omitempty"`
	Version      string `json:"version,omitempty"`
	// Edit: the page changed the text of an update handed over before.
	Edit bool `json:"edit,omitempty"`
	// PrevStatus is the status of the update the page published before
	// this one ("": none, or an event from before it was kept); PrevImpact
	// the incident's impact as last handed over ("": unknown). They decide
	// whether the step is news (notice.News).
	PrevStatus string `json:"prev_status,omitempty"`
	PrevImpact string `json:"prev_impact,omitempty"`
	// Folded are the earlier updates of the story this event tells too,
	// newest first: the same poll found them (FoldStories). Their own
	// events are recorded only.
	Folded []FoldedStep `json:"folded,omitempty"`
	// FoldedMore counts earlier steps told too beyond Folded's bound.
	FoldedMore int `json:"folded_more,omitempty"`
	// FoldedInto is the key of the later event that tells this one.
	FoldedInto   string   `json:"folded_into,omitempty"`
	ComponentIDs []string `json:"component_ids,omitempty"`
	// ComponentNames are the affected components as users read them.
	ComponentNames []string `json:"component_names,omitempty"`
	// CardAt is the time of the newest update of the incident handed over
	// up to and including this one: its card shows the incident as of then
	// (an edit of an old update shows the latest state, not the old one).
	CardAt *time.Time `json:"card_at,omitempty"`
	// WindowStart/WindowEnd: a maintenance's announced window.
	WindowStart *time.Time `json:"window_start,omitempty"`
	WindowEnd   *time.Time `json:"window_end,omitempty"`
	// Reminder is set on the reminder that a maintenance starts soon.
	Reminder *Reminder `json:"reminder,omitempty"`
}

// Summary is a one-line description for operators (Web UI, logs).
func (e Event) Summary() string {
	switch e.Kind {
	case KindComponent:
		return "Component change: " + e.ComponentName + ", " +
			statuspage.Label(e.OldStatus) + " → " + statuspage.Label(e.NewStatus)
	case KindMaintenance:
		if e.Reminder != nil {
			return fmt.Sprintf("Maintenance reminder: %s, starts in %d min", e.IncidentName, int(e.Reminder.Lead/time.Minute))
		}
		return "Maintenance update: " + e.IncidentName + ", " + statuspage.Label(e.UpdateStatus)
	default:
		return "Incident update: " + e.IncidentName + ", " + statuspage.Label(e.UpdateStatus)
	}
}

// Checkpoint is what has been handed over for delivery so far.
type Checkpoint struct {
	// Baseline: both parts of the page are baselined. A part that cannot be
	// read must not keep the other from being watched, so each part has its
	// own flag too (checkpoints from before them have only Baseline).
	Baseline            bool `bson:"baseline" json:"baseline"`
	ComponentsBaselined bool `bson:"components_baselined,omitempty" json:"components_baselined,omitempty"`
	IncidentsBaselined  bool `bson:"incidents_baselined,omitempty" json:"incidents_baselined,omitempty"`
	// Provider that filled the pages this checkpoint saw ("" = statuspage,
	// from before providers). Another provider means other IDs: re-baseline.
	Provider   string                   `bson:"provider,omitempty" json:"provider,omitempty"`
	Components map[string]ComponentMark `bson:"components" json:"components"`
	Incidents  map[string]IncidentMark  `bson:"incidents" json:"incidents"`
	// Intent lists the events of a poll that may have started deliveries
	// but not committed yet; the next poll settles it before diffing.
	Intent []Event `bson:"intent,omitempty" json:"intent,omitempty"`
	// Failing maps a part of the page that cannot be read to when it
	// started failing.
	Failing       map[string]time.Time `bson:"failing,omitempty" json:"failing,omitempty"`
	FailingErrors map[string]string    `bson:"failing_errors,omitempty" json:"failing_errors,omitempty"`
}

type ComponentMark struct {
	// Name and Group identify the component when the page changes its IDs.
	Name      string    `bson:"name,omitempty" json:"name,omitempty"`
	Group     string    `bson:"group,omitempty" json:"group,omitempty"`
	Status    string    `bson:"status" json:"status"`
	UpdatedAt time.Time `bson:"updated_at" json:"updated_at"`
	LastEvent string    `bson:"last_event,omitempty" json:"last_event,omitempty"`
	// Seq of LastEvent (Event.Seq).
	Seq int `bson:"seq,omitempty" json:"seq,omitempty"`
}

type IncidentMark struct {
	// Updates maps an update ID to the content version handed over.
	Updates   map[string]string `bson:"updates" json:"updates"`
	LastEvent string            `bson:"last_event,omitempty" json:"last_event,omitempty"`
	Seq       int               `bson:"seq,omitempty" json:"seq,omitempty"`
	// Impact is the incident's impact as last handed over (Event.PrevImpact).
	Impact string `bson:"impact,omitempty" json:"impact,omitempty"`
}

// Result is what one poll found.
type Result struct {
	// Baseline is set when a part of the page is seen for the first time
	// (or again after a provider change): save it before anything else.
	// Nobody hears of what a baseline records.
	Baseline *Checkpoint
	// Rebaseline: the page is read by another provider than before; the
	// checkpoint was started over.
	Rebaseline bool
	// Events in the order they happened.
	Events []Event
	// Prune lists incidents that left the feed; their marks can go.
	Prune []string
}

// Diff compares the page with the checkpoint. A part seen for the first
// time is baselined; a part that could not be read yields nothing; a
// component missing from the page is neither removed nor changed.
func Diff(cp Checkpoint, p *statuspage.Page) Result {
	var res Result
	if cp.ProviderChanged(p) {
		cp, res.Rebaseline = Checkpoint{}, true
	}
	compsDone, incDone := cp.Baseline || cp.ComponentsBaselined, cp.Baseline || cp.IncidentsBaselined
	compsOK := p.ComponentsErr == ""
	// Maintenances belong to the incident part: a baseline without the full
	// maintenance list would announce every completed one later.
	incOK := p.IncidentsErr == "" && p.MaintenancesErr == ""
	if (!compsDone && compsOK) || (!incDone && incOK) {
		res.Baseline = extendBaseline(cp, p, !compsDone && compsOK, !incDone && incOK)
	}
	var evs []Event
	if compsDone && compsOK {
		evs = append(evs, componentEvents(cp, p)...)
	}
	if incDone {
		// With the list failing, what the summary lists is still news.
		evs = append(evs, incidentEvents(cp, p)...)
	}
	// Prune only when every source of incidents was read, or an incident
	// would be forgotten and announced again.
	if incDone && incOK && compsOK {
		res.Prune = pruned(cp, p)
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if !evs[a].At.Equal(evs[b].At) {
			return evs[a].At.Before(evs[b].At)
		}
		return evs[a].Key < evs[b].Key
	})
	chain(cp, p, evs)
	res.Events = evs
	return res
}

// ProviderChanged reports whether the page was read by another provider
// than the one the checkpoint saw: its IDs are not the checkpoint's.
func (cp Checkpoint) ProviderChanged(p *statuspage.Page) bool {
	return cp.anyBaselined() && cp.provider() != providerOf(p)
}

func (cp Checkpoint) anyBaselined() bool {
	return cp.Baseline || cp.ComponentsBaselined || cp.IncidentsBaselined
}

func (cp Checkpoint) provider() string {
	if cp.Provider == "" {
		return statuspage.ProviderStatuspage
	}
	return cp.Provider
}

func providerOf(p *statuspage.Page) string {
	if p.Provider == "" {
		return statuspage.ProviderStatuspage
	}
	return p.Provider
}

// extendBaseline returns the checkpoint with the named parts recorded as
// they are on the page.
func extendBaseline(cp Checkpoint, p *statuspage.Page, comps, incs bool) *Checkpoint {
	full := Baseline(p)
	next := &Checkpoint{Provider: providerOf(p), Components: cp.Components, Incidents: cp.Incidents,
		ComponentsBaselined: cp.Baseline || cp.ComponentsBaselined, IncidentsBaselined: cp.Baseline || cp.IncidentsBaselined}
	if comps {
		next.Components, next.ComponentsBaselined = full.Components, true
	}
	if incs {
		next.Incidents, next.IncidentsBaselined = full.Incidents, true
	}
	if next.Components == nil {
		next.Components = map[string]ComponentMark{}
	}
	if next.Incidents == nil {
		next.Incidents = map[string]IncidentMark{}
	}
	next.Baseline = next.ComponentsBaselined && next.IncidentsBaselined
	return next
}

func pruned(cp Checkpoint, p *statuspage.Page) []string {
	inFeed := map[string]bool{}
	for _, i := range p.Incidents {
		inFeed[i.ID] = true
	}
	var prune []string
	for id := range cp.Incidents {
		if !inFeed[id] {
			prune = append(prune, id)
		}
	}
	sort.Strings(prune)
	return prune
}

// Baseline records the whole page as already known.
func Baseline(p *statuspage.Page) *Checkpoint {
	cp := &Checkpoint{Baseline: true, ComponentsBaselined: true, IncidentsBaselined: true, Provider: providerOf(p),
		Components: map[string]ComponentMark{}, Incidents: map[string]IncidentMark{}}
	// A listed ID counts once, first row wins, as in Diff.
	for _, c := range p.Components {
		if _, dup := cp.Components[c.ID]; !c.Group && !dup {
			cp.Components[c.ID] = ComponentMark{Name: c.Name, Group: c.GroupName, Status: c.Status, UpdatedAt: c.UpdatedAt}
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
	labels := componentNames(p)
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
		label := labels[c.ID]
		evs = append(evs, Event{
			Key:      "component:" + c.ID + ":" + c.Status + ":" + c.UpdatedAt.UTC().Format(time.RFC3339Nano),
			OrderKey: "component:" + c.ID,
			Kind:     KindComponent,
			At:       c.UpdatedAt,
			// A word the model does not know is recorded, not announced.
			Notify: (known || c.Status != "operational") && statuspage.KnownComponentStatus(c.Status) &&
				(!known || statuspage.KnownComponentStatus(mark.Status) || c.Status != "operational"),
			PageURL:        p.URL,
			ComponentID:    c.ID,
			ComponentName:  c.Name,
			ComponentLabel: label,
			ComponentGroup: c.GroupName,
			OldStatus:      mark.Status,
			NewStatus:      c.Status,
			StatusSince:    c.UpdatedAt,
		})
	}
	return evs
}

func incidentEvents(cp Checkpoint, p *statuspage.Page) []Event {
	names := componentNames(p)
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
		prev := previousStatuses(i.Updates)
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
			at := UpdateAt(u)
			e := incidentTemplate(p, i, names)
			e.Key = "incident:" + i.ID + ":" + u.ID + ":" + v
			e.At, e.Notify = at, true
			e.UpdateID, e.UpdateStatus, e.Body, e.Version = u.ID, u.Status, u.Body, v
			e.Edit = mark.Updates[u.ID] != ""
			e.PrevStatus, e.PrevImpact = prev[u.ID], mark.Impact
			evs = append(evs, e)
		}
	}
	return evs
}

// previousStatuses maps each update to the status of the update published
// just before it ("" for the first).
func previousStatuses(us []statuspage.IncidentUpdate) map[string]string {
	sorted := slices.Clone(us)
	sort.SliceStable(sorted, func(a, b int) bool { return UpdateAt(sorted[a]).Before(UpdateAt(sorted[b])) })
	out := map[string]string{}
	for i, u := range sorted {
		if _, ok := out[u.ID]; ok || i == 0 {
			if i == 0 {
				out[u.ID] = ""
			}
			continue
		}
		out[u.ID] = sorted[i-1].Status
	}
	return out
}

// componentNames maps the page's component IDs to the names the bot shows
// them by everywhere (a component change, an incident's list, its card,
// its timeline): a component's own name, or where two share it ("Login" is
// both an API and a ChatGPT component) the name with its group's, or
// failing that with its ID's start.
func componentNames(p *statuspage.Page) map[string]string {
	names, groupNames := map[string]int{}, map[string]int{}
	for _, c := range p.Components {
		if !c.Group {
			names[c.Name]++
			groupNames[c.Name+"\x00"+c.GroupName]++
		}
	}
	labels := map[string]string{}
	for _, c := range p.Components {
		if c.Group {
			continue
		}
		label := c.Name
		if names[c.Name] > 1 {
			label = c.Name + " (ID: " + shortID(c.ID) + ")"
			if c.GroupName != "" && groupNames[c.Name+"\x00"+c.GroupName] == 1 {
				label = c.Name + " (" + c.GroupName + ")"
			}
		}
		labels[c.ID] = label
	}
	return labels
}

// ComponentNames is componentNames for the card's list of components.
func ComponentNames(p *statuspage.Page) map[string]string { return componentNames(p) }

// incidentTemplate is what every event of an incident (or maintenance)
// says of it, whichever update it is about.
func incidentTemplate(p *statuspage.Page, i statuspage.Incident, componentName map[string]string) Event {
	kind := KindIncident
	if i.IsMaintenance() {
		kind = KindMaintenance
	}
	url := i.Shortlink
	if url == "" {
		url = strings.TrimRight(p.URL, "/") + "/incidents/" + i.ID
	}
	var comps, compNames []string
	for _, c := range i.Components {
		comps = append(comps, c.ID)
		// The page's name for it first: the one its changes and the card's
		// timeline show.
		if n := firstNonEmpty(componentName[c.ID], c.Name); n != "" {
			compNames = append(compNames, n)
		}
	}
	return Event{OrderKey: "incident:" + i.ID, Kind: kind, PageURL: p.URL, IncidentID: i.ID, IncidentName: i.Name,
		Impact: i.Impact, URL: url, ComponentIDs: comps, ComponentNames: compNames,
		WindowStart: i.ScheduledFor, WindowEnd: i.ScheduledUntil}
}

// chain links each event to the previous one of the same OrderKey and
// numbers it (Seq) after the ones handed over before; an incident update
// learns the newest update time handed over up to it (CardAt).
func chain(cp Checkpoint, p *statuspage.Page, evs []Event) {
	last := map[string]string{}
	seq := map[string]int{}
	cardAt := handedOverAt(cp, p)
	for i := range evs {
		e := &evs[i]
		prev, ok := last[e.OrderKey]
		if !ok {
			if e.Kind == KindComponent {
				prev, seq[e.OrderKey] = cp.Components[e.ComponentID].LastEvent, cp.Components[e.ComponentID].Seq
			} else {
				prev, seq[e.OrderKey] = cp.Incidents[e.IncidentID].LastEvent, cp.Incidents[e.IncidentID].Seq
			}
		}
		if e.Kind != KindComponent {
			at := e.At
			if t, ok := cardAt[e.IncidentID]; ok && t.After(at) {
				at = t
			}
			cardAt[e.IncidentID] = at
			e.CardAt = &at
		}
		if e.Notify {
			seq[e.OrderKey]++
			e.Predecessor, e.Seq = prev, seq[e.OrderKey]
			last[e.OrderKey] = e.Key
		}
	}
}

// handedOverAt is, per incident, the newest time of the updates the
// checkpoint says were handed over, as the page shows them.
func handedOverAt(cp Checkpoint, p *statuspage.Page) map[string]time.Time {
	out := map[string]time.Time{}
	for _, i := range p.Incidents {
		mark, ok := cp.Incidents[i.ID]
		if !ok {
			continue
		}
		for _, u := range i.Updates {
			if _, told := mark.Updates[u.ID]; !told {
				continue
			}
			at := UpdateAt(u)
			if at.After(out[i.ID]) {
				out[i.ID] = at
			}
		}
	}
	return out
}

// UpdateAt is when an update was published, as the page shows it.
func UpdateAt(u statuspage.IncidentUpdate) time.Time {
	if u.DisplayAt.IsZero() {
		return u.CreatedAt
	}
	return u.DisplayAt
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
			m := ComponentMark{Name: e.ComponentName, Group: e.ComponentGroup, Status: e.NewStatus, UpdatedAt: e.StatusSince,
				LastEvent: cp.Components[e.ComponentID].LastEvent}
			if e.Notify {
				m.LastEvent, m.Seq = e.Key, e.Seq
			} else {
				m.Seq = cp.Components[e.ComponentID].Seq
			}
			cp.Components[e.ComponentID] = m
			continue
		}
		m := cp.Incidents[e.IncidentID]
		if m.Updates == nil {
			m.Updates = map[string]string{}
		}
		m.Updates[e.UpdateID] = e.Version
		m.LastEvent, m.Seq = e.Key, e.Seq
		if e.Impact != "" {
			m.Impact = e.Impact
		}
		cp.Incidents[e.IncidentID] = m
	}
}

// Accepts reports whether a subscriber with these kinds and component filter
// wants the event. An empty kinds list means the defaults.
func (e Event) Accepts(kinds []Kind, components []string) bool {
	return e.AcceptsKind(kinds) && e.Concerns(components)
}

// AcceptsKind reports whether the event is of a kind the subscriber chose
// (none chosen: the defaults).
func (e Event) AcceptsKind(kinds []Kind) bool {
	if len(kinds) == 0 {
		kinds = DefaultKinds
	}
	return slices.Contains(kinds, e.Kind)
}

// Concerns reports whether the event is about a component of the filter
// (an empty filter: every component). An incident that names no component
// concerns everyone.
func (e Event) Concerns(components []string) bool {
	if len(components) == 0 {
		return true
	}
	switch e.Kind {
	case KindComponent:
		return slices.Contains(components, e.ComponentID) || slices.Contains(components, e.ComponentName)
	default:
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

// OpensEpisode reports whether the event starts a new story of its
// OrderKey: a component leaving operational. An incident's story is the
// incident itself: its first update opens it, whoever hears it first.
func (e Event) OpensEpisode() bool {
	return e.Kind == KindComponent && e.NewStatus != "operational" && (e.OldStatus == "" || e.OldStatus == "operational")
}

// EndsEpisode reports whether the event ends its story: a component back
// to operational, an incident resolved (or its postmortem), a maintenance
// completed.
func (e Event) EndsEpisode() bool {
	if e.Kind == KindComponent {
		return e.NewStatus == "operational"
	}
	switch e.UpdateStatus {
	case "resolved", "postmortem", "completed":
		return true
	}
	return false
}

// DefaultKinds are what /start subscribes to.
var DefaultKinds = []Kind{KindIncident, KindComponent, KindMaintenance}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// ComponentRef names a component independently of its ID.
type ComponentRef struct {
	Name  string
	Group string
}

// Refs are the names the checkpoint knows for its components.
func (cp Checkpoint) Refs() map[string]ComponentRef {
	refs := map[string]ComponentRef{}
	for id, m := range cp.Components {
		if m.Name != "" {
			refs[id] = ComponentRef{Name: m.Name, Group: m.Group}
		}
	}
	return refs
}

// Renames maps the known components that are no longer on the page to the
// page's component of the same name: in the same group when both sides
// know groups, else by name alone when exactly one component has it.
// Ambiguous and vanished components map to nothing.
func Renames(known map[string]ComponentRef, p *statuspage.Page) map[string]string {
	onPage := map[string]bool{}
	byName := map[string][]statuspage.Component{}
	for _, c := range p.Components {
		if c.Group {
			continue
		}
		onPage[c.ID] = true
		k := strings.ToLower(strings.TrimSpace(c.Name))
		byName[k] = append(byName[k], c)
	}
	out := map[string]string{}
	for id, ref := range known {
		if onPage[id] || ref.Name == "" {
			continue
		}
		cands := byName[strings.ToLower(strings.TrimSpace(ref.Name))]
		var match []statuspage.Component
		if ref.Group != "" {
			for _, c := range cands {
				if strings.EqualFold(c.GroupName, ref.Group) {
					match = append(match, c)
				}
			}
		}
		if len(match) == 0 && (ref.Group == "" || len(cands) == 1) {
			match = cands
		}
		if len(match) == 1 {
			out[id] = match[0].ID
		}
	}
	return out
}

// MissingComponents reports whether the page's full component list lacks a
// component the checkpoint knows: its IDs may have changed.
func MissingComponents(cp Checkpoint, p *statuspage.Page) bool {
	if !p.ComponentsComplete || p.ComponentsErr != "" {
		return false
	}
	onPage := map[string]bool{}
	for _, c := range p.Components {
		onPage[c.ID] = true
	}
	for id := range cp.Components {
		if !onPage[id] {
			return true
		}
	}
	return false
}

// RenameComponents moves marks to the components' new IDs.
func (cp *Checkpoint) RenameComponents(renames map[string]string) {
	for old, id := range renames {
		if m, ok := cp.Components[old]; ok {
			if _, taken := cp.Components[id]; !taken {
				cp.Components[id] = m
			}
			delete(cp.Components, old)
		}
	}
}

// IncidentNow is the incident as its newest update shows it, as an event
// of that update would say (without Key, Seq or chain): what a chat's
// choices are read against before the update's own event reaches it.
func IncidentNow(p *statuspage.Page, i statuspage.Incident) Event {
	e := incidentTemplate(p, i, componentNames(p))
	e.Notify = true
	for _, u := range i.Updates {
		if at := UpdateAt(u); e.UpdateID == "" || at.After(e.At) {
			e.At, e.UpdateID, e.UpdateStatus, e.Body = at, u.ID, u.Status, u.Body
		}
	}
	if e.UpdateStatus == "" {
		e.UpdateStatus = i.Status
	}
	return e
}
