package commands

import (
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func TestComponentsListedByGroup(t *testing.T) {
	p := &statuspage.Page{Components: []statuspage.Component{
		{ID: "g1", Name: "APIs", Group: true},
		{ID: "a", Name: "Login", GroupName: "APIs", Status: "operational"},
		{ID: "g2", Name: "ChatGPT", Group: true},
		{ID: "b", Name: "Login", GroupName: "ChatGPT", Status: "major_outage"},
		{ID: "c", Name: "Status API", Status: "operational"},
	}}
	got := componentsList(p)
	for _, want := range []string{"<b>APIs</b>\n• Login (APIs): Operational", "<b>ChatGPT</b>\n• Login (ChatGPT): Major Outage", "<b>Other</b>\n• Status API"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if !strings.Contains(statusOverview(p), "Login (ChatGPT): Major Outage") {
		t.Error("overview lacks the component in trouble")
	}
	if names := screens.ComponentNames(screens.Components(p)); names["b"] != "Login (ChatGPT)" || names["c"] != "Status API" {
		t.Errorf("names %v", names)
	}
}
