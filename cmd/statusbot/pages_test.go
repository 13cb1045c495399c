package main

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Readiness follows the legacy page while it is listed, else the default:
// a legacy page removed from the list must not leave the worker judged by
// a snapshot nobody writes any more.
func TestPrimaryPage(t *testing.T) {
	list := []pages.Page{{Name: "github"}, {Name: "openai"}}
	for _, tc := range []struct {
		legacy, want string
	}{
		{"openai", "openai"},
		{"github", "github"},
		{"gone", "github"},
	} {
		if got := primaryPage(pages.Offer{List: list, Legacy: tc.legacy}); got != tc.want {
			t.Errorf("legacy %s: primaryPage = %s, want %s", tc.legacy, got, tc.want)
		}
	}
}
