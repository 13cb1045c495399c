package activities_test

import (
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// What a follower of a changed page is told: the page, from which host to
// which; for a removed page what the chat still follows, or how to choose
// a page (the one left, or the pages on offer).
func TestPageNoticeText(t *testing.T) {
	one := pages.Offer{List: []pages.Page{{Name: "openai"}}, Legacy: "openai"}
	two := pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "gitlab"}}, Legacy: "openai"}
	removed := store.PageNotice{Kind: store.PageRemoved, Page: "github", Name: "github", Host: "www.githubstatus.com"}
	for _, c := range []struct {
		name   string
		n      store.PageNotice
		o      pages.Offer
		stored []string
		want   []string
		not    []string
	}{
		{"repointed", store.PageNotice{Kind: store.PageRepointed, Page: "github", Name: "github", FromHost: "www.githubstatus.com", Host: "status.gitlab.com"},
			two, []string{"github"}, []string{"<b>github</b>", "has changed", "now status.gitlab.com", "was www.githubstatus.com", "not re-sent"}, nil},
		{"removed, another page followed", removed, two, []string{"", "github"},
			[]string{"no longer watches <b>github</b> (www.githubstatus.com)", "Still followed: openai."}, []string{"follows no page"}},
		{"removed, nothing else, one page on offer", removed, one, []string{"github"},
			[]string{"follows no page", "/subscribe page openai"}, []string{"Still followed"}},
		{"removed, nothing else, two on offer", removed, two, []string{"github"},
			[]string{"follows no page", "/subscribe page &lt;name&gt;", "the pages on offer are openai, gitlab"}, nil},
		{"a name needing escapes", store.PageNotice{Kind: store.PageRemoved, Name: "a<b", Host: "x&y"}, one, []string{"a<b"},
			[]string{"<b>a&lt;b</b>", "(x&amp;y)"}, nil},
	} {
		got := activities.PageNoticeText(c.n, c.o, c.stored)
		bottest.CheckHTML(t, got)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", c.name, got, w)
			}
		}
	}
}
