package commands

import (
	"slices"
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

var offerTwo = pages.Offer{List: []pages.Page{{Name: "openai"}, {Name: "github"}}, Legacy: "openai"}

func TestSplitPageArg(t *testing.T) {
	for _, c := range []struct {
		offer      pages.Offer
		args       string
		page, rest string
	}{
		{offerTwo, "", "", ""},
		{offerTwo, "github", "github", ""},
		{offerTwo, "GitHub API", "github", "API"},
		{offerTwo, "github, 3", "github", "3"},
		{offerTwo, "API", "", "API"},
		{offerTwo, "gitlab API", "", "gitlab API"},
		{pages.Offer{List: []pages.Page{{Name: "openai"}}, Legacy: "openai"}, "openai", "", "openai"},
	} {
		page, rest := SplitPageArg(c.offer, c.args)
		if page != c.page || rest != c.rest {
			t.Errorf("SplitPageArg(%q) = %q, %q; want %q, %q", c.args, page, rest, c.page, c.rest)
		}
	}
}

func TestParsePageArg(t *testing.T) {
	for _, c := range []struct {
		args string
		name string
		ok   bool
	}{
		{"page github", "github", true},
		{"Page  “github”", "github", true},
		{"pages", "", true},
		{"page", "", true},
		{"component github", "", false},
		{"incident", "", false},
		{"", "", false},
		{"pagey x", "", false},
	} {
		name, ok := ParsePageArg(c.args)
		if name != c.name || ok != c.ok {
			t.Errorf("ParsePageArg(%q) = %q, %v; want %q, %v", c.args, name, ok, c.name, c.ok)
		}
	}
}

func TestCovered(t *testing.T) {
	for _, c := range []struct {
		name  string
		sub   *store.Subscriber
		typed string
		want  []string
	}{
		{"not subscribed: the default page", nil, "", []string{"openai"}},
		{"recorded before pages", &store.Subscriber{}, "", []string{"openai"}},
		{"both, in the offer's order", &store.Subscriber{Pages: []string{"github", ""}}, "", []string{"openai", "github"}},
		{"one page typed", &store.Subscriber{Pages: []string{"github", ""}}, "github", []string{"github"}},
		{"a page no longer offered is left out", &store.Subscriber{Pages: []string{"gone", "github"}}, "", []string{"github"}},
		{"only pages gone: the default", &store.Subscriber{Pages: []string{"gone"}}, "", []string{"openai"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Covered(offerTwo, c.sub, c.typed); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestFollowReply(t *testing.T) {
	for _, c := range []struct {
		list        []string
		on, changed bool
		want        string
	}{
		{[]string{"", "github"}, true, true, "This chat now follows <b>github</b>.\nPages followed: openai, github. Each notice names its page."},
		{[]string{"", "github"}, true, false, "This chat already follows <b>github</b>.\nPages followed: openai, github. Each notice names its page."},
		{[]string{""}, false, true, "This chat no longer follows <b>github</b>; its components left the component filter.\nPages followed: openai."},
		{[]string{""}, false, false, "This chat does not follow <b>github</b>.\nPages followed: openai."},
	} {
		if got := FollowReply(offerTwo, "github", c.list, c.on, c.changed, false, false); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}

// Whatever is typed, a page is taken only when it is on offer, and nothing
// typed is lost: the arguments are the rest, or all of them.
func FuzzSplitPageArg(f *testing.F) {
	for _, s := range []string{"", "github", "GitHub API", "github, 3", "API", " github  x ", "githubx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		page, rest := SplitPageArg(offerTwo, args)
		if page == "" {
			if rest != args {
				t.Fatalf("no page, rest %q != %q", rest, args)
			}
			return
		}
		if _, ok := offerTwo.Find(page); !ok {
			t.Fatalf("page %q not on offer", page)
		}
		if !strings.HasSuffix(strings.TrimSpace(args), rest) || len(rest) >= len(args) {
			t.Fatalf("rest %q is not what follows the page in %q", rest, args)
		}
		if name, ok := ParsePageArg("page " + page); !ok || name != page {
			t.Fatalf("ParsePageArg(page %s) = %q, %v", page, name, ok)
		}
	})
}

// The case: for a chat of two pages /components lists the page's
// "Login (ChatGPT)" (two of its components are called Login), and typed
// back it found nothing: the merged page names it "Login (openai ·
// ChatGPT)". ResolveIn also knows each page's own names.
func TestResolveInFindsTheNamesEachPageShows(t *testing.T) {
	openai := &statuspage.Page{Name: "OpenAI", Components: []statuspage.Component{
		{ID: "g1", Name: "ChatGPT", Group: true, Components: []string{"login1"}},
		{ID: "login1", Name: "Login", GroupID: "g1", GroupName: "ChatGPT", Status: "operational"},
		{ID: "g2", Name: "Sora", Group: true, Components: []string{"login2"}},
		{ID: "login2", Name: "Login", GroupID: "g2", GroupName: "Sora", Status: "operational"},
	}}
	github := &statuspage.Page{Name: "GitHub", Components: []statuspage.Component{
		{ID: "git", Name: "Git Operations", Status: "operational"},
	}}
	parts := []pageset.Part{{Name: "openai", Page: openai}, {Name: "github", EventPage: "github", Page: github}}
	shown := screens.ComponentNames(screens.Components(openai))
	if shown["login1"] != "Login (ChatGPT)" {
		t.Fatalf("/components shows %q", shown["login1"])
	}
	comps := screens.Components(pageset.Merge(parts))
	if res := ResolveComponent(comps, "Login (ChatGPT)"); res.Match != nil {
		t.Fatal("the merged page alone finds it: the test shows nothing")
	}
	res := ResolveIn(comps, parts, "login (chatgpt)")
	if res.Match == nil || res.Match.ID != "login1" {
		t.Fatalf("got %+v", res)
	}
	if res := ResolveIn(comps, parts, "Login"); len(res.Ambiguous) != 2 {
		t.Fatalf("Login alone: %+v", res)
	}
	if res := ResolveIn(comps, parts, "Nothing"); res.Match != nil || len(res.Ambiguous) > 0 {
		t.Fatalf("Nothing: %+v", res)
	}
}

// /uptime for a chat of two pages: on the old code one flat list of every
// component, no page headings, named as the merged page names them.
func TestUptimeByPage(t *testing.T) {
	openai := &statuspage.Page{Name: "OpenAI", Components: []statuspage.Component{
		{ID: "g1", Name: "ChatGPT", Group: true, Components: []string{"login1"}},
		{ID: "login1", Name: "Login", GroupID: "g1", GroupName: "ChatGPT"},
		{ID: "login2", Name: "Login", GroupName: "Sora"},
	}}
	github := &statuspage.Page{Name: "GitHub", Components: []statuspage.Component{{ID: "git", Name: "Git Operations"}}}
	parts := []pageset.Part{{Name: "openai", Page: openai}, {Name: "github", EventPage: "github", Page: github}}
	var ups []ComponentUptime
	for _, c := range screens.Components(pageset.Merge(parts)) {
		ups = append(ups, ComponentUptime{Component: c, Fractions: []float64{1, 1, 0.5}})
	}
	got := UptimeByPage(ups, parts)
	for _, want := range []string{"📄 <b>openai</b>", "📄 <b>github</b>", "Login (ChatGPT)", "Git Operations"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, "·  ChatGPT") || strings.Contains(got, "openai · ChatGPT") {
		t.Errorf("named as the merged page: %s", got)
	}
	if i, j := strings.Index(got, "openai"), strings.Index(got, "Git Operations"); i > j {
		t.Errorf("github's component before openai's heading: %s", got)
	}
}

// Each place (chat, topic, channel) has its own whole sentence in every
// language, never one sentence with the place put in: the three differ,
// and each names the page. Spot checks in German, Russian, French and
// Japanese, and English as it always read.
func TestFollowRepliesPerPlace(t *testing.T) {
	places := []struct{ topic, channel bool }{{false, false}, {true, false}, {false, true}}
	for _, l := range i18n.Languages {
		c := i18n.Of(l.Tag)
		for _, base := range []string{"follow.lastPage", "follow.now", "follow.already", "follow.left", "follow.notFollowing", "follow.followFirst"} {
			seen := map[string]bool{}
			for _, p := range places {
				s := c.T(base+"."+placeKey(p.topic, p.channel), "Name", "github")
				if seen[s] || !strings.Contains(s, "github") {
					t.Errorf("%s %s.%s: %q (the same as another place, or no page name)", l.Tag, base, placeKey(p.topic, p.channel), s)
				}
				seen[s] = true
			}
		}
	}
	list := []string{"", "github"}
	for _, c := range []struct {
		tag            string
		on, changed    bool
		topic, channel bool
		want           string
	}{
		{"de", true, true, false, true, "Dieser Kanal folgt jetzt <b>github</b>.\nVerfolgte Seiten: openai, github. Jede Meldung nennt ihre Seite."},
		{"de", true, false, true, false, "Dieses Thema folgt <b>github</b> bereits.\nVerfolgte Seiten: openai, github. Jede Meldung nennt ihre Seite."},
		{"ru", true, true, true, false, "Теперь эта тема следит за <b>github</b>.\nСтраницы в подписке: openai, github. В каждом уведомлении указана его страница."},
		{"ru", false, false, false, true, "Этот канал не следит за <b>github</b>.\nСтраницы в подписке: openai, github. В каждом уведомлении указана его страница."},
		{"fr", true, true, false, true, "Cette chaîne suit désormais <b>github</b>.\nPages suivies : openai, github. Chaque notification indique sa page."},
		{"ja", true, false, false, true, "このチャンネルはすでに <b>github</b> をフォローしています。\nフォロー中のページ：openai, github。各通知にはそのページ名が表示されます。"},
		{"en", true, true, false, true, "This channel now follows <b>github</b>.\nPages followed: openai, github. Each notice names its page."},
		{"en", false, false, true, false, "This topic does not follow <b>github</b>.\nPages followed: openai, github. Each notice names its page."},
	} {
		if got := FollowReplyIn(i18n.Of(c.tag), offerTwo, "github", list, c.on, c.changed, c.topic, c.channel); got != c.want {
			t.Errorf("%s: got %q\nwant %q", c.tag, got, c.want)
		}
	}
}
