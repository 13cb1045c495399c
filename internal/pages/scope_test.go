package pages

import "testing"

func TestScope(t *testing.T) {
	for _, c := range []struct{ page, id, want string }{
		{"", "incident:01HX:u1:v2", "incident:01HX:u1:v2"},
		{"", "component:abc", "component:abc"},
		{"github", "incident:01HX:u1:v2", "github/incident:01HX:u1:v2"},
		{"github", "component:abc", "github/component:abc"},
		{"github", "reminder:m1:2026-12-01T10:00:00Z:60", "github/reminder:m1:2026-12-01T10:00:00Z:60"},
		{"aws-eu", "8k3j2", "aws-eu/8k3j2"},
		// A page may be named after a kind: the slash still tells it apart.
		{"incident", "incident:x:u:v", "incident/incident:x:u:v"},
	} {
		got := Scope(c.page, c.id)
		if got != c.want {
			t.Errorf("Scope(%q, %q) = %q, want %q", c.page, c.id, got, c.want)
		}
		page, bare := Unscope(got)
		if page != c.page || bare != c.id {
			t.Errorf("Unscope(%q) = %q, %q, want %q, %q", got, page, bare, c.page, c.id)
		}
	}
}

func TestUnscopeLeavesLegacyIdentifiers(t *testing.T) {
	for _, id := range []string{
		"", "incident:01HX:u1:v2", "component:abc", "abc",
		"incident:a/b:u:v",            // a slash after the first colon belongs to the ID
		"/abc",                        // no page name
		"Upper/abc",                   // not a page name
		"-x/abc",                      // not a page name
		"a-very-long-page-name-x/abc", // longer than MaxNameLen
	} {
		if page, bare := Unscope(id); page != "" || bare != id {
			t.Errorf("Unscope(%q) = %q, %q: a legacy identifier must stay whole", id, page, bare)
		}
	}
}

func FuzzScope(f *testing.F) {
	f.Add("github", "incident:01HX:u1:v2")
	f.Add("", "component:abc")
	f.Add("a", "")
	f.Fuzz(func(t *testing.T, page, id string) {
		if page != "" && NameError(page) != "" {
			return
		}
		if p, _ := Unscope(id); p != "" {
			return // not an identifier a page gives: it would read as scoped
		}
		gotPage, gotID := Unscope(Scope(page, id))
		if gotPage != page || gotID != id {
			t.Fatalf("Unscope(Scope(%q, %q)) = %q, %q", page, id, gotPage, gotID)
		}
	})
}

func TestOfferTellsTheLegacyPageApart(t *testing.T) {
	o := Offer{List: []Page{{Name: "github"}, {Name: "openai"}}, Legacy: "openai"}
	if got := o.Default().Name; got != "github" {
		t.Errorf("Default = %q, want the first page", got)
	}
	if got := o.EventPage("openai"); got != "" {
		t.Errorf("EventPage(legacy) = %q, want empty", got)
	}
	if got := o.EventPage("github"); got != "github" {
		t.Errorf("EventPage(github) = %q", got)
	}
	if got := o.NameOf(""); got != "openai" {
		t.Errorf("NameOf(\"\") = %q, want the legacy page's name", got)
	}
	if got := o.Scope("openai", "incident:x:u:v"); got != "incident:x:u:v" {
		t.Errorf("Scope(legacy) = %q, want unchanged", got)
	}
	if got := o.Scope("github", "incident:x:u:v"); got != "github/incident:x:u:v" {
		t.Errorf("Scope(github) = %q", got)
	}
	if _, ok := o.Find("gitlab"); ok {
		t.Error("Find found a page that is not offered")
	}
	if got := SingleOffer(Page{Name: "openai"}); got.EventPage("openai") != "" || got.Default().Name != "openai" {
		t.Errorf("SingleOffer = %+v: its one page must be legacy and default", got)
	}
}
