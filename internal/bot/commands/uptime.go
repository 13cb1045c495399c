package commands

import (
	"math"
	"sort"
	"time"

	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
	"golang.org/x/text/number"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Uptime rule (what /uptime computes)
//
// A component is "up" while its status is operational or
// under_maintenance (planned work is announced and not an outage), and
// "down" in any other status (degraded_performance, partial_outage,
// major_outage, anything unknown).
//
// Its status over time comes from the component history the poll pipeline
// records (one entry per status change, at the time Statuspage gives for
// the change), completed by the snapshot: when the snapshot's status
// differs from the last recorded one (the pipeline has not recorded it
// yet), or nothing is recorded at all, the snapshot's status counts from
// the component's updated_at (or from the last recorded change, if that is
// later). A component with no history whose updated_at is older than the
// window is therefore in its snapshot status for the whole window.
//
// Before the first known point (no earlier entry exists) a component
// counts as up: Statuspage components are operational unless something
// happens, and a recorded change is almost always a change away from
// operational. This never blames the time before tracking began on an
// outage that started later; it can overstate uptime when the first
// recorded change is a recovery from an outage that began before tracking.
//
// The window ends now; the status after the last known point lasts until
// now. Percentages are rounded down to two decimals, so any downtime shows
// as less than 100%.

// uptimeWindows are the periods /uptime reports, in order: the page's
// own figures are fetched for the same (pageset.Windows).
var uptimeWindows = []struct {
	Label string
	D     time.Duration
}{
	{"24h", pageset.Windows[0]},
	{"7d", pageset.Windows[1]},
	{"30d", pageset.Windows[2]},
}

// isUp reports whether a component status counts as available.
func isUp(status string) bool {
	return status == "operational" || status == "under_maintenance"
}

type statusPoint struct {
	at     time.Time
	status string
}

// timeline returns the known status points of one component, oldest first.
func timeline(c statuspage.Component, hist []store.HistoryEntry) []statusPoint {
	var pts []statusPoint
	for _, h := range hist {
		if h.ComponentID == c.ID {
			pts = append(pts, statusPoint{at: h.At, status: h.Status})
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].at.Before(pts[j].at) })
	if c.Status == "" {
		return pts
	}
	if len(pts) == 0 {
		return []statusPoint{{at: c.UpdatedAt, status: c.Status}}
	}
	last := pts[len(pts)-1]
	if last.status != c.Status {
		at := c.UpdatedAt
		if at.Before(last.at) {
			at = last.at
		}
		pts = append(pts, statusPoint{at: at, status: c.Status})
	}
	return pts
}

// upFraction is the share of [now-d, now] a component spent up.
func upFraction(pts []statusPoint, now time.Time, d time.Duration) float64 {
	if d <= 0 {
		return 1
	}
	start := now.Add(-d)
	var up time.Duration
	// Segment i runs from pts[i-1].at (or the beginning of time) to
	// pts[i].at (or now) in the status of pts[i-1] (or up).
	prevAt, prevUp := time.Time{}, true
	add := func(from, to time.Time, isUp bool) {
		if from.Before(start) {
			from = start
		}
		if to.After(now) {
			to = now
		}
		if isUp && to.After(from) {
			up += to.Sub(from)
		}
	}
	for _, p := range pts {
		add(prevAt, p.at, prevUp)
		if p.at.After(prevAt) {
			prevAt = p.at
		}
		prevUp = isUp(p.status)
	}
	add(prevAt, now, prevUp)
	f := float64(up) / float64(d)
	return math.Max(0, math.Min(1, f))
}

// ComponentUptime is one component's uptime in each window.
type ComponentUptime struct {
	Component statuspage.Component
	Fractions []float64 // one per uptimeWindows entry
}

// ComputeUptime applies the uptime rule to every component (group rows
// skipped, page order).
func ComputeUptime(comps []statuspage.Component, hist []store.HistoryEntry, now time.Time) []ComponentUptime {
	out := make([]ComponentUptime, 0, len(comps))
	for _, c := range comps {
		if c.Group {
			continue
		}
		pts := timeline(c, hist)
		u := ComponentUptime{Component: c}
		for _, w := range uptimeWindows {
			u.Fractions = append(u.Fractions, upFraction(pts, now, w.D))
		}
		out = append(out, u)
	}
	return out
}

// formatPercent is formatPercentIn in English.
func formatPercent(f float64) string { return formatPercentIn(i18n.Default, f) }

// formatPercentIn shows a fraction as "100%" only when there was no
// downtime; otherwise rounded down to two decimals ("99.98%"), written as
// the language tag writes a percentage (CLDR: "99,98 %" in German, "%99,98"
// in Turkish).
func formatPercentIn(tag string, f float64) string {
	p := xmessage.NewPrinter(language.Make(tag))
	switch {
	case f >= 1:
		return p.Sprint(number.Percent(1))
	case f <= 0 || math.IsNaN(f):
		return p.Sprint(number.Percent(0, number.Scale(2)))
	}
	return p.Sprint(number.Percent(math.Floor(f*10000)/10000, number.Scale(2)))
}

// PageUptime takes each component's figures from the page; a component the
// page gives no figure for in a window keeps the computed one.
func PageUptime(computed []ComponentUptime, figures [][]statuspage.ComponentUptime) []ComponentUptime {
	out := make([]ComponentUptime, len(computed))
	for i, cu := range computed {
		out[i] = ComponentUptime{Component: cu.Component, Fractions: append([]float64(nil), cu.Fractions...)}
	}
	for w, figs := range figures {
		by := map[string]float64{}
		for _, f := range figs {
			if f.ComponentID != "" {
				by[f.ComponentID] = f.Percent / 100
			}
		}
		for i := range out {
			if v, ok := by[out[i].Component.ID]; ok && w < len(out[i].Fractions) {
				out[i].Fractions[w] = v
			}
		}
	}
	return out
}
