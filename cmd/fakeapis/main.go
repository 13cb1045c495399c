// Command fakeapis serves a fake Telegram Bot API and two fake status
// pages on loopback, for trying the bot (make run) where the real ones are
// out of reach. Point TELEGRAM_API_URL and STATUSPAGE_URL at it. The first
// page (openai) is incident.io by default, like the real
// status.openai.com; -provider statuspage serves a classic Atlassian
// Statuspage instead. The second (github, -github; empty turns it off) is
// a classic Statuspage shaped like www.githubstatus.com, for STATUS_PAGES
// (docs/pages.md). Each page has the same controls under /control/.
//
//	fakeapis -telegram 127.0.0.1:8081 -statuspage 127.0.0.1:8082 -github 127.0.0.1:8083 -token "$TELEGRAM_BOT_TOKEN"
//	curl -X POST '127.0.0.1:8081/control/user?chat=42&text=/start'          # a user subscribes
//	curl -X POST '127.0.0.1:8082/control/incident?id=INC1&name=Errors&status=investigating&update=U1&body=Looking&component=01KMKFAMWKNQ84Z1766MV08ZDE&component_status=partial_outage'
//	curl -X POST '127.0.0.1:8082/control/component?id=01JMXBRMFE4MAP2BHSJNZ787WX&status=full_outage'
//	curl -X POST '127.0.0.1:8082/control/maintenance?id=M1&name=Upgrade&status=scheduled&update=MU1&body=Soon&component=01KMKFAMWKNQ84Z1766MV08ZDE&start=2026-12-01T10:00:00Z&end=2026-12-01T11:00:00Z'
//	curl -X POST '127.0.0.1:8083/control/component?id=ghactions001&status=major_outage' # on the second page
//	curl '127.0.0.1:8081/control/messages'                                   # what the bot sent
//
// The Bot API's controls (controls.go) act as members and admins, taps,
// channel posts, the bot added and removed and a group's migration: the
// README's "No Telegram or status page within reach" has a curl line each.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// servedPage is one fake page: its name in STATUS_PAGES, where it is
// served, what it imitates.
type servedPage struct {
	name, kind, like, addr string
	pg                     fakes.Page
}

func main() {
	tgAddr := flag.String("telegram", "127.0.0.1:8081", "address of the fake Bot API")
	pageAddr := flag.String("statuspage", "127.0.0.1:8082", "address of the first fake status page (openai)")
	githubAddr := flag.String("github", "127.0.0.1:8083", "address of the second fake status page, a classic Statuspage named github (empty: none)")
	token := flag.String("token", os.Getenv("TELEGRAM_BOT_TOKEN"), "bot token the fake accepts")
	provider := flag.String("provider", "incidentio", "first page to imitate: incidentio (like status.openai.com) or statuspage")
	flag.Parse()

	served, err := newPages(*provider, *pageAddr, *githubAddr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeapis: %v\n", err)
		os.Exit(2)
	}
	tg := fakes.NewTelegram(*token)
	updates := fakes.NewUpdates(tg, 1)

	// Bind every address before saying where things are: a port taken
	// ends fakeapis with the reason, not after a banner.
	tgL, err := net.Listen("tcp", *tgAddr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeapis: the fake Telegram (-telegram): %v\n", err)
		os.Exit(1)
	}
	listeners := make([]net.Listener, len(served))
	for i, sp := range served {
		if listeners[i], err = net.Listen("tcp", sp.addr); err != nil {
			fmt.Fprintf(os.Stderr, "fakeapis: the fake page %s: %v\n", sp.name, err)
			os.Exit(1)
		}
	}
	for i, sp := range served {
		go func() { log.Fatal(http.Serve(listeners[i], pageMux(sp.pg))) }()
	}
	log.Print(startupMessage(tgL.Addr().String(), served))
	log.Fatal(http.Serve(tgL, telegramMux(tg, updates)))
}

