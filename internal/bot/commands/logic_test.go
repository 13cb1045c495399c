package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func TestResolveComponent(t *testing.T) {
	comps := screens.Components(bottest.Page(""))
	dup := append(comps, statuspage.Component{ID: "api2", Name: "API", Status: "operational"})
	logins := []statuspage.Component{{ID: "login1", Name: "Login", GroupName: "APIs"}, {ID: "login2", Name: "Login", GroupName: "ChatGPT"}}
	tests := []struct {
		comps []statuspage.Component
		q     string
		match string
		amb   []string
	}{
		{comps, "api1", "api1", nil},
		{comps, "API1", "api1", nil},
		{comps, "api", "api1", nil},                     // exact name
		{comps, "  \"Sora\" ", "sora1", nil},            // quotes and spaces
		{comps, "chatgpt", "chat1", nil},                // exact name beats substring
		{comps, "enterprise", "chat2", nil},             // substring
		{comps, "chat", "", []string{"chat1", "chat2"}}, // ambiguous substring
		{comps, "APIs", "", nil},                        // group rows are not components
		{comps, "grp1", "", nil},
		{comps, "", "", nil},
		{comps, "zzz", "", nil},
		{dup, "api", "", []string{"api1", "api2"}}, // ambiguous exact name
		{dup, "API2", "api2", nil},                 // the ID settles it
		// Two "Login"s in different groups: /components shows
		// "Login (ChatGPT)", and that name can be typed back.
		{logins, "Login (ChatGPT)", "login2", nil},
		{logins, "login (apis)", "login1", nil},
		{logins, "Login", "", []string{"login1", "login2"}},
	}
	for _, tt := range tests {
		r := ResolveComponent(tt.comps, tt.q)
		got := ""
		if r.Match != nil {
			got = r.Match.ID
		}
		var amb []string
		for _, c := range r.Ambiguous {
			amb = append(amb, c.ID)
		}
		if got != tt.match || strings.Join(amb, ",") != strings.Join(tt.amb, ",") {
			t.Errorf("ResolveComponent(%q) = %q %v, want %q %v", tt.q, got, amb, tt.match, tt.amb)
		}
	}
}

