package pageset

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

var offerTwo = pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "github"}}, Legacy: "openai"}

func TestPageSourceSharesLiveFetch(t *testing.T) {
	now := time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	fetches := 0
	release := make(chan struct{})
	ps := &Source{
		snapshots: func(context.Context) (*store.Snapshot, error) {
			return &store.Snapshot{Page: *bottest.Page(""), FetchedAt: now.Add(-10 * time.Minute)}, nil
		},
		fetch: func(context.Context) (*statuspage.Page, error) {
			mu.Lock()
			fetches++
			mu.Unlock()
			<-release
			return &statuspage.Page{Name: "live"}, nil
		},
		maxAge: 2 * time.Minute, cacheFor: time.Minute, timeout: time.Second,
		now: func() time.Time { return now }, log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
	}
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pv, err := ps.get(context.Background(), Components)
			if err != nil || pv.Page.Name != "live" || pv.Stale {
				t.Errorf("get: %+v %v", pv, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if fetches != 1 {
		t.Fatalf("%d fetches, want 1 shared", fetches)
	}
	// A fresh snapshot is used as is.
	ps.snapshots = func(context.Context) (*store.Snapshot, error) {
		return &store.Snapshot{Page: statuspage.Page{Name: "snap"}, FetchedAt: now.Add(-time.Minute)}, nil
	}
	if pv, _ := ps.get(context.Background(), Components); pv.Page.Name != "snap" {
		t.Fatalf("fresh snapshot not used: %q", pv.Page.Name)
	}
	// A fresh snapshot missing the half a command needs is not.
	ps.snapshots = func(context.Context) (*store.Snapshot, error) {
		return &store.Snapshot{Page: statuspage.Page{Name: "snap", IncidentsErr: "HTTP 500"}, FetchedAt: now.Add(-time.Minute)}, nil
	}
	if pv, _ := ps.get(context.Background(), Incidents); pv.Page.Name != "live" {
		t.Fatalf("got %q, want the cached live page", pv.Page.Name)
	}
}

// The case: during an outage (the page hanging, the snapshot
// stale) the old source started a fetch for every command once the last
// had failed, each waiting its whole timeout. A failure is remembered:
// the commands after it answer from the stale snapshot at once, and a
// command waits at most wait for a fetch in flight.
func TestPageSourceRemembersAFailure(t *testing.T) {
	now := time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	fetches := 0
	hang := make(chan struct{})
	defer close(hang)
	ps := &Source{
		snapshots: func(context.Context) (*store.Snapshot, error) {
			return &store.Snapshot{Page: *bottest.Page(""), FetchedAt: now.Add(-10 * time.Minute)}, nil
		},
		fetch: func(ctx context.Context) (*statuspage.Page, error) {
			mu.Lock()
			fetches++
			mu.Unlock()
			select {
			case <-hang:
			case <-ctx.Done():
			}
			return nil, errors.New("the page hung")
		},
		maxAge: 2 * time.Minute, cacheFor: time.Minute, failFor: time.Minute,
		wait: 200 * time.Millisecond, timeout: 400 * time.Millisecond,
		now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }, log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
	}
	started := time.Now()
	pv, err := ps.get(context.Background(), Components)
	if err != nil || !pv.Stale {
		t.Fatalf("the first command during the outage: %+v %v", pv, err)
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Fatalf("the first command waited %v for the fetch (wait is 200ms)", took)
	}
	bottest.WaitFor(t, "the fetch to fail", func() bool { ps.mu.Lock(); defer ps.mu.Unlock(); return !ps.failedAt.IsZero() })
	for range 20 {
		if pv, err := ps.get(context.Background(), Components); err != nil || !pv.Stale {
			t.Fatalf("a command after the failure: %+v %v", pv, err)
		}
	}
	mu.Lock()
	if fetches != 1 {
		t.Fatalf("%d fetches for 21 commands within failFor, want 1", fetches)
	}
	now = now.Add(time.Minute) // failFor later the page is asked again
	mu.Unlock()
	ps.get(context.Background(), Components)
	mu.Lock()
	defer mu.Unlock()
	if fetches != 2 {
		t.Fatalf("%d fetches after failFor, want 2", fetches)
	}
}

func TestMerge(t *testing.T) {
	openai := &statuspage.Page{Name: "OpenAI", Components: []statuspage.Component{
		{ID: "api", Name: "API", Status: "operational"},
		{ID: "g1", Name: "ChatGPT", Group: true, Components: []string{"login"}},
		{ID: "login", Name: "Login", GroupID: "g1", Status: "operational"},
	}}
	github := &statuspage.Page{Name: "GitHub", Components: []statuspage.Component{
		{ID: "api", Name: "API", Status: "major_outage"},
		{ID: "git", Name: "Git Operations", GroupName: "Core", Status: "operational"},
	}, Incidents: []statuspage.Incident{{ID: "inc1", Name: "Down"}}}
	parts := []Part{{Name: "openai", EventPage: "", Page: openai}, {Name: "github", EventPage: "github", Page: github}}

	m := Merge(parts)
	comps := screens.Components(m)
	names := screens.ComponentNames(comps)
	want := map[string]string{"api": "API (openai)", "login": "Login", "github/api": "API (github)", "github/git": "Git Operations"}
	if len(names) != len(want) {
		t.Fatalf("names %v", names)
	}
	for id, n := range want {
		if names[id] != n {
			t.Errorf("%s named %q, want %q (all: %v)", id, names[id], n, names)
		}
	}
	idx := screens.IndexPage(m)
	var groups []string
	for _, g := range idx.Groups {
		groups = append(groups, g.Name)
	}
	if !slices.Equal(groups, []string{"openai", "openai · ChatGPT", "github", "github · Core"}) {
		t.Errorf("groups %v", groups)
	}
	if m.Incidents[0].ID != "github/inc1" {
		t.Errorf("incident IDs scoped: %v", m.Incidents)
	}
	if openai.Components[0].ID != "api" || openai.Components[0].Name != "API" {
		t.Error("the parts are not changed")
	}

	// One page of another page alone: its IDs scoped, its names its own.
	one := Merge(parts[1:])
	if one.Components[0].ID != "github/api" || one.Components[0].Name != "API" || one.Components[1].GroupName != "Core" {
		t.Errorf("one part: %+v", one.Components)
	}
	// One part failing: the others still serve; all failing: unavailable.
	bad := &statuspage.Page{ComponentsErr: "down"}
	if m := Merge([]Part{{Name: "openai", Page: openai}, {Name: "github", EventPage: "github", Page: bad}}); m.ComponentsErr != "" {
		t.Errorf("one of two failing: %q", m.ComponentsErr)
	}
	if got := Unavailable([]Part{{Name: "openai", Page: openai}, {Name: "github", Page: bad}}, false); !slices.Equal(got, []string{"github"}) {
		t.Errorf("Unavailable %v", got)
	}
	if m := Merge([]Part{{Name: "github", EventPage: "github", Page: bad}}); m.ComponentsErr == "" {
		t.Error("all failing: unavailable")
	}
}

// A page that cannot be read is left out of a reply covering several, and
// named; the legacy page alone is served as it always was.
func TestPageSetLeavesOutAPageThatCannotBeRead(t *testing.T) {
	now := time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)
	source := func(p *statuspage.Page, err error) *Source {
		return &Source{
			snapshots: func(context.Context) (*store.Snapshot, error) { return nil, nil },
			fetch:     func(context.Context) (*statuspage.Page, error) { return p, err },
			maxAge:    time.Minute, cacheFor: time.Minute, timeout: time.Second,
			now: func() time.Time { return now }, log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
		}
	}
	legacy := &statuspage.Page{Name: "OpenAI", Components: []statuspage.Component{{ID: "api", Name: "API"}}}
	set := &Set{offer: offerTwo, by: map[string]*Source{
		"openai": source(legacy, nil),
		"github": source(nil, errors.New("down")),
	}}
	pv, err := set.Get(context.Background(), []string{"openai", "github"}, Components)
	if err != nil || len(pv.Parts) != 1 || pv.Parts[0].Name != "openai" || !slices.Equal(pv.Missing, []string{"github"}) {
		t.Fatalf("got %+v, %v", pv, err)
	}
	if pv.Page != pv.Parts[0].Page || pv.Page.Name != "OpenAI" {
		t.Error("the legacy page alone is served as read, not merged")
	}
	if _, err := set.Get(context.Background(), []string{"github"}, Components); !errors.Is(err, ErrNoPage) {
		t.Fatalf("no page readable: %v", err)
	}
}
