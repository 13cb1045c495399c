package i18n_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"github.com/openai-status-bot/statusbot/internal/i18n"
)

// Telegram's limits a catalog's messages must keep.
const (
	maxMessage     = 4096 // UTF-16 units of a message's text
	maxMenuText    = 256  // a BotCommand's description
	maxButtonRunes = 40   // longer button labels are cut on phones
	maxTapAnswer   = 200  // answerCallbackQuery's text
	worstValue     = 300  // a placeholder's widest value (names are cut to less)
)

var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

// forms is a message's texts: one, or its plural forms.
func forms(v any) map[string]string {
	switch m := v.(type) {
	case string:
		return map[string]string{"other": m}
	case map[string]any:
		out := map[string]string{}
		for k, s := range m {
			if str, ok := s.(string); ok {
				out[k] = str
			}
		}
		return out
	}
	return nil
}

func names(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

func raw(t *testing.T) map[string]map[string]any {
	t.Helper()
	cats, err := i18n.Raw()
	if err != nil {
		t.Fatal(err)
	}
	return cats
}

// TestCatalogsComplete: every catalog file is a listed language, every
// listed language has a file, and each has every message English has
// (and none English lacks), with the same placeholders in every form.
func TestCatalogsComplete(t *testing.T) {
	cats := raw(t)
	en := cats[i18n.Default]
	if len(en) == 0 {
		t.Fatal("no English catalog")
	}
	for _, l := range i18n.Languages {
		if _, ok := cats[l.Tag]; !ok {
			t.Errorf("language %s listed but has no locales/%s.json", l.Tag, l.Tag)
		}
	}
	for tag, cat := range cats {
		if _, ok := i18n.Known(tag); !ok {
			t.Errorf("locales/%s.json is not in Languages", tag)
		}
		for id, v := range en {
			tv, ok := cat[id]
			if !ok {
				t.Errorf("%s lacks %q", tag, id)
				continue
			}
			want := names(forms(v)["other"])
			for form, text := range forms(tv) {
				if got := names(text); !slices.Equal(got, want) && !(form == "one" && slices.Equal(without(want, "Count"), got)) {
					t.Errorf("%s %q (%s): placeholders %v, English has %v", tag, id, form, got, want)
				}
				if strings.TrimSpace(text) == "" {
					t.Errorf("%s %q (%s) is empty", tag, id, form)
				}
			}
			if _, ok := forms(tv)["other"]; !ok {
				t.Errorf("%s %q has no \"other\" form", tag, id)
			}
		}
		for id := range cat {
			if _, ok := en[id]; !ok {
				t.Errorf("%s has %q, which English lacks", tag, id)
			}
		}
	}
}

// without is names less one (a "one" form may say "a component" rather
// than "1 component").
func without(names []string, n string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(s string) bool { return s == n })
}

// TestCatalogsWithinLimits renders every message of every language with
// each placeholder at its widest and checks Telegram's limits: a message
// 4,096 characters (UTF-16), a menu description 256, a button label
// short enough to show.
func TestCatalogsWithinLimits(t *testing.T) {
	cats := raw(t)
	for tag, cat := range cats {
		c := i18n.Of(tag)
		for id, v := range cat {
			var data []any
			for _, n := range names(forms(v)["other"]) {
				data = append(data, n, strings.Repeat("W", worstValue))
			}
			for _, n := range []int{1, 2, 5, 1000000} {
				s := c.N(id, n, data...)
				if u := len(utf16.Encode([]rune(s))); u > maxMessage {
					t.Errorf("%s %q: %d UTF-16 units at the widest, over %d", tag, id, u, maxMessage)
				}
			}
			text := forms(v)["other"]
			switch {
			case strings.HasPrefix(id, "cmd."):
				// The menu adds ": /name args" to the description.
				if n := len([]rune(text)) + 40; n > maxMenuText {
					t.Errorf("%s %q: menu description %d characters, over %d", tag, id, n, maxMenuText)
				}
			case strings.HasPrefix(id, "tap."):
				if n := len([]rune(c.T(id, "Max", "50"))); n > maxTapAnswer {
					t.Errorf("%s %q: tap answer %d characters, over %d", tag, id, n, maxTapAnswer)
				}
			case strings.HasPrefix(id, "btn."):
				if n := len([]rune(text)); n > maxButtonRunes {
					t.Errorf("%s %q: button %q is %d characters, over %d", tag, id, text, n, maxButtonRunes)
				}
			}
		}
	}
}

// TestMatch: Telegram's language_code goes to the nearest catalog;
// nothing close is English.
func TestMatch(t *testing.T) {
	for code, want := range map[string]string{
		"":                 "en",
		"en":               "en",
		"en-US":            "en",
		"en-gb":            "en",
		"de":               "de",
		"de-AT":            "de",
		"pt":               "pt-BR",
		"pt-br":            "pt-BR",
		"pt-PT":            "pt-BR",
		"es-MX":            "es",
		"es-419":           "es",
		"ru":               "ru",
		"uk":               "uk",
		"fr-CA":            "fr",
		"tr":               "tr",
		"id":               "id",
		"hi":               "hi",
		"zh-hans":          "zh-Hans",
		"zh-cn":            "zh-Hans",
		"zh":               "zh-Hans",
		"ja":               "ja",
		"fa":               "fa",
		"fa-IR":            "fa",
		"xx":               "en",
		"vi":               "en",
		"not a tag at all": "en",
	} {
		if got := i18n.Match(code); got != want {
			t.Errorf("Match(%q) = %q, want %q", code, got, want)
		}
	}
}