func TestComponentsSkipsGroupsAndDuplicates(t *testing.T) {
	p := bottest.Page("")
	p.Components = append(p.Components, statuspage.Component{ID: "api1", Name: "API again"})
	var ids []string
	for _, c := range screens.Components(p) {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "api1,emb1,chat1,chat2,sora1" {
		t.Fatalf("components = %v", ids)
	}
	names := screens.ComponentNames([]statuspage.Component{{ID: "a", Name: "X"}, {ID: "b", Name: "X"}, {ID: "c", Name: ""}})
	if names["a"] != "X (a)" || names["b"] != "X (b)" || names["c"] != "c" {
		t.Fatalf("names = %v", names)
	}
	if filterIndex([]string{"api1", "Old Name"}, "old name") != 1 || filterIndex([]string{"x"}, "y") != -1 {
		t.Fatal("filterIndex")
	}
}

func TestUptime(t *testing.T) {
	now := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	h := func(d time.Duration) time.Time { return now.Add(-d) }
	day := 24 * time.Hour
	comp := func(status string, since time.Time) statuspage.Component {
		return statuspage.Component{ID: "c", Name: "C", Status: status, UpdatedAt: since}
	}
	entry := func(status string, at time.Time) store.HistoryEntry {
		return store.HistoryEntry{ComponentID: "c", Status: status, At: at}
	}
	tests := []struct {
		name string
		c    statuspage.Component
		hist []store.HistoryEntry
		want []string // 24h, 7d, 30d
	}{
		{"never changed", comp("operational", h(400*day)), nil, []string{"100%", "100%", "100%"}},
		{"never recorded, no time", comp("operational", time.Time{}), nil, []string{"100%", "100%", "100%"}},
		{"down for ages", comp("major_outage", h(400*day)), nil, []string{"0.00%", "0.00%", "0.00%"}},
		{"maintenance counts as up", comp("under_maintenance", h(2*time.Hour)), nil, []string{"100%", "100%", "100%"}},
		{"down 6h, nothing recorded before", comp("partial_outage", h(6*time.Hour)), nil, []string{"75.00%", "96.42%", "99.16%"}},
		{"recorded outage, recovered", comp("operational", h(10*day)),
			[]store.HistoryEntry{entry("major_outage", h(11*day)), entry("operational", h(10*day))},
			[]string{"100%", "100%", "96.66%"}},
		{"outage began before the window", comp("operational", h(12*time.Hour)),
			[]store.HistoryEntry{entry("degraded_performance", h(40*day)), entry("operational", h(12*time.Hour))},
			[]string{"50.00%", "7.14%", "1.66%"}},
		{"pipeline behind the snapshot", comp("major_outage", h(3*time.Hour)),
			[]store.HistoryEntry{entry("operational", h(20*day))},
			[]string{"87.50%", "98.21%", "99.58%"}},
		{"history out of order and in the future", comp("operational", h(time.Hour)),
			[]store.HistoryEntry{entry("operational", h(time.Hour)), entry("major_outage", h(2*time.Hour)), entry("major_outage", now.Add(time.Hour))},
			[]string{"95.83%", "99.40%", "99.86%"}},
		{"other components' entries ignored", comp("operational", h(400*day)),
			[]store.HistoryEntry{{ComponentID: "other", Status: "major_outage", At: h(time.Hour)}},
			[]string{"100%", "100%", "100%"}},
	}
	for _, tt := range tests {
		ups := ComputeUptime([]statuspage.Component{tt.c}, tt.hist, now)
		var got []string
		for _, f := range ups[0].Fractions {
			got = append(got, formatPercent(f))
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFormatPercent(t *testing.T) {
	for f, want := range map[float64]string{1: "100%", 1.2: "100%", 0.99999: "99.99%", 0.5: "50.00%", 0: "0.00%", -1: "0.00%", 0.123456: "12.34%"} {
		if got := formatPercent(f); got != want {
			t.Errorf("formatPercent(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestRepliesAreBounded(t *testing.T) {
	p := &statuspage.Page{Name: "OpenAI", URL: "https://status.openai.com"}
	for i := 0; i < 400; i++ {
		id := strings.Repeat("x", 8) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		p.Components = append(p.Components, statuspage.Component{ID: id, Name: strings.Repeat("<Ä>", 30), Status: "major_outage"})
		p.Incidents = append(p.Incidents, statuspage.Incident{ID: id, Name: strings.Repeat("&😀", 300), Impact: "major", Status: "resolved"})
	}
	ups := ComputeUptime(screens.Components(p), nil, time.Now())
	for name, s := range map[string]string{
		"status":     statusOverview(p),
		"components": componentsList(p),
		"history":    historyReply(p, 10),
		"uptime":     uptimeReply(ups),
		"ambiguous":  ambiguousReply("x", screens.Components(p), screens.ComponentNames(screens.Components(p)), true),
	} {
		bottest.CheckHTML(t, s)
		if !strings.Contains(s, "more.") && name != "history" {
			t.Errorf("%s: no '…and N more.' line", name)
		}
	}
	// Names are cut.
	if got := componentStatus(statuspage.Component{Name: strings.Repeat("n", 1000), Status: "operational"}); screens.UTF16Len(got) > 300 {
		t.Errorf("long name not cut: %d", screens.UTF16Len(got))
	}
}

func TestHistoryReplyOrderAndLinks(t *testing.T) {
	p := bottest.Page("https://status.openai.com/")
	p.Incidents[0].Shortlink = "javascript:alert(1)"
	got := historyReply(p, 1)
	want := "<b>Recent incidents</b>\n\n<b>1. Elevated errors on API</b>\nImpact: Minor · Status: Investigating\nCreated: <tg-time unix=\"1772960520\" format=\"dt\">2026-03-08 09:02 UTC</tg-time>\n<a href=\"https://status.openai.com/incidents/inc1\">Details</a>"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := historyReply(&statuspage.Page{}, 5); got != "No recent incidents." {
		t.Fatal(got)
	}
	// Maintenances are not incidents, however recent.
	mnt := statuspage.Incident{ID: "m1", Name: "Database upgrade", Impact: "maintenance", Status: "completed", CreatedAt: time.Now()}
	if got := historyReply(&statuspage.Page{Incidents: []statuspage.Incident{mnt}}, 5); got != "No recent incidents." {
		t.Fatal(got)
	}
	if got := historyReply(&statuspage.Page{IncidentsErr: "HTTP 500"}, 5); !strings.HasPrefix(got, "Incident history is unavailable") {
		t.Fatal(got)
	}
	// incidents.json failed but the maintenances were read: still no
	// incident list to show, not "No recent incidents".
	if got := historyReply(&statuspage.Page{IncidentsErr: "HTTP 500", Incidents: []statuspage.Incident{mnt}}, 5); !strings.HasPrefix(got, "Incident history is unavailable") {
		t.Fatal(got)
	}
}

// Percentages as each language writes them (CLDR); English as it always
// read, rounded down.
func TestFormatPercentIn(t *testing.T) {
	for _, c := range []struct {
		tag  string
		f    float64
		want string
	}{
		{"en", 0.99956, "99.95%"}, {"en", 1, "100%"}, {"en", 0, "0.00%"},
		{"de", 0.99956, "99,95\u00a0%"}, {"de", 1, "100\u00a0%"}, {"de", 0, "0,00\u00a0%"},
		{"fr", 0.5, "50,00\u00a0%"}, {"tr", 0.99956, "%99,95"}, {"pt-BR", 0.123456, "12,34%"},
		{"ja", 0.99956, "99.95%"}, {"fa", 0.99956, "۹۹٫۹۵٪"},
	} {
		if got := formatPercentIn(c.tag, c.f); got != c.want {
			t.Errorf("formatPercentIn(%s, %v) = %q, want %q", c.tag, c.f, got, c.want)
		}
	}
}
