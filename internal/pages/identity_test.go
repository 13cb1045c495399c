package pages_test

import (
	"slices"
	"strings"
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

// Whatever the list and the records: every listed page has an ID, no two
// the same, each fit to scope identifiers with; every record is either a
// listed page's or removed.
func FuzzResolve(f *testing.F) {
	f.Add("openai=a,github=b", "openai=a,github=b")
	f.Add("chatgpt=a,gh=b", "openai=a,github=b")
	f.Add("github=c,gh=b", "github=b")
	f.Add("a=x,a-2=y,b=z", "a=w,a-2=v")
	f.Fuzz(func(t *testing.T, listed, recorded string) {
		parse := func(s string) []Page {
			var out []Page
			seenName, seenURL := map[string]bool{}, map[string]bool{}
			for _, e := range strings.Split(s, ",") {
				name, u, ok := strings.Cut(e, "=")
				if !ok || pages.NameError(name) != "" || u == "" || seenName[name] || seenURL[u] {
					continue
				}
				seenName[name], seenURL[u] = true, true
				out = append(out, Page{Name: name, URL: "https://" + u + ".example"})
			}
			return out
		}
		list := parse(listed)
		var recs []pages.Record
		for _, p := range parse(recorded) {
			recs = append(recs, pages.Record{ID: p.Name, Name: p.Name, URL: p.URL})
		}
		res := pages.Resolve(list, recs)
		ids := map[string]bool{}
		for _, p := range list {
			id, ok := res.IDs[p.Name]
			if !ok || ids[id] || pages.NameError(id) != "" {
				t.Fatalf("page %s: ID %q (%v)", p.Name, id, res.IDs)
			}
			ids[id] = true
		}
		for _, r := range recs {
			if ids[r.ID] == slices.ContainsFunc(res.Removed, func(x pages.Record) bool { return x.ID == r.ID }) {
				t.Fatalf("record %s: listed %v, removed %v", r.ID, ids[r.ID], res.Removed)
			}
		}
	})
}

type Page = pages.Page
