package statuspage

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// Pure normalization of incident.io's native shapes into the model: no I/O.

// NormalizeComponentStatus maps a native component status to the model's
// words: full_outage is Statuspage's major_outage. Unknown words stay as
// they are (shown as text, never a crash).
func NormalizeComponentStatus(s string) string {
	s = strings.TrimSpace(s)
	switch s {
	case "full_outage":
		return "major_outage"
	case "":
		return "operational"
	}
	return s
}

// NormalizeIncidentStatus maps native incident and maintenance statuses to
// the model's (Statuspage's) words.
func NormalizeIncidentStatus(s string) string {
	switch s = strings.TrimSpace(s); s {
	case "maintenance_scheduled":
		return "scheduled"
	case "maintenance_in_progress":
		return "in_progress"
	case "maintenance_complete", "maintenance_completed":
		return "completed"
	}
	return s
}

// ParseTime reads an ISO 8601 time with any number of fraction digits and
// any offset, in UTC; the zero time when it cannot.
func ParseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// MendURL repairs the double slash incident.io puts before /incidents/.
func MendURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	for strings.Contains(rest, "//") {
		rest = strings.ReplaceAll(rest, "//", "/")
	}
	return scheme + "://" + rest
}

// ioNode is a ProseMirror node, or the mrkdwn wrapper around one.
type ioNode struct {
	Type     string   `json:"type"`
	Text     string   `json:"text"`
	Content  []ioNode `json:"content"`
	TextNode *ioNode  `json:"text_node"`
	Markdown string   `json:"markdown"`
}

// PlainText renders a message tree as plain text, paragraphs separated by
// a blank line, list items on their own lines.
func (n *ioNode) PlainText() string {
	if n == nil {
		return ""
	}
	if n.TextNode != nil {
		return n.TextNode.PlainText()
	}
	if n.Type == "" && len(n.Content) == 0 {
		return strings.TrimSpace(n.Markdown)
	}
	var blocks []string
	n.blocks(&blocks)
	return strings.TrimSpace(strings.Join(blocks, "\n\n"))
}

func (n *ioNode) blocks(out *[]string) {
	switch n.Type {
	case "doc", "bulletList", "bullet_list", "orderedList", "ordered_list", "blockquote", "":
		for i := range n.Content {
			c := &n.Content[i]
			if c.Type == "listItem" || c.Type == "list_item" {
				*out = append(*out, "• "+strings.TrimSpace(c.inline()))
				continue
			}
			c.blocks(out)
		}
	default:
		if t := strings.TrimSpace(n.inline()); t != "" {
			*out = append(*out, t)
		}
	}
}

func (n *ioNode) inline() string {
	switch n.Type {
	case "text":
		return n.Text
	case "hardBreak", "hard_break":
		return "\n"
	}
	var b strings.Builder
	for i := range n.Content {
		if i > 0 && isBlock(n.Content[i].Type) {
			b.WriteString("\n")
		}
		b.WriteString(n.Content[i].inline())
	}
	return b.String()
}

func isBlock(t string) bool {
	return t == "paragraph" || t == "heading" || t == "listItem" || t == "list_item"
}

