// Package pages is the list of status pages the bot offers (STATUS_PAGES):
// parsing, naming and checking it, as plain functions away from I/O.
//
// Format: comma-separated entries, each name=URL or name=provider:URL,
//
//	openai=https://status.openai.com,github=statuspage:https://www.githubstatus.com
//
// where provider is auto (the default: incident.io's native API when the
// page serves it, else Statuspage v2), incidentio or statuspage, the names
// STATUSPAGE_PROVIDER takes. Spaces and line breaks around entries are
// ignored, and so are empty entries (a trailing comma). The first page is
// the default one.
package pages

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// OpenAIURL is the page watched when nothing else is said.
const OpenAIURL = "https://status.openai.com"

// MaxPages bounds the list: each page is a poll of its own, and a list
// longer than this is more likely a mistake than a plan.
const MaxPages = 20

// MaxNameLen is the longest short name; chats type names in commands.
const MaxNameLen = 20

// Page is one status page the bot offers.
type Page struct {
	// Name is the short name chats use: lowercase letters, digits and
	// hyphens, 1 to MaxNameLen characters, not starting or ending with a
	// hyphen.
	Name string
	// URL is the page's base URL, as STATUSPAGE_URL takes it.
	URL string
	// Provider is auto, incidentio or statuspage (never empty).
	Provider string
}

// Providers are the provider names a page may force, auto first.
var Providers = []string{statuspage.ProviderAuto, statuspage.ProviderIncidentIO, statuspage.ProviderStatuspage}

var namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// NameError explains what is wrong with a short name ("" when it is valid).
func NameError(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("the name is longer than %d characters", MaxNameLen)
	case namePattern.MatchString(name):
		return ""
	case namePattern.MatchString(strings.ToLower(name)):
		return "the name must be lowercase (" + strings.ToLower(name) + ")"
	}
	return "the name may hold only lowercase letters, digits and hyphens, and must not start or end with a hyphen"
}

// URLError checks an http(s) URL for the setting name. The value is not
// echoed (it may hold credentials, a token in its query, or a token pasted
// into the wrong variable): only its scheme, when it has one.
func URLError(name, v string) string {
	u, err := url.Parse(v)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return ""
	}
	got := "(value not shown)"
	if err == nil && u.Scheme != "" {
		got = fmt.Sprintf("scheme %q", u.Scheme)
	}
	return fmt.Sprintf("%s must be an http(s) URL such as https://host, got %s%s", name, got, lineEndHint(v))
}

// lineEndHint names the usual cause of a trailing carriage return.
func lineEndHint(v string) string {
	if strings.Contains(v, "\r") {
		return ": a carriage return, as left by a .env file saved with Windows line endings"
	}
	return ""
}

// ProviderError checks a provider name for the setting name.
func ProviderError(name, provider string) string {
	for _, p := range Providers {
		if provider == p {
			return ""
		}
	}
	return fmt.Sprintf("%s must be one of %s, got %q", name, strings.Join(Providers, ", "), shown(provider))
}

var wordPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// shown is a word fit to echo in an error (a name or a provider, never a
// URL's part), or a placeholder.
func shown(word string) string {
	if wordPattern.MatchString(word) {
		return word
	}
	return "(not shown)"
}

// Single is the one page of STATUSPAGE_URL and STATUSPAGE_PROVIDER (empty
// provider: auto), named by NameFor: the list when STATUS_PAGES is empty.
func Single(rawURL, provider string) (Page, error) {
	if provider == "" {
		provider = statuspage.ProviderAuto
	}
	var errs []string
	if e := URLError("STATUSPAGE_URL", rawURL); e != "" {
		errs = append(errs, e)
	}
	if e := ProviderError("STATUSPAGE_PROVIDER", provider); e != "" {
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return Page{}, errors.New(strings.Join(errs, "; "))
	}
	return Page{Name: NameFor(rawURL), URL: rawURL, Provider: provider}, nil
}

