package pages_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

func TestResolve(t *testing.T) {
	oa := pages.Record{ID: "openai", Name: "openai", URL: "https://status.openai.com"}
	gh := pages.Record{ID: "github", Name: "github", URL: "https://www.githubstatus.com"}
	for _, c := range []struct {
		name string
		list []pages.Page
		recs []pages.Record
		want pages.Resolution
	}{
		{"unchanged", []pages.Page{{Name: "openai", URL: "https://status.openai.com/"}}, []pages.Record{oa},
			pages.Resolution{IDs: map[string]string{"openai": "openai"}}},
		{"renamed: the URL decides", []pages.Page{{Name: "chatgpt", URL: "https://STATUS.openai.com"}}, []pages.Record{oa},
			pages.Resolution{IDs: map[string]string{"chatgpt": "openai"},
				Renamed: []pages.Change{{ID: "openai", Name: "chatgpt", URL: "https://STATUS.openai.com", FromName: "openai"}}}},
		{"repointed: the name, its old URL gone", []pages.Page{{Name: "github", URL: "https://status.gitlab.com"}}, []pages.Record{gh},
			pages.Resolution{IDs: map[string]string{"github": "github"},
				Repointed: []pages.Change{{ID: "github", Name: "github", URL: "https://status.gitlab.com", FromURL: gh.URL}}}},
		{"swapped: the URLs decide, the names follow",
			[]pages.Page{{Name: "github", URL: oa.URL}, {Name: "openai", URL: gh.URL}}, []pages.Record{oa, gh},
			pages.Resolution{IDs: map[string]string{"github": "openai", "openai": "github"}, Renamed: []pages.Change{
				{ID: "openai", Name: "github", URL: oa.URL, FromName: "openai"}, {ID: "github", Name: "openai", URL: gh.URL, FromName: "github"}}}},
		{"a name's old URL listed under another name: a new page with a new ID",
			[]pages.Page{{Name: "gh", URL: gh.URL}, {Name: "github", URL: "https://x.example"}}, []pages.Record{gh},
			pages.Resolution{IDs: map[string]string{"gh": "github", "github": "github-2"},
				Renamed: []pages.Change{{ID: "github", Name: "gh", URL: gh.URL, FromName: "github"}},
				Added:   []pages.Change{{ID: "github-2", Name: "github", URL: "https://x.example"}}}},
		{"removed and added", []pages.Page{{Name: "gitlab", URL: "https://status.gitlab.com"}}, []pages.Record{oa},
			pages.Resolution{IDs: map[string]string{"gitlab": "gitlab"},
				Added: []pages.Change{{ID: "gitlab", Name: "gitlab", URL: "https://status.gitlab.com"}}, Removed: []pages.Record{oa}}},
	} {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, pages.Resolve(c.list, c.recs)) })
	}
}

func TestFreeIDIsAValidName(t *testing.T) {
	long := "abcdefghijklmnopqrs-"[:19] + "t" // 20 characters
	recs := []pages.Record{{ID: long, Name: "x", URL: "https://a.example"}}
	res := pages.Resolve([]pages.Page{{Name: "x", URL: "https://a.example"}, {Name: long, URL: "https://b.example"}}, recs)
	id := res.IDs[long]
	require.Equal(t, "", pages.NameError(id), id)
	require.NotEqual(t, long, id)
}

func TestOfferKeys(t *testing.T) {
	o := pages.Offer{List: []pages.Page{{Name: "chatgpt"}, {Name: "gh"}}, Legacy: "chatgpt", Keys: map[string]string{"chatgpt": "", "gh": "github"}}
	require.Equal(t, "", o.EventPage("chatgpt"))
	require.Equal(t, "github", o.EventPage("gh"))
	require.Equal(t, "gh", o.NameOf("github"))
	require.Equal(t, "chatgpt", o.NameOf(""))
	require.Equal(t, "github/inc1", o.Scope("gh", "inc1"))
	require.Equal(t, []string{"chatgpt", "gh"}, o.Names([]string{"github", ""}))
}
