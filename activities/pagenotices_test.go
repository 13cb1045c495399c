package activities_test

import (
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/i18n"
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

// A page notice speaks the follower's language: a German chat is told in
// German, the page's name and hosts as they are; every language renders
// every case with no English frame left.
func TestPageNoticeTextInTheChatsLanguage(t *testing.T) {
	two := pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "gitlab"}}, Legacy: "openai"}
	one := pages.Offer{List: []pages.Page{{Name: "openai"}}, Legacy: "openai"}
	removed := store.PageNotice{Kind: store.PageRemoved, Page: "github", Name: "github", Host: "www.githubstatus.com"}
	repointed := store.PageNotice{Kind: store.PageRepointed, Page: "github", Name: "github", FromHost: "www.githubstatus.com", Host: "status.gitlab.com"}
	de := i18n.Of("de")
	for _, c := range []struct {
		got  string
		want []string
	}{
		{activities.PageNoticeTextIn(de, repointed, two, []string{"github"}),
			[]string{"Die Statusseite <b>github</b>", "jetzt unter status.gitlab.com", "bisher www.githubstatus.com"}},
		{activities.PageNoticeTextIn(de, removed, two, []string{"", "github"}),
			[]string{"Der Bot beobachtet <b>github</b> (www.githubstatus.com) nicht mehr", "\nWeiter verfolgt: openai."}},
		{activities.PageNoticeTextIn(de, removed, one, []string{"github"}),
			[]string{"Dieser Chat folgt jetzt keiner Seite. Um openai zu folgen, sende /subscribe page openai."}},
		{activities.PageNoticeTextIn(de, removed, two, []string{"github"}),
			[]string{"(angeboten werden openai, gitlab)"}},
	} {
		bottest.CheckHTML(t, c.got)
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("%q lacks %q", c.got, w)
			}
		}
	}
	english := []string{"no longer watches", "Still followed", "follows no page", "has changed", "on offer", "Choose one"}
	for _, l := range i18n.Languages[1:] {
		for _, n := range []store.PageNotice{removed, repointed} {
			for _, o := range []pages.Offer{one, two, {}} {
				got := activities.PageNoticeTextIn(i18n.Of(l.Tag), n, o, []string{"github"})
				bottest.CheckHTML(t, got)
				for _, w := range english {
					if strings.Contains(got, w) {
						t.Errorf("%s: %q has English %q", l.Tag, got, w)
					}
				}
			}
		}
	}
}
