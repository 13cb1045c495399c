package fakes

import (
	"fmt"
	"net/http"
	"time"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Page is a fake status page whichever provider it imitates: what a test
// or cmd/fakeapis drives on it, and its faults.
type Page interface {
	http.Handler
	URL() string
	Close()
	Fault(pathPart string, f func(w http.ResponseWriter, r *http.Request) bool)
	Requests(path string) int
	TotalRequests() int
	SetComponent(id, name, status string)
	AddIncidentUpdate(incidentID, name, status, impact, updateID, body string)
	AddMaintenanceUpdate(id, name, status, updateID, body string)
	AffectComponent(incidentID, componentID, status string)
	SetMaintenanceWindow(id string, start, end time.Time)
	ComponentIDs() []string
}

var (
	_ Page = (*IncidentIO)(nil)
	_ Page = (*Statuspage)(nil)
)

// Kinds of fake page.
const (
	KindIncidentIO = "incidentio" // shaped like status.openai.com (NewIncidentIO)
	KindStatuspage = "statuspage" // a classic Atlassian Statuspage
)

// PageSpec is one page of NewPages.
type PageSpec struct {
	// Name is the page's short name in STATUS_PAGES.
	Name string
	// Kind is KindIncidentIO or KindStatuspage.
	Kind string
	// Provider is what STATUS_PAGES forces for it; empty: auto (detected).
	Provider string
	// Components start a Statuspage other than NewStatuspage's OpenAI-like
	// one, named Title (Name when empty); an incident.io page is always
	// OpenAI-shaped.
	Components []StatuspageComponent
	Title      string
}

// Pages is several fake status pages served at once. Each is its own
// server with its own state, request counts and faults, so one page that
// fails or hangs leaves the others answering.
type Pages struct {
	specs  []PageSpec
	byName map[string]Page
}

// NewPages starts the pages; it panics on a spec a test got wrong (an
// unknown kind, a name STATUS_PAGES refuses, a name twice).
func NewPages(specs ...PageSpec) *Pages {
	ps := &Pages{byName: map[string]Page{}}
	for _, spec := range specs {
		if e := pages.NameError(spec.Name); e != "" {
			ps.Close()
			panic(fmt.Sprintf("fakes: page name %q: %s", spec.Name, e))
		}
		if ps.byName[spec.Name] != nil {
			ps.Close()
			panic("fakes: two pages named " + spec.Name)
		}
		var pg Page
		switch {
		case spec.Kind == KindIncidentIO:
			pg = NewIncidentIO()
		case spec.Kind == KindStatuspage && spec.Components == nil:
			pg = NewStatuspage()
		case spec.Kind == KindStatuspage:
			title := spec.Title
			if title == "" {
				title = spec.Name
			}
			pg = NewNamedStatuspage(title, spec.Components...)
		default:
			ps.Close()
			panic(fmt.Sprintf("fakes: page kind %q (want %s or %s)", spec.Kind, KindIncidentIO, KindStatuspage))
		}
		ps.specs = append(ps.specs, spec)
		ps.byName[spec.Name] = pg
	}
	return ps
}

// Page is the page with the name (nil when there is none).
func (ps *Pages) Page(name string) Page { return ps.byName[name] }

// IncidentIO is the incident.io page with the name, for its own controls.
func (ps *Pages) IncidentIO(name string) *IncidentIO {
	io, _ := ps.byName[name].(*IncidentIO)
	return io
}

// Statuspage is the Statuspage with the name, for its own controls.
func (ps *Pages) Statuspage(name string) *Statuspage {
	sp, _ := ps.byName[name].(*Statuspage)
	return sp
}

// List is the pages as the bot's configuration lists them, in order.
func (ps *Pages) List() []pages.Page {
	out := make([]pages.Page, len(ps.specs))
	for i, spec := range ps.specs {
		provider := spec.Provider
		if provider == "" {
			provider = "auto"
		}
		out[i] = pages.Page{Name: spec.Name, URL: ps.byName[spec.Name].URL(), Provider: provider}
	}
	return out
}

// StatusPages is the value for STATUS_PAGES.
func (ps *Pages) StatusPages() string { return pages.Format(ps.List()) }

// Close stops every page.
func (ps *Pages) Close() {
	for _, pg := range ps.byName {
		pg.Close()
	}
}