// Parse reads STATUS_PAGES. Its errors name the setting and the entry (by
// position, and by name when it is one), never a URL.
func Parse(s string) ([]Page, error) {
	var list []Page
	var errs []string
	byName := map[string]int{}
	byURL := map[string]string{}
	n := 0
	for _, raw := range strings.Split(s, ",") {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		n++
		p, e := parseEntry(entry)
		if e != "" {
			errs = append(errs, fmt.Sprintf("STATUS_PAGES entry %d%s: %s", n, label(p.Name), e))
			continue
		}
		if first, dup := byName[p.Name]; dup {
			errs = append(errs, fmt.Sprintf("STATUS_PAGES entry %d (%s): the name is already taken by entry %d", n, p.Name, first))
			continue
		}
		if other, dup := byURL[sameURL(p.URL)]; dup {
			errs = append(errs, fmt.Sprintf("STATUS_PAGES entry %d (%s): the same URL as %s (one page, one name)", n, p.Name, other))
			continue
		}
		byName[p.Name], byURL[sameURL(p.URL)] = n, p.Name
		list = append(list, p)
	}
	switch {
	case n == 0:
		errs = append(errs, "STATUS_PAGES lists no page: write name=URL entries separated by commas, or leave it empty for STATUSPAGE_URL alone")
	case n > MaxPages:
		errs = append(errs, fmt.Sprintf("STATUS_PAGES lists %d pages, at most %d", n, MaxPages))
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return list, nil
}

// label names an entry in an error when its name is fit to show.
func label(name string) string {
	if name == "" || shown(name) != name {
		return ""
	}
	return " (" + name + ")"
}

// parseEntry reads name=URL or name=provider:URL. The page it returns
// carries the name whenever one was read, for the error's label.
func parseEntry(entry string) (Page, string) {
	name, rest, ok := strings.Cut(entry, "=")
	name, rest = strings.TrimSpace(name), strings.TrimSpace(rest)
	if !ok || strings.ContainsAny(name, ":/@?") {
		// No '=' before the URL: the name is missing.
		return Page{}, "want name=URL or name=provider:URL (such as openai=https://status.openai.com); the name is missing"
	}
	p := Page{Name: name, Provider: statuspage.ProviderAuto, URL: rest}
	if e := NameError(name); e != "" {
		return p, e
	}
	// provider:URL, told from a bare URL by what follows the colon.
	if word, u, found := strings.Cut(rest, ":"); found && (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
		p.Provider, p.URL = word, u
		if e := ProviderError("the provider", word); e != "" {
			return p, e
		}
	}
	if e := URLError("the URL", p.URL); e != "" {
		return p, e
	}
	return p, ""
}

// sameURL is the form two entries are compared in: scheme and host
// lowercased, without a trailing slash.
func sameURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String()
}

// NormalURL is the form URLs are compared in (SameURL): scheme and host
// lowercased, without a trailing slash.
func NormalURL(raw string) string { return sameURL(raw) }

// NameFor derives a short name from a page's URL, for the one page of
// STATUSPAGE_URL: the host's first label once leading "www." and
// "status." labels are dropped (status.openai.com: openai;
// www.githubstatus.com: githubstatus; openai.statuspage.io: openai),
// lowercased, characters other than letters, digits and hyphens turned
// into hyphens, cut to MaxNameLen. An IP address, a one-label host such as
// localhost, or anything left empty: page.
func NameFor(rawURL string) string {
	const fallback = "page"
	u, err := url.Parse(rawURL)
	if err != nil {
		return fallback
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return fallback
	}
	labels := strings.Split(host, ".")
	// The domain itself stays: status.io is named status.
	for len(labels) > 2 && (labels[0] == "www" || labels[0] == "status") {
		labels = labels[1:]
	}
	return sanitize(labels[0], fallback)
}

// sanitize makes a valid short name of a host label, or returns fallback.
func sanitize(label, fallback string) string {
	b := []byte(label)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	s := string(b)
	if len(s) > MaxNameLen {
		s = s[:MaxNameLen]
	}
	s = strings.Trim(s, "-")
	if NameError(s) != "" {
		return fallback
	}
	return s
}

// Format writes the list back in STATUS_PAGES' form; Parse reads it back
// to the same list. The provider is written only when it is not auto.
func Format(list []Page) string {
	parts := make([]string, len(list))
	for i, p := range list {
		v := p.URL
		if p.Provider != "" && p.Provider != statuspage.ProviderAuto {
			v = p.Provider + ":" + v
		}
		parts[i] = p.Name + "=" + v
	}
	return strings.Join(parts, ",")
}

// Find returns the page with the name.
func Find(list []Page, name string) (Page, bool) {
	for _, p := range list {
		if p.Name == name {
			return p, true
		}
	}
	return Page{}, false
}

// SameURL reports whether two page URLs name one page: scheme and host
// compared case-insensitively, a trailing slash ignored (as Parse compares
// entries).
func SameURL(a, b string) bool { return sameURL(a) == sameURL(b) }
