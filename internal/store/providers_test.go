package store_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Issue 30, item 4, on MongoDB: two workers' Autos share the page's
// provider through store.Providers; the fresh one's single 404 from the
// native API changes nothing. On the old code (no shared choice) the
// fresh worker read the page with Statuspage v2 from then on.
func TestProvidersAreSharedDurably(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	io := fakes.NewIncidentIO()
	defer io.Close()
	auto := func() *statuspage.Auto {
		a := statuspage.NewAuto(io.URL(), 5*time.Second)
		a.Shared, a.Key, a.Confirm = st.Providers(), "github", 10*time.Millisecond
		return a
	}
	a := auto()
	p, _, err := a.Fetch(ctx)
	require.NoError(t, err)
	require.Equal(t, statuspage.ProviderIncidentIO, p.Provider)

	var left atomic.Int32
	left.Store(1)
	io.Fault("/proxy/", func(w http.ResponseWriter, r *http.Request) bool {
		if left.Add(-1) < 0 {
			return false
		}
		http.NotFound(w, r)
		return true
	})
	b := auto()
	_, _, err = b.Fetch(ctx)
	require.True(t, errors.Is(err, statuspage.ErrNotFlipped), "one 404: %v", err)
	rec, err := st.Providers().LoadProvider(ctx, "github")
	require.NoError(t, err)
	require.Equal(t, statuspage.ProviderIncidentIO, rec.Provider)
	require.Equal(t, 1, rec.NotServed)
	p, _, err = b.Fetch(ctx)
	require.NoError(t, err)
	require.Equal(t, statuspage.ProviderIncidentIO, p.Provider)
	rec, err = st.Providers().LoadProvider(ctx, "github")
	require.NoError(t, err)
	require.Zero(t, rec.NotServed, "an answer clears the count")

	// Stale versions lose: a compare-and-set on an old version fails.
	ok, err := st.Providers().SaveProvider(ctx, "github", statuspage.ProviderChoice{V: 1}, statuspage.ProviderChoice{Provider: statuspage.ProviderStatuspage})
	require.NoError(t, err)
	require.False(t, ok)
	ok, err = st.Providers().SaveProvider(ctx, "github", statuspage.ProviderChoice{}, statuspage.ProviderChoice{Provider: statuspage.ProviderStatuspage})
	require.NoError(t, err)
	require.False(t, ok, "a second first decision loses")
}