// newPages makes the pages fakeapis serves: openai on pageAddr, then
// github on githubAddr unless it is empty.
func newPages(provider, pageAddr, githubAddr string) ([]servedPage, error) {
	if githubAddr != "" && githubAddr == pageAddr {
		return nil, errors.New("-github and -statuspage must be different addresses")
	}
	var first fakes.Page
	switch provider {
	case fakes.KindIncidentIO:
		first = fakes.NewIncidentIO()
	case fakes.KindStatuspage:
		first = fakes.NewStatuspage()
	default:
		return nil, fmt.Errorf("-provider must be incidentio or statuspage, got %q", provider)
	}
	served := []servedPage{{name: "openai", kind: provider, like: "status.openai.com", addr: pageAddr, pg: first}}
	if githubAddr != "" {
		gh := fakes.NewNamedStatuspage("GitHub", fakes.GitHubComponents...)
		served = append(served, servedPage{name: "github", kind: fakes.KindStatuspage, like: "www.githubstatus.com", addr: githubAddr, pg: gh})
	}
	for _, sp := range served {
		sp.pg.Close() // its own test server: served on sp.addr instead
	}
	return served, nil
}

// startupMessage says where everything is and what to put in .env.
func startupMessage(tgAddr string, served []servedPage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fake Telegram on http://%s\n", tgAddr)
	list := make([]pages.Page, len(served))
	for i, sp := range served {
		fmt.Fprintf(&b, "fake status page %s (%s, like %s) on http://%s\n", sp.name, sp.kind, sp.like, sp.addr)
		list[i] = pages.Page{Name: sp.name, URL: "http://" + sp.addr, Provider: "auto"}
	}
	fmt.Fprintf(&b, "act as users, admins, channels and the pages: README, No Telegram or status page within reach\n")
	fmt.Fprintf(&b, "in .env: TELEGRAM_API_URL=http://%s and STATUSPAGE_URL=%s (one page)", tgAddr, list[0].URL)
	if len(list) > 1 {
		fmt.Fprintf(&b, "\nor, for every page (README, Several pages): STATUS_PAGES=%s", pages.Format(list))
	}

	return b.String()
}

func pageMux(pg fakes.Page) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/control/components", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(pg.ComponentIDs())
	})
	mux.HandleFunc("/control/component", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		name := q.Get("name")
		if name == "" {
			name = q.Get("id")
		}
		pg.SetComponent(q.Get("id"), name, q.Get("status"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/control/incident", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		pg.AddIncidentUpdate(q.Get("id"), q.Get("name"), q.Get("status"), q.Get("impact"), q.Get("update"), q.Get("body"))
		affect(w, pg, q.Get("id"), q.Get("component"), q.Get("component_status"))
	})
	// start and end (RFC 3339, optional) set the maintenance's window.
	mux.HandleFunc("/control/maintenance", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var start, end time.Time
		if q.Get("start") != "" || q.Get("end") != "" {
			var err1, err2 error
			start, err1 = time.Parse(time.RFC3339, q.Get("start"))
			end, err2 = time.Parse(time.RFC3339, q.Get("end"))
			if err1 != nil || err2 != nil || !end.After(start) {
				http.Error(w, "start and end are RFC 3339 times, end after start", http.StatusBadRequest)
				return
			}
		}
		pg.AddMaintenanceUpdate(q.Get("id"), q.Get("name"), q.Get("status"), q.Get("update"), q.Get("body"))
		affect(w, pg, q.Get("id"), q.Get("component"), "under_maintenance", func() {
			if !start.IsZero() {
				pg.SetMaintenanceWindow(q.Get("id"), start, end)
			}
		})
	})
	mux.Handle("/", pg)
	return mux
}

// affect marks the component affected, then runs the further steps; a
// step the fake refuses (it panics) is answered 400.
func affect(w http.ResponseWriter, pg fakes.Page, incident, component, status string, then ...func()) {
	defer func() {
		if r := recover(); r != nil {
			http.Error(w, fmt.Sprint(r), http.StatusBadRequest)
		}
	}()
	if component != "" {
		if status == "" {
			status = "partial_outage"
		}
		pg.AffectComponent(incident, component, status)
	}
	for _, step := range then {
		step()
	}
	w.WriteHeader(http.StatusNoContent)
}