// updateText is an update's text: message_string, else the tree.
func updateText(u ioUpdate) string {
	if s := strings.TrimSpace(u.MessageString); s != "" {
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return u.Message.PlainText()
}

func componentNames(comps []ioComponent) map[string]string {
	names := make(map[string]string, len(comps))
	for _, c := range comps {
		names[c.ID] = c.Name
	}
	return names
}

// impactWord turns the worst component status an incident set into
// Statuspage's impact words.
func impactWord(in ioIncident) string {
	if in.Type == "maintenance" {
		return "maintenance"
	}
	worst := 0
	for _, a := range in.AffectedComponents {
		worst = max(worst, severity(NormalizeComponentStatus(a.Status)))
	}
	for _, im := range in.ComponentImpacts {
		worst = max(worst, severity(NormalizeComponentStatus(im.Status)))
	}
	return [...]string{"none", "minor", "major", "critical"}[worst]
}

func severity(status string) int {
	switch status {
	case "degraded_performance":
		return 1
	case "partial_outage":
		return 2
	case "major_outage":
		return 3
	}
	return 0
}

func normalizeIncident(in ioIncident, pageURL string, names map[string]string) Incident {
	out := Incident{
		ID: in.ID, Name: strings.TrimSpace(in.Name), Status: NormalizeIncidentStatus(in.Status),
		Impact: impactWord(in), Maintenance: in.Type == "maintenance",
		Shortlink: MendURL(pageURL + "/incidents/" + in.ID),
		CreatedAt: ParseTime(in.PublishedAt),
	}
	seen := map[string]bool{}
	for _, a := range in.AffectedComponents {
		if a.ComponentID != "" && !seen[a.ComponentID] {
			seen[a.ComponentID] = true
			out.Components = append(out.Components, IncidentComp{ID: a.ComponentID, Name: names[a.ComponentID]})
		}
	}
	for _, im := range in.ComponentImpacts {
		if im.ComponentID != "" && !seen[im.ComponentID] {
			seen[im.ComponentID] = true
			out.Components = append(out.Components, IncidentComp{ID: im.ComponentID, Name: names[im.ComponentID]})
		}
	}
	if out.Maintenance {
		out.ScheduledFor, out.ScheduledUntil = window(in.ComponentImpacts)
	}
	for _, u := range in.Updates {
		at := ParseTime(u.PublishedAt)
		out.Updates = append(out.Updates, IncidentUpdate{
			ID: u.ID, Status: NormalizeIncidentStatus(u.ToStatus), Body: updateText(u),
			CreatedAt: at, UpdatedAt: at, DisplayAt: at,
		})
		if at.After(out.UpdatedAt) {
			out.UpdatedAt = at
		}
	}
	out.Updates = append(out.Updates, transitionUpdate(out, in)...)
	// Statuspage lists updates newest first; so does the model.
	sort.SliceStable(out.Updates, func(a, b int) bool { return out.Updates[a].DisplayAt.After(out.Updates[b].DisplayAt) })
	if out.Status == "resolved" || out.Status == "completed" {
		t := out.UpdatedAt
		out.ResolvedAt = &t
	}
	return out
}

// transitionUpdate stands in for the update a maintenance lacks when it
// starts or completes on schedule without anyone writing one: its status
// changed, and subscribers expect to hear it.
// The texts of the updates transitionUpdate makes up for a maintenance
// that started or ended with no update posted: the bot's words, not the
// page's, so notices say them in the chat's language (message.PageText).
const (
	MaintenanceStartedText  = "The maintenance has started."
	MaintenanceCompleteText = "The maintenance is complete."
)

func transitionUpdate(m Incident, in ioIncident) []IncidentUpdate {
	if !m.Maintenance || (m.Status != "in_progress" && m.Status != "completed") {
		return nil
	}
	var latest IncidentUpdate
	for _, u := range m.Updates {
		if !u.DisplayAt.Before(latest.DisplayAt) {
			latest = u
		}
	}
	if latest.Status == m.Status {
		return nil
	}
	at := latest.DisplayAt
	body := MaintenanceStartedText
	if m.Status == "completed" {
		body = MaintenanceCompleteText
		if m.ScheduledUntil != nil && m.ScheduledUntil.After(at) {
			at = *m.ScheduledUntil
		}
	} else if m.ScheduledFor != nil && m.ScheduledFor.After(at) {
		at = *m.ScheduledFor
	}
	return []IncidentUpdate{{ID: in.ID + ":" + m.Status, Status: m.Status, Body: body, CreatedAt: at, UpdatedAt: at, DisplayAt: at}}
}

// window is a maintenance's span: earliest start, latest end of its impacts.
func window(impacts []ioImpact) (*time.Time, *time.Time) {
	var start, end time.Time
	for _, im := range impacts {
		if s := ParseTime(im.StartAt); !s.IsZero() && (start.IsZero() || s.Before(start)) {
			start = s
		}
		if im.EndAt != nil {
			if e := ParseTime(*im.EndAt); e.After(end) {
				end = e
			}
		}
	}
	var sp, ep *time.Time
	if !start.IsZero() {
		sp = &start
	}
	if !end.IsZero() {
		ep = &end
	}
	return sp, ep
}

// normalizeComponents builds group rows and leaves in the page's order.
// Only components in trouble are in affected_components: the rest are
// operational. A status's start comes from the impacts; a component whose
// impacts say nothing gets the fetch time, so every change has its own key.
func normalizeComponents(comps []ioComponent, affected []ioAffected, items []ioStructureItem, incidents []ioIncident, now time.Time) []Component {
	status := map[string]string{}
	for _, a := range affected {
		s := a.CurrentStatus
		if s == "" {
			s = a.Status
		}
		status[a.ComponentID] = NormalizeComponentStatus(s)
	}
	since := statusSince(incidents)
	desc := map[string]string{}
	for _, c := range comps {
		desc[c.ID] = c.Description
	}
	leaf := func(l ioLeaf, groupID, groupName string) Component {
		st := status[l.ComponentID]
		if st == "" {
			st = "operational"
		}
		at := since[l.ComponentID+"|"+st]
		if at.IsZero() {
			at = now.UTC().Truncate(time.Second)
		}
		return Component{ID: l.ComponentID, Name: strings.TrimSpace(l.Name), Status: st, UpdatedAt: at,
			Description: desc[l.ComponentID], GroupID: groupID, GroupName: groupName}
	}
	var out []Component
	placed := map[string]bool{}
	for _, it := range items {
		switch {
		case it.Group != nil && !it.Group.Hidden:
			g := Component{ID: it.Group.ID, Name: strings.TrimSpace(it.Group.Name), Group: true, Status: "operational"}
			var members []Component
			for _, l := range it.Group.Components {
				if l.Hidden || l.ComponentID == "" || placed[l.ComponentID] {
					continue
				}
				placed[l.ComponentID] = true
				m := leaf(l, g.ID, g.Name)
				g.Components = append(g.Components, m.ID)
				if severity(m.Status) > severity(g.Status) {
					g.Status = m.Status
				}
				members = append(members, m)
			}
			out = append(out, g)
			out = append(out, members...)
		case it.Component != nil && !it.Component.Hidden && it.Component.ComponentID != "" && !placed[it.Component.ComponentID]:
			placed[it.Component.ComponentID] = true
			out = append(out, leaf(*it.Component, "", ""))
		}
	}
	// A component the structure does not place is still a component.
	for _, c := range comps {
		if c.ID != "" && !placed[c.ID] && !hiddenIn(items, c.ID) {
			placed[c.ID] = true
			out = append(out, leaf(ioLeaf{ComponentID: c.ID, Name: c.Name}, "", ""))
		}
	}
	for i := range out {
		out[i].Position = i + 1
	}
	return out
}

func hiddenIn(items []ioStructureItem, id string) bool {
	for _, it := range items {
		if it.Component != nil && it.Component.ComponentID == id && it.Component.Hidden {
			return true
		}
		if it.Group != nil {
			if it.Group.Hidden {
				for _, l := range it.Group.Components {
					if l.ComponentID == id {
						return true
					}
				}
			}
			for _, l := range it.Group.Components {
				if l.ComponentID == id && l.Hidden {
					return true
				}
			}
		}
	}
	return false
}

// statusSince maps "componentID|status" to when the component took that
// status: the start of its latest open impact, or for operational the end
// of its latest closed one.
func statusSince(incidents []ioIncident) map[string]time.Time {
	out := map[string]time.Time{}
	for _, in := range incidents {
		for _, im := range in.ComponentImpacts {
			if im.EndAt == nil || ParseTime(*im.EndAt).IsZero() {
				k := im.ComponentID + "|" + NormalizeComponentStatus(im.Status)
				if s := ParseTime(im.StartAt); s.After(out[k]) {
					out[k] = s
				}
				continue
			}
			k := im.ComponentID + "|operational"
			if e := ParseTime(*im.EndAt); e.After(out[k]) {
				out[k] = e
			}
		}
	}
	return out
}

// overall derives the page's indicator and description from its components
// (the native summary has no overall status of its own).
func overall(comps []Component) (indicator, description string) {
	worst := 0
	maint := false
	for _, c := range comps {
		if c.Group {
			continue
		}
		worst = max(worst, severity(c.Status))
		if c.Status == "under_maintenance" {
			maint = true
		}
	}
	switch {
	case worst == 3:
		return "major", "Major Outage"
	case worst == 2:
		return "minor", "Partial Outage"
	case worst == 1:
		return "minor", "Degraded Performance"
	case maint:
		return "maintenance", "Under Maintenance"
	}
	return "none", "All Systems Operational"
}

func parsePercent(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || f < 0 || f > 100 {
		return 0, false
	}
	return f, true
}
