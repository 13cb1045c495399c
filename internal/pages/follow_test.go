package pages_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

var twoPages = pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "github"}}, Legacy: "openai"}

func TestFollowed(t *testing.T) {
	for _, c := range []struct {
		name   string
		stored []string
		want   []string
	}{
		{"recorded before pages: the legacy page", nil, []string{""}},
		{"an empty list: the legacy page", []string{}, []string{""}},
		{"the legacy page", []string{""}, []string{""}},
		{"two pages", []string{"", "github"}, []string{"", "github"}},
		{"another page only", []string{"github"}, []string{"github"}},
	} {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, pages.Followed(c.stored)) })
	}
	require.True(t, pages.Follows(nil, ""))
	require.False(t, pages.Follows(nil, "github"))
	require.False(t, pages.Follows([]string{"github"}, ""), "a chat of github alone does not hear the legacy page")
}

func TestFollowAndUnfollow(t *testing.T) {
	for _, c := range []struct {
		name    string
		stored  []string
		page    string
		follow  bool
		want    []string
		changed bool
		err     error
	}{
		{"follow a second page from before pages", nil, "github", true, []string{"", "github"}, true, nil},
		{"follow again", []string{"", "github"}, "github", true, []string{"", "github"}, false, nil},
		{"leave one of two", []string{"", "github"}, "", false, []string{"github"}, true, nil},
		{"leave the last", []string{"github"}, "github", false, []string{"github"}, false, pages.ErrLastPage},
		{"leave the legacy page recorded before pages: the last", nil, "", false, []string{""}, false, pages.ErrLastPage},
		{"leave one not followed", []string{""}, "github", false, []string{""}, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			var changed bool
			var err error
			if c.follow {
				got, changed = pages.Follow(c.stored, c.page)
			} else {
				got, changed, err = pages.Unfollow(c.stored, c.page)
			}
			require.True(t, errors.Is(err, c.err), "err %v", err)
			require.Equal(t, c.want, got)
			require.Equal(t, c.changed, changed)
		})
	}
	// The stored list is not changed in place.
	stored := []string{"", "github", "x"}
	_, _, _ = pages.Unfollow(stored, "")
	require.Equal(t, []string{"", "github", "x"}, stored)
}

func TestFilterOfAPage(t *testing.T) {
	filter := []string{"api", "Login", "github/git01", "github/act02", "other/x"}
	for _, c := range []struct {
		page string
		want []string
	}{
		{"", []string{"api", "Login"}},
		{"github", []string{"github/git01", "github/act02"}},
		{"other", []string{"other/x"}},
		{"none", nil},
	} {
		t.Run(c.page, func(t *testing.T) { require.Equal(t, c.want, pages.FilterOf(filter, c.page)) })
	}
	require.Equal(t, []string{"api", "Login", "other/x"}, pages.WithoutPage(filter, "github"))
	require.Equal(t, []string{"github/git01", "github/act02", "other/x"}, pages.WithoutPage(filter, ""))
	require.Equal(t, []string{}, pages.WithoutPage(nil, ""))
}

func TestNamesAndLabels(t *testing.T) {
	require.Equal(t, []string{"openai", "github"}, twoPages.Names([]string{"github", ""}), "the offer's order")
	require.Equal(t, []string{"github", "gone"}, twoPages.Names([]string{"gone", "github"}), "a page no longer offered is still named")
	for _, c := range []struct {
		name   string
		stored []string
		page   string
		want   string
	}{
		{"one page followed: no name", nil, "", ""},
		{"another page alone: no name", []string{"github"}, "github", ""},
		{"two pages: the legacy page by its name", []string{"", "github"}, "", "openai"},
		{"two pages: the other", []string{"", "github"}, "github", "github"},
	} {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, twoPages.Label(c.stored, c.page)) })
	}
}

func TestLookup(t *testing.T) {
	p, err := twoPages.Lookup("  GitHub ")
	require.NoError(t, err)
	require.Equal(t, "github", p.Name)
	_, err = twoPages.Lookup("gitlab")
	require.EqualError(t, err, `no page is called "gitlab"; the pages on offer are openai, github`)
	_, err = twoPages.Lookup("")
	require.EqualError(t, err, "say which page: the pages on offer are openai, github")
	_, err = twoPages.Lookup(strings.Repeat("x", 100))
	require.Error(t, err)
	require.Less(t, len(err.Error()), 120, "a long name is cut in the answer")
}

func TestConfigOffer(t *testing.T) {
	o := pages.ConfigOffer(twoPages.List)
	require.Equal(t, "openai", o.Legacy)
	require.Equal(t, "", o.EventPage("openai"))
	require.Equal(t, pages.Offer{}, pages.ConfigOffer(nil))
}