// TestKnown: a typed code names a catalog whatever its case.
func TestKnown(t *testing.T) {
	for code, want := range map[string]string{"pt-br": "pt-BR", "DE": "de", "zh-hans": "zh-Hans", " ru ": "ru"} {
		if got, ok := i18n.Known(code); !ok || got != want {
			t.Errorf("Known(%q) = %q, %v; want %q", code, got, ok, want)
		}
	}
	if _, ok := i18n.Known("xx"); ok {
		t.Error("Known(xx) found a catalog")
	}
}

// TestPlurals: each language's CLDR rule picks the form (Russian 1, 2,
// 5, 21 components; English 1 and 2; Japanese has one form).
func TestPlurals(t *testing.T) {
	data := []any{"Status", "S", "Down", "D"}
	for _, c := range []struct {
		tag  string
		n    int
		want string
	}{
		{"ru", 1, "1 компонент работает"},
		{"ru", 2, "2 компонента работают"},
		{"ru", 5, "5 компонентов работают"},
		{"ru", 11, "11 компонентов работают"},
		{"ru", 21, "21 компонент работает"},
		{"ru", 22, "22 компонента работают"},
		{"uk", 3, "3 компоненти працюють"},
		{"uk", 25, "25 компонентів працюють"},
		{"en", 1, "1 component is not operational"},
		{"en", 2, "2 components are not operational"},
		{"de", 7, "7 Komponenten sind gestört"},
		{"ja", 1, "1 個のコンポーネント"},
	} {
		if got := i18n.Of(c.tag).N("status.manyDown", c.n, data...); !strings.Contains(got, c.want) {
			t.Errorf("%s %d: %q lacks %q", c.tag, c.n, got, c.want)
		}
	}
}

// TestFallback: an unknown tag speaks English, and a message id no
// catalog has shows the id rather than nothing.
func TestFallback(t *testing.T) {
	if got, want := i18n.Of("xx").T("btn.done"), "Done"; got != want {
		t.Errorf("xx: %q, want %q", got, want)
	}
	for n, want := range map[int]string{1: "за 1 минуту", 3: "за 3 минуты", 15: "за 15 минут", 21: "за 21 минуту", 45: "за 45 минут"} {
		if got := i18n.Of("ru").N("rem.before", n); got != want {
			t.Errorf("ru rem.before %d: %q, want %q", n, got, want)
		}
	}
	if got := i18n.Of("de").T("no.such.key"); got != "no.such.key" {
		t.Errorf("missing key: %q", got)
	}
	if got, want := i18n.Of("de").T("help.offer", "Pages", "A, B"), "Angebotene Seiten: A, B."; got != want {
		t.Errorf("placeholder: %q, want %q", got, want)
	}
}

// TestRightToLeftReadsRight checks the rule that keeps a right-to-left
// catalog readable next to the page's English: Telegram sets each line's
// direction by its first strong character, so every line of an RTL
// message either starts (after markup) with a right-to-left letter, or
// is page text alone on its line (a placeholder by itself), never page
// text followed by RTL words, which would lay the line out left to
// right and scramble the sentence.
func TestRightToLeftReadsRight(t *testing.T) {
	cats := raw(t)
	tags := regexp.MustCompile(`<[^>]*>`)
	for _, l := range i18n.Languages {
		if !i18n.Of(l.Tag).RTL() {
			continue
		}
		for id, v := range cats[l.Tag] {
			if strings.HasPrefix(id, "time.") {
				continue // a Go time layout, shown inside a line
			}
			for form, text := range forms(v) {
				for _, line := range strings.Split(text, "\n") {
					bare := strings.TrimSpace(tags.ReplaceAllString(line, ""))
					if bare == "" || placeholder.ReplaceAllString(bare, "") == "" {
						continue // blank, or page text on its own line
					}
					// Page text counts as left to right, the worst case;
					// a count is digits, which have no direction.
					filled := strings.ReplaceAll(bare, "{{.Count}}", "21")
					if r := firstStrong(placeholder.ReplaceAllString(filled, "Page")); !isRTL(r) {
						t.Errorf("%s %q (%s): line %q starts left to right (%q)", l.Tag, id, form, line, r)
					}
				}
			}
		}
	}
	// The rule holds on the rendered /start line, with English page text.
	got := i18n.Of("fa").T("start.new.chat", "Page", "OpenAI")
	lines := strings.Split(got, "\n")
	if len(lines) != 3 || lines[1] != "OpenAI" || !isRTL(firstStrong(lines[0])) || !isRTL(firstStrong(lines[2])) {
		t.Errorf("fa start: %q: want the page's name on a line of its own between Persian lines", got)
	}
}

func firstStrong(s string) rune {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return r
		}
	}
	return 0
}

func isRTL(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Hebrew)
}
