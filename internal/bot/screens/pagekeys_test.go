package screens

import (
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	offered "github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// A Pages button names its page by key: after the list is reordered (or
// a page renamed) the button still means its page; a page no longer
// offered is no choice; an old "P:<index>" button is told apart.
func TestPagesButtonsByKey(t *testing.T) {
	before := offered.Offer{List: []offered.Page{{Name: "openai"}, {Name: "github"}, {Name: "gitlab"}}, Legacy: "openai"}
	after := offered.Offer{List: []offered.Page{{Name: "gitlab"}, {Name: "gh"}, {Name: "openai"}}, Legacy: "openai",
		Keys: map[string]string{"gitlab": "gitlab", "gh": "github", "openai": ""}}
	sub := &store.Subscriber{Key: "42", Pages: []string{""}}
	k := New(sub, nil).Offering(before)
	data := map[string]string{}
	for _, row := range k.Pages().Rows {
		for _, b := range row {
			if len(b.CallbackData) > MaxCallbackData {
				t.Fatalf("%q over 64 bytes", b.CallbackData)
			}
			data[strings.TrimLeft(b.Text, "✅▫️ ")] = b.CallbackData
		}
	}
	for name, want := range map[string]string{"openai": "openai", "github": "gh", "gitlab": "gitlab"} {
		cb, ok := ParseCallback(data[name])
		if !ok || !ValidChange(cb) {
			t.Fatalf("%s: %q not valid", name, data[name])
		}
		p, _, ok := PageChoice(cb, after)
		if !ok || p.Name != want {
			t.Errorf("%s's button after the reorder: %v %v, want %s", name, p, ok, want)
		}
	}
	gone := offered.Offer{List: []offered.Page{{Name: "openai"}}, Legacy: "openai"}
	cb, _ := ParseCallback(data["github"])
	if _, _, ok := PageChoice(cb, gone); ok {
		t.Error("a removed page's button is a choice")
	}
	old, ok := ParseCallback("P:1:1:abc")
	if !ok || !OldPagesButton(old) || !ValidChange(old) {
		t.Errorf("an old button: %+v %v", old, ok)
	}
	if _, _, ok := PageChoice(old, after); ok {
		t.Error("an old button is taken by its index")
	}
	// Long keys and a channel's prefix fit Telegram's 64 bytes.
	long := offered.Offer{List: []offered.Page{{Name: "openai"}, {Name: "abcdefghijklmnopqrst"}}, Legacy: "openai"}
	k = New(sub, nil).Offering(long).For(-1001234567890123, "Channel", "@channel")
	for _, row := range k.Pages().Rows {
		for _, b := range row {
			if len(b.CallbackData) > MaxCallbackData {
				t.Errorf("%q over 64 bytes", b.CallbackData)
			}
		}
	}
}

// The Pages line counts only pages on offer, and says so when none is.
func TestPagesLineOfRemovedPages(t *testing.T) {
	one := offered.Offer{List: []offered.Page{{Name: "openai"}}, Legacy: "openai"}
	two := offered.Offer{List: []offered.Page{{Name: "openai"}, {Name: "gitlab"}}, Legacy: "openai"}
	for _, c := range []struct {
		stored []string
		o      offered.Offer
		want   string
	}{
		{[]string{""}, one, ""},
		{[]string{"github"}, one, "Pages: none. The page this chat followed is no longer watched; /subscribe page openai follows openai."},
		{[]string{"", "github"}, two, "Pages: openai"},
		{[]string{"github"}, two, "Pages: none. The pages this chat followed are no longer watched; choose one with /subscribe page &lt;name&gt; (the pages on offer are openai, gitlab)."},
	} {
		if got := PagesLine(c.stored, c.o); got != c.want {
			t.Errorf("%v: %q, want %q", c.stored, got, c.want)
		}
	}
}

// The Pages line in the chat's language: German here, the names as
// configured.
func TestPagesLineInTheChatsLanguage(t *testing.T) {
	one := offered.Offer{List: []offered.Page{{Name: "openai"}}, Legacy: "openai"}
	two := offered.Offer{List: []offered.Page{{Name: "openai"}, {Name: "gitlab"}}, Legacy: "openai"}
	de := i18n.Of("de")
	for _, c := range []struct {
		stored []string
		o      offered.Offer
		want   string
	}{
		{[]string{"github"}, one, "Seiten: keine. Die Seite, der dieser Chat folgte, wird nicht mehr beobachtet; /subscribe page openai folgt openai."},
		{[]string{"", "gitlab"}, two, "Seiten: openai, gitlab"},
		{[]string{"github"}, two, "Seiten: keine. Die Seiten, denen dieser Chat folgte, werden nicht mehr beobachtet; wähle eine mit /subscribe page &lt;Name&gt; (angeboten werden openai, gitlab)."},
	} {
		if got := PagesLineIn(de, c.stored, c.o); got != c.want {
			t.Errorf("%v: %q, want %q", c.stored, got, c.want)
		}
	}
}
