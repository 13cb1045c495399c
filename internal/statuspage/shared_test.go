package statuspage_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// memChoices is a ProviderStore in memory (store.Providers keeps it in
// MongoDB), shared by the "workers" of a test.
type memChoices struct {
	mu   sync.Mutex
	recs map[string]statuspage.ProviderChoice
}

func (m *memChoices) LoadProvider(_ context.Context, key string) (statuspage.ProviderChoice, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recs[key], nil
}

func (m *memChoices) SaveProvider(_ context.Context, key string, was, next statuspage.ProviderChoice) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string]statuspage.ProviderChoice{}
	}
	if m.recs[key].V != was.V {
		return false, nil
	}
	next.V = was.V + 1
	m.recs[key] = next
	return true, nil
}

func sharedAuto(url string, shared statuspage.ProviderStore) *statuspage.Auto {
	a := statuspage.NewAuto(url, 5*time.Second)
	a.Shared, a.Key, a.Confirm = shared, "", 10*time.Millisecond
	return a
}

// notFoundTimes answers the native API 404 n times.
func notFoundTimes(n int32) func(w http.ResponseWriter, r *http.Request) bool {
	var left atomic.Int32
	left.Store(n)
	return func(w http.ResponseWriter, r *http.Request) bool {
		if left.Add(-1) < 0 {
			return false
		}
		http.NotFound(w, r)
		return true
	}
}

// Issue 30, item 4: two workers share one page's provider. The second,
// freshly started, gets one 404 from the native API: it does not choose
// Statuspage (the poll fails and the next reads the native API). On the
// old code each worker chose on its own, and the fresh one settled on
// Statuspage v2 for 30 minutes: every poll flipped providers and
// re-baselined silently.
func TestSharedProviderSurvivesOne404(t *testing.T) {
	io := fakes.NewIncidentIO()
	defer io.Close()
	shared := &memChoices{}
	a, b := sharedAuto(io.URL(), shared), sharedAuto(io.URL(), shared)
	p, _, err := a.Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderIncidentIO {
		t.Fatalf("worker A: %v %+v", err, p)
	}
	io.Fault("/proxy/", notFoundTimes(1))
	p, _, err = b.Fetch(context.Background())
	if err == nil && p.Provider != statuspage.ProviderIncidentIO {
		t.Fatalf("worker B chose %s on one 404", p.Provider)
	}
	if !errors.Is(err, statuspage.ErrNotFlipped) {
		t.Fatalf("worker B: %v", err)
	}
	for _, w := range []*statuspage.Auto{b, a, b} {
		p, _, err = w.Fetch(context.Background())
		if err != nil || p.Provider != statuspage.ProviderIncidentIO {
			t.Fatalf("after the 404: %v %+v", err, p)
		}
	}
	if rec, _ := shared.LoadProvider(context.Background(), ""); rec.Provider != statuspage.ProviderIncidentIO || rec.NotServed != 0 {
		t.Fatalf("recorded %+v", rec)
	}
}

// A page not decided yet: one 404 on the first probe is confirmed by more
// before Statuspage is chosen; a native page answering again is native.
func TestSharedProviderFirstDecision(t *testing.T) {
	io := fakes.NewIncidentIO()
	defer io.Close()
	io.Fault("/proxy/", notFoundTimes(1))
	shared := &memChoices{}
	p, _, err := sharedAuto(io.URL(), shared).Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderIncidentIO {
		t.Fatalf("one 404 on the first probe: %v %+v", err, p)
	}

	sp := fakes.NewStatuspage()
	defer sp.Close()
	shared = &memChoices{}
	a, b := sharedAuto(sp.URL(), shared), sharedAuto(sp.URL(), shared)
	p, _, err = a.Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderStatuspage {
		t.Fatalf("a Statuspage: %v %+v", err, p)
	}
	native := "/proxy/" + strings.TrimPrefix(sp.URL(), "http://")
	before := sp.Requests(native)
	p, _, err = b.Fetch(context.Background())
	if err != nil || p.Provider != statuspage.ProviderStatuspage {
		t.Fatalf("the other worker: %v %+v", err, p)
	}
	if after := sp.Requests(native); after != before {
		t.Errorf("the other worker probed the native API again (%d -> %d): the choice is shared", before, after)
	}
}
