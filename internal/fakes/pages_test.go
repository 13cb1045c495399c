package fakes_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func twoPages(t *testing.T) *fakes.Pages {
	ps := fakes.NewPages(
		fakes.PageSpec{Name: "openai", Kind: fakes.KindIncidentIO},
		fakes.PageSpec{Name: "github", Kind: fakes.KindStatuspage, Title: "GitHub", Components: fakes.GitHubComponents},
	)
	t.Cleanup(ps.Close)
	return ps
}

func fetch(ctx context.Context, t *testing.T, url string) (*statuspage.Page, error) {
	t.Helper()
	p, _, err := statuspage.NewAuto(url, 5*time.Second).Fetch(ctx)
	return p, err
}

func status(p *statuspage.Page, id string) string {
	for _, c := range p.Components {
		if c.ID == id {
			return c.Status
		}
	}
	return ""
}

// Two pages, incident.io and Statuspage, each read by the bot's own
// client (provider detected as the bot detects it), listed in the
// STATUS_PAGES value the bot's parser reads back.
func TestPagesServeTwoProvidersAtOnce(t *testing.T) {
	ps := twoPages(t)
	ctx := context.Background()

	list, err := pages.Parse(ps.StatusPages())
	require.NoError(t, err)
	require.Equal(t, ps.List(), list)
	require.Equal(t, []string{"openai", "github"}, []string{list[0].Name, list[1].Name})
	require.NotEqual(t, list[0].URL, list[1].URL)

	openai, err := fetch(ctx, t, ps.Page("openai").URL())
	require.NoError(t, err)
	require.Equal(t, statuspage.ProviderIncidentIO, openai.Provider)
	require.Equal(t, "OpenAI", openai.Name)
	github, err := fetch(ctx, t, ps.Page("github").URL())
	require.NoError(t, err)
	require.Equal(t, statuspage.ProviderStatuspage, github.Provider)
	require.Equal(t, "GitHub", github.Name)
	require.Len(t, github.Components, len(fakes.GitHubComponents))
	require.Equal(t, "operational", status(github, "ghactions001"))

	require.NotNil(t, ps.IncidentIO("openai"))
	require.Nil(t, ps.Statuspage("openai"), "typed access says which kind a page is")
	require.NotNil(t, ps.Statuspage("github"))
	require.Nil(t, ps.Page("nope"))
}

// An incident on one page shows on that page alone.
func TestPagesKeepTheirOwnState(t *testing.T) {
	ps := twoPages(t)
	ctx := context.Background()
	gh := ps.Page("github")
	gh.AddIncidentUpdate("INC1", "Actions delayed", "investigating", "major", "U1", "Looking into it")
	gh.AffectComponent("INC1", "ghactions001", "major_outage")

	github, err := fetch(ctx, t, gh.URL())
	require.NoError(t, err)
	require.Equal(t, "major_outage", status(github, "ghactions001"))
	require.Len(t, github.Incidents, 1)
	require.Equal(t, "Actions delayed", github.Incidents[0].Name)

	openai, err := fetch(ctx, t, ps.Page("openai").URL())
	require.NoError(t, err)
	require.Empty(t, openai.Incidents)
	for _, c := range openai.Components {
		require.Equal(t, "operational", c.Status, c.Name)
	}

	// Two pages of the same kind are apart too.
	same := fakes.NewPages(fakes.PageSpec{Name: "a", Kind: fakes.KindStatuspage}, fakes.PageSpec{Name: "b", Kind: fakes.KindStatuspage})
	defer same.Close()
	same.Page("a").SetComponent("api0000001", "API", "major_outage")
	a, err := fetch(ctx, t, same.Page("a").URL())
	require.NoError(t, err)
	b, err := fetch(ctx, t, same.Page("b").URL())
	require.NoError(t, err)
	require.Equal(t, "major_outage", status(a, "api0000001"))
	require.Equal(t, "operational", status(b, "api0000001"))
}

// A fault on one page leaves the other answering, and each page counts
// its own requests.
func TestPagesHaveTheirOwnFaults(t *testing.T) {
	ps := twoPages(t)
	ctx := context.Background()
	openai, gh := ps.Page("openai"), ps.Page("github")

	gh.Fault("", fakes.ServerError)
	_, err := fetch(ctx, t, gh.URL())
	require.Error(t, err)
	before := openai.TotalRequests()
	_, err = fetch(ctx, t, openai.URL())
	require.NoError(t, err, "the other page is untouched by the fault")
	require.Greater(t, openai.TotalRequests(), before)
	ghRequests := gh.TotalRequests()
	require.Positive(t, ghRequests)
	gh.Fault("", nil)
	_, err = fetch(ctx, t, gh.URL())
	require.NoError(t, err, "fault removed")

	// A page that hangs holds its own requests only.
	openai.Fault("", fakes.Hang)
	hung, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := fetch(hung, t, openai.URL()); done <- err }()
	_, err = fetch(ctx, t, gh.URL())
	require.NoError(t, err, "answers while the other page hangs")
	select {
	case err := <-done:
		t.Fatalf("the hanging page answered: %v", err)
	default:
	}
	cancel()
	require.Error(t, <-done)
}

func TestNewPagesRefusesBadSpecs(t *testing.T) {
	for _, specs := range [][]fakes.PageSpec{
		{{Name: "OpenAI", Kind: fakes.KindIncidentIO}},
		{{Name: "a", Kind: "atlassian"}},
		{{Name: "a", Kind: fakes.KindStatuspage}, {Name: "a", Kind: fakes.KindIncidentIO}},
	} {
		require.Panics(t, func() { fakes.NewPages(specs...) }, "%+v", specs)
	}
}

// A forced provider travels into STATUS_PAGES.
func TestPagesForcedProvider(t *testing.T) {
	ps := fakes.NewPages(fakes.PageSpec{Name: "sp", Kind: fakes.KindStatuspage, Provider: "statuspage"})
	defer ps.Close()
	require.Equal(t, "sp=statuspage:"+ps.Page("sp").URL(), ps.StatusPages())
}
