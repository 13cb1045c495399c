// Package i18n holds the bot's message catalogs, one JSON file per
// language in locales/ (embedded), and picks a chat's language.
//
// It is built on github.com/nicksnyder/go-i18n/v2: one flat file per
// language that a translator edits without touching Go, CLDR plural
// forms per language ("one", "few", "many", "other"), and
// golang.org/x/text's language matcher for the nearest catalog. x/text's
// message/catalog was the other choice; its catalogs are built in Go
// code, which a translator should not have to write.
//
// What the status page wrote (incident names, update bodies, component
// names) never goes through a catalog: it stays as the page wrote it.
// A message is a whole sentence or paragraph with named placeholders
// ({{.Name}}), never pieced together from translated fragments, so that
// each language can order and inflect its own words.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Default is the language of chats whose language is unknown or has no
// catalog, and the fallback of a message a catalog lacks.
const Default = "en"

//go:embed locales/*.json
var files embed.FS

// Language is one catalog: its tag as stored in a chat's settings
// ("pt-BR"), and its name in itself, for the settings screen.
type Language struct {
	Tag  string
	Name string
}

// Languages lists the catalogs, English first (the order of the settings
// screen): every file in locales/ whose name is a tag.
var Languages = []Language{
	{"en", "English"},
	{"es", "Español"},
	{"pt-BR", "Português (Brasil)"},
	{"ru", "Русский"},
	{"uk", "Українська"},
	{"de", "Deutsch"},
	{"fr", "Français"},
	{"tr", "Türkçe"},
	{"id", "Bahasa Indonesia"},
	{"hi", "हिन्दी"},
	{"zh-Hans", "简体中文"},
	{"ja", "日本語"},
	{"fa", "فارسی"},
}

var (
	loadOnce   sync.Once
	bundle     *goi18n.Bundle
	localizers map[string]*goi18n.Localizer
	matcher    language.Matcher
	loadErr    error
)

func load() {
	bundle = goi18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("json", json.Unmarshal)
	localizers = make(map[string]*goi18n.Localizer, len(Languages))
	tags := make([]language.Tag, len(Languages))
	for i, l := range Languages {
		if _, err := bundle.LoadMessageFileFS(files, path.Join("locales", l.Tag+".json")); err != nil {
			loadErr = fmt.Errorf("i18n: catalog %s: %w", l.Tag, err)
			return
		}
		tags[i] = language.MustParse(l.Tag)
		localizers[l.Tag] = goi18n.NewLocalizer(bundle, l.Tag, Default)
	}
	matcher = language.NewMatcher(tags)
}

func ready() {
	loadOnce.Do(load)
	if loadErr != nil {
		panic(loadErr) // the embedded catalogs are part of the binary: a test catches this
	}
}

// Match is the catalog nearest to a Telegram language_code (an IETF tag
// such as "pt-br", "zh-hans", "de"): "pt" is Brazilian Portuguese,
// "zh-cn" and "zh-hans" Simplified Chinese; a code with no close
// catalog, or none, is English.
func Match(code string) string {
	ready()
	code = strings.TrimSpace(code)
	if code == "" {
		return Default
	}
	t, err := language.Parse(code)
	if err != nil {
		return Default
	}
	_, i, conf := matcher.Match(t)
	if conf == language.No {
		return Default
	}
	return Languages[i].Tag
}

// Known is the catalog tag a stored or typed code names exactly
// (case-insensitive: "pt-br" is "pt-BR"), and whether there is one.
func Known(code string) (string, bool) {
	for _, l := range Languages {
		if strings.EqualFold(l.Tag, strings.TrimSpace(code)) {
			return l.Tag, true
		}
	}
	return "", false
}

// Name is the language's name in itself ("Deutsch"); English for a tag
// with no catalog.
func Name(tag string) string {
	for _, l := range Languages {
		if l.Tag == tag {
			return l.Name
		}
	}
	return Languages[0].Name
}

// Of is the catalog of a chat whose settings store tag ("" or a tag with
// no catalog: English).
func Of(tag string) Catalog {
	ready()
	if _, ok := localizers[tag]; !ok {
		tag = Default
	}
	return Catalog{tag: tag}
}

// Catalog speaks one language.
type Catalog struct{ tag string }

// Tag is the catalog's language.
func (c Catalog) Tag() string {
	if c.tag == "" {
		return Default
	}
	return c.tag
}

// RTL reports whether the language is written right to left.
func (c Catalog) RTL() bool { return c.Tag() == "fa" || c.Tag() == "ar" }

// T is message id with its placeholders filled: data is name, value
// pairs ("Page", name). Values are inserted as given: HTML-escape what a
// page or a user wrote before passing it.
func (c Catalog) T(id string, data ...any) string {
	return c.localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: pairs(data)})
}

// N is message id in the plural form for count n (the CLDR rule of the
// language), n available as {{.Count}}.
func (c Catalog) N(id string, n int, data ...any) string {
	m := pairs(data)
	m["Count"] = n
	return c.localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: m, PluralCount: n})
}

func (c Catalog) localize(lc *goi18n.LocalizeConfig) string {
	ready()
	l := localizers[c.Tag()]
	if l == nil {
		l = localizers[Default]
	}
	s, err := l.Localize(lc)
	if err != nil && s == "" {
		// A key no catalog has is a programming error the completeness
		// test catches; show the key rather than nothing.
		return lc.MessageID
	}
	return s
}

func pairs(kv []any) map[string]any {
	m := make(map[string]any, len(kv)/2+1)
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

// Raw is each catalog file's messages as written (id: text, or id: plural
// forms), for the tests that check every catalog against English's.
func Raw() (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	err := fs.WalkDir(files, "locales", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		m := map[string]any{}
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out[strings.TrimSuffix(path.Base(p), ".json")] = m
		return nil
	})
	return out, err
}
