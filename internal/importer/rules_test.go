package importer

import (
	"slices"
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		key    string
		chat   int64
		thread int
		ok     bool
	}{
		{"123", 123, 0, true},
		{"-1001234567890", -1001234567890, 0, true},
		{"-1001234567890:42", -1001234567890, 42, true},
		{"", 0, 0, false},
		{"abc", 0, 0, false},
		{"-100:0", 0, 0, false},
		{"-100:x", 0, 0, false},
		{"0", 0, 0, false},
	} {
		chat, thread, err := ParseKey(tc.key)
		if (err == nil) != tc.ok || chat != tc.chat || thread != tc.thread {
			t.Errorf("ParseKey(%q) = %d, %d, %v", tc.key, chat, thread, err)
		}
	}
}

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		types   []string
		want    []event.Kind
		unknown []string
	}{
		{nil, event.DefaultKinds, nil},
		{[]string{"incident", "component"}, event.DefaultKinds, nil},
		{[]string{"all"}, event.DefaultKinds, nil},
		{[]string{"incident"}, []event.Kind{event.KindIncident}, nil},
		{[]string{"Component"}, []event.Kind{event.KindComponent}, nil},
		{[]string{"incident", "sms"}, []event.Kind{event.KindIncident}, []string{"sms"}},
		{[]string{"sms"}, event.DefaultKinds, []string{"sms"}},
	} {
		got, unknown := Kinds(tc.types)
		if !slices.Equal(got, tc.want) || !slices.Equal(unknown, tc.unknown) {
			t.Errorf("Kinds(%q) = %v, %v", tc.types, got, unknown)
		}
	}
}

var today = []statuspage.Component{
	{ID: "01GROUPAPIS0000000000000000", Name: "APIs", Group: true},
	{ID: "01RESPONSES000000000000000", Name: "Responses", GroupName: "APIs"},
	{ID: "01IMAGES000000000000000000", Name: "Images", GroupName: "APIs"},
	{ID: "01APILOGIN0000000000000000", Name: "Login", GroupName: "APIs"},
	{ID: "01CGTLOGIN0000000000000000", Name: "Login", GroupName: "ChatGPT"},
}

var oldComponents = map[string]OldComponent{
	"rsp4kx2ylg0q": {ID: "rsp4kx2ylg0q", Name: "Responses"},
	"img8w1hq2m3d": {ID: "img8w1hq2m3d", Name: "images "},
	"lgn0apis0001": {ID: "lgn0apis0001", Name: "Login", Group: "APIs"},
	"lgn0nogroup1": {ID: "lgn0nogroup1", Name: "Login"},
	"gone00000001": {ID: "gone00000001", Name: "Playground"},
}

func TestMapFilter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		filter   []string
		ids      []string
		byID     int
		byName   int
		unmapped string // substring of the first reason
	}{
		{"empty stays every component", nil, []string{}, 0, 0, ""},
		{"today's ID kept, any case", []string{"01responses000000000000000"}, []string{"01RESPONSES000000000000000"}, 1, 0, ""},
		{"old ID by its recorded name", []string{"rsp4kx2ylg0q"}, []string{"01RESPONSES000000000000000"}, 0, 1, ""},
		{"name ignoring case and spaces", []string{"img8w1hq2m3d"}, []string{"01IMAGES000000000000000000"}, 0, 1, ""},
		{"old record holding a name", []string{"Images"}, []string{"01IMAGES000000000000000000"}, 0, 1, ""},
		{"shared name settled by group", []string{"lgn0apis0001"}, []string{"01APILOGIN0000000000000000"}, 0, 1, ""},
		{"shared name without group", []string{"lgn0nogroup1"}, []string{"lgn0nogroup1"}, 0, 0, `2 components are named "Login": 01APILOGIN0000000000000000 (APIs), 01CGTLOGIN0000000000000000 (ChatGPT)`},
		{"name gone from the page", []string{"gone00000001"}, []string{"gone00000001"}, 0, 0, `no component named "Playground"`},
		{"unknown ID", []string{"zzzz9999zzzz"}, []string{"zzzz9999zzzz"}, 0, 0, "give no name for it"},
		{"two entries for one component", []string{"rsp4kx2ylg0q", "Responses"}, []string{"01RESPONSES000000000000000"}, 0, 2, ""},
		{"group row is not a component", []string{"APIs"}, []string{"APIs"}, 0, 0, `no component named "APIs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MapFilter(tc.filter, oldComponents, today)
			if !slices.Equal(m.IDs, tc.ids) || m.ByID != tc.byID || m.ByName != tc.byName {
				t.Fatalf("%+v", m)
			}
			if tc.unmapped == "" {
				if len(m.Unmapped) > 0 {
					t.Fatalf("unmapped %+v", m.Unmapped)
				}
				return
			}
			if len(m.Unmapped) != 1 || !strings.Contains(m.Unmapped[0].Why, tc.unmapped) {
				t.Fatalf("unmapped %+v, want %q", m.Unmapped, tc.unmapped)
			}
		})
	}
}
