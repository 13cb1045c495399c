package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Switching provider on an existing database re-baselines silently and
// maps every subscriber's component filter by name; a page that renumbers
// its components later is followed the same way.
func TestProviderSwitchAndRenamesFollowFiltersByName(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.page.SetComponent("cli0000001", "CLI", "operational")
	_, err := w.st.Subscribe(ctx, 42, 0, time.Now())
	require.NoError(t, err)
	key := store.SubscriberKey(42, 0)
	require.NoError(t, w.st.SetComponents(ctx, key, []string{"cli0000001", "api0000001"}))
	require.True(t, w.detect(t).Baseline)

	io := fakes.NewIncidentIO()
	t.Cleanup(io.Close)
	io.AddIncidentUpdate("01OLD00000000000000000000I", "An old incident", "resolved", "", "01OLDU0000000000000000000U", "History.")
	w.a.Page = statuspage.NewIncidentIO(io.URL(), 2*time.Second)
	d := w.detect(t)
	require.True(t, d.Rebaseline, "another provider means other IDs")
	require.Empty(t, d.Events, "nobody hears of the new provider's history")
	require.Equal(t, 1, d.Renamed, "CLI is found by name; API has no namesake there")
	sub, err := w.st.Subscription(ctx, key)
	require.NoError(t, err)
	require.Equal(t, []string{fakes.IOComponentCLI, "api0000001"}, sub.Components)
	require.Empty(t, w.detect(t).Events, "the next poll is an ordinary idle one")

	renamed := io.RenameComponentIDs()
	io.SetComponent(renamed[fakes.IOComponentCLI], "CLI", "partial_outage")
	d = w.detect(t)
	require.Equal(t, 34, d.Renamed)
	require.Len(t, d.Events, 1, "only the real change, not 34 'new components': %v", d.Events)
	require.Equal(t, "partial_outage", d.Events[0].NewStatus)
	require.Equal(t, "operational", d.Events[0].OldStatus, "the old mark followed the rename")
	sub, err = w.st.Subscription(ctx, key)
	require.NoError(t, err)
	require.Equal(t, renamed[fakes.IOComponentCLI], sub.Components[0])
}

// A part of the page that keeps failing is reported, and never blocks the
// parts that can be read; it clears when the part comes back.
func TestBlindSpotReportedAndCleared(t *testing.T) {
	w := newWorld(t)
	io := fakes.NewIncidentIO()
	t.Cleanup(io.Close)
	w.a.Page = statuspage.NewIncidentIO(io.URL(), 2*time.Second)
	w.a.BlindAfter = time.Nanosecond
	io.Fault("/incidents", fakes.ServerError)

	d := w.detect(t)
	require.True(t, d.Baseline, "components are baselined although the incident list fails")
	require.Empty(t, d.Blind, "one failure is not yet a blind spot")
	io.SetComponent(fakes.IOComponentImages, "Images", "partial_outage")
	d = w.detect(t)
	require.Len(t, d.Blind, 1)
	require.Equal(t, "incidents", d.Blind[0].Part)
	require.Len(t, d.Events, 1, "component changes are seen while incidents are blind")
	_, err := w.env.ExecuteActivity(w.a.CommitCheckpoint, activities.CommitInput{Events: d.Events})
	require.NoError(t, err)
	parts, err := w.st.FailingParts(context.Background())
	require.NoError(t, err)
	require.Len(t, parts, 1)
	require.Contains(t, parts[0].Err, "HTTP 500")

	io.Fault("/incidents", nil)
	d = w.detect(t)
	require.Empty(t, d.Blind)
	require.Contains(t, d.BaselinedParts, "incidents")
	parts, err = w.st.FailingParts(context.Background())
	require.NoError(t, err)
	require.Empty(t, parts)
}
