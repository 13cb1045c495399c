package pages_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// A chat's list may name pages removed from the offer (gone): they count
// as followed nowhere (Live, LiveNames), leaving the last page on offer is
// refused (UnfollowLive) and a restore keeps only what is offered.
func TestRemovedPagesAreFollowedNowhere(t *testing.T) {
	o := pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "status"}}, Legacy: "openai"} // github removed
	for _, c := range []struct {
		name         string
		stored       []string
		live, gone   []string
		liveNames    []string
		leave        string
		after        []string
		left         bool
		lastPage     bool
		restored     []string
		restoredGone []string
	}{
		{name: "only a removed page", stored: []string{"github"}, gone: []string{"github"}, leave: "github",
			after: []string{"github"}, lastPage: true, restored: []string{""}, restoredGone: []string{"github"}},
		{name: "the legacy page and a removed one", stored: []string{"", "github"}, live: []string{""}, gone: []string{"github"},
			liveNames: []string{"openai"}, leave: "", after: []string{"", "github"}, lastPage: true,
			restored: []string{""}, restoredGone: []string{"github"}},
		{name: "leaving the removed page", stored: []string{"", "github"}, live: []string{""}, gone: []string{"github"},
			liveNames: []string{"openai"}, leave: "github", after: []string{""}, left: true, restored: []string{""}, restoredGone: []string{"github"}},
		{name: "two live pages and a removed one", stored: []string{"status", "github", ""}, live: []string{"status", ""}, gone: []string{"github"},
			liveNames: []string{"openai", "status"}, leave: "status", after: []string{""}, left: true,
			restored: []string{"status", ""}, restoredGone: []string{"github"}},
		{name: "nothing stored: the legacy page", stored: nil, live: []string{""}, liveNames: []string{"openai"}, leave: "",
			after: []string{""}, lastPage: true, restored: []string{""}},
	} {
		if got := o.Live(c.stored); !slices.Equal(got, c.live) {
			t.Errorf("%s: Live %v, want %v", c.name, got, c.live)
		}
		if got := o.Gone(c.stored); !slices.Equal(got, c.gone) {
			t.Errorf("%s: Gone %v, want %v", c.name, got, c.gone)
		}
		if got := o.LiveNames(c.stored); !slices.Equal(got, c.liveNames) {
			t.Errorf("%s: LiveNames %v, want %v", c.name, got, c.liveNames)
		}
		after, left, err := o.UnfollowLive(c.stored, c.leave)
		if !slices.Equal(after, c.after) || left != c.left || errors.Is(err, pages.ErrLastPage) != c.lastPage {
			t.Errorf("%s: UnfollowLive(%q) = %v %v %v, want %v %v last page %v", c.name, c.leave, after, left, err, c.after, c.left, c.lastPage)
		}
		kept, dropped := pages.Restorable(c.stored, o.Lists, "")
		if !slices.Equal(kept, c.restored) || !slices.Equal(dropped, c.restoredGone) {
			t.Errorf("%s: Restorable %v %v, want %v %v", c.name, kept, dropped, c.restored, c.restoredGone)
		}
	}
}
