package pages_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []pages.Page
	}{
		{"openai=https://status.openai.com", []pages.Page{{"openai", "https://status.openai.com", "auto"}}},
		{"openai=https://status.openai.com,github=https://www.githubstatus.com", []pages.Page{
			{"openai", "https://status.openai.com", "auto"}, {"github", "https://www.githubstatus.com", "auto"}}},
		// Forced providers, spaces and line breaks (a compose folded
		// string, a multi-line .env value), a trailing comma.
		{" openai = incidentio:https://status.openai.com ,\n\tgithub=statuspage:https://www.githubstatus.com/,\r\n", []pages.Page{
			{"openai", "https://status.openai.com", "incidentio"}, {"github", "https://www.githubstatus.com/", "statuspage"}}},
		{"a=auto:http://127.0.0.1:8082", []pages.Page{{"a", "http://127.0.0.1:8082", "auto"}}},
		// '=' in the URL's query belongs to the URL; names with digits and hyphens.
		{"1password=https://status.1password.com/?x=y,my-cloud-2=http://h", []pages.Page{
			{"1password", "https://status.1password.com/?x=y", "auto"}, {"my-cloud-2", "http://h", "auto"}}},
		{"twenty-chars-name-ok=https://h", []pages.Page{{"twenty-chars-name-ok", "https://h", "auto"}}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := pages.Parse(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			again, err := pages.Parse(pages.Format(got))
			require.NoError(t, err)
			require.Equal(t, got, again, "Format reads back")
		})
	}
}

// Errors name STATUS_PAGES and the entry, and never show a URL: it may
// carry credentials or a token in its query.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{",", "STATUS_PAGES lists no page"},
		{" , \n", "STATUS_PAGES lists no page"},
		{"https://status.openai.com", "STATUS_PAGES entry 1: want name=URL or name=provider:URL (such as openai=https://status.openai.com); the name is missing"},
		{"openai=https://status.openai.com,https://u:SECRET@h/?token=SECRET", "STATUS_PAGES entry 2: want name=URL"},
		{"=https://h", "STATUS_PAGES entry 1: the name is empty"},
		{"OpenAI=https://h", "STATUS_PAGES entry 1 (OpenAI): the name must be lowercase (openai)"},
		{"open_ai=https://h", "STATUS_PAGES entry 1 (open_ai): the name may hold only lowercase letters, digits and hyphens"},
		{"-x=https://h", "STATUS_PAGES entry 1 (-x): the name may hold only"},
		{"x-=https://h", "STATUS_PAGES entry 1 (x-): the name may hold only"},
		{"ab cd=https://h", "STATUS_PAGES entry 1: the name may hold only"},
		{"twenty-one-chars-name=https://h", "STATUS_PAGES entry 1 (twenty-one-chars-name): the name is longer than 20 characters"},
		{"a=https://h,a=https://other", "STATUS_PAGES entry 2 (a): the name is already taken by entry 1"},
		{"a=https://H/,b=https://h", "STATUS_PAGES entry 2 (b): the same URL as a"},
		{"a=status.openai.com", "STATUS_PAGES entry 1 (a): the URL must be an http(s) URL such as https://host, got (value not shown)"},
		{"a=ftp://u:SECRET@h", `STATUS_PAGES entry 1 (a): the URL must be an http(s) URL such as https://host, got scheme "ftp"`},
		{"a=https://", "STATUS_PAGES entry 1 (a): the URL must be an http(s) URL"},
		{"a=", "STATUS_PAGES entry 1 (a): the URL must be an http(s) URL"},
		{"a=atlassian:https://h", `STATUS_PAGES entry 1 (a): the provider must be one of auto, incidentio, statuspage, got "atlassian"`},
		{"a=Statuspage:https://h", `the provider must be one of auto, incidentio, statuspage, got "Statuspage"`},
		{"a=SECRET!x:https://h", `the provider must be one of auto, incidentio, statuspage, got "(not shown)"`},
		{"a=https://h\r\nb=https://i", "STATUS_PAGES entry 1 (a): the URL must be an http(s) URL such as https://host, got (value not shown): a carriage return"},
		{strings.Repeat("p=https://h,", 1) + manyPages(21), "STATUS_PAGES lists 22 pages, at most 20"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := pages.Parse(tc.in)
			require.Error(t, err)
			require.Nil(t, got)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "SECRET")
			require.NotContains(t, err.Error(), "\r")
		})
	}
}

func manyPages(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(string(rune('a'+i)) + "=https://" + string(rune('a'+i)) + ".example.com,")
	}
	return b.String()
}

// Every problem is reported at once, so one restart fixes them all.
func TestParseReportsEveryEntry(t *testing.T) {
	_, err := pages.Parse("A=https://h,b=ftp://h,b=https://i,c=nope:https://j")
	require.EqualError(t, err, `STATUS_PAGES entry 1 (A): the name must be lowercase (a); `+
		`STATUS_PAGES entry 2 (b): the URL must be an http(s) URL such as https://host, got scheme "ftp"; `+
		`STATUS_PAGES entry 4 (c): the provider must be one of auto, incidentio, statuspage, got "nope"`)
}

func TestNameFor(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://status.openai.com", "openai"},
		{"https://STATUS.OpenAI.com:443/", "openai"},
		{"https://www.githubstatus.com", "githubstatus"},
		{"https://openai.statuspage.io", "openai"},
		{"https://status.anthropic.com/", "anthropic"},
		{"https://www.status.example.co.uk", "example"},
		{"https://status.io", "status"},
		{"https://my_page.example.com", "my-page"},
		{"https://a-very-long-subdomain-label-here.example.com", "a-very-long-subdomai"},
		{"https://abcdefghijklmnopqrs-.example.com", "abcdefghijklmnopqrs"},
		{"https://xn--bcher-kva.example", "xn--bcher-kva"},
		{"http://127.0.0.1:8082", "page"},
		{"http://[::1]:8082", "page"},
		{"http://localhost:8082", "page"},
		{"https://_.example.com", "page"},
		{"::", "page"},
	} {
		got := pages.NameFor(tc.url)
		require.Equal(t, tc.want, got, tc.url)
		require.Empty(t, pages.NameError(got), tc.url)
	}
}

// No STATUS_PAGES: today's one page, named from its URL.
func TestSingle(t *testing.T) {
	got, err := pages.Single(pages.OpenAIURL, "")
	require.NoError(t, err)
	require.Equal(t, pages.Page{Name: "openai", URL: "https://status.openai.com", Provider: "auto"}, got)

	got, err = pages.Single("https://www.githubstatus.com", "statuspage")
	require.NoError(t, err)
	require.Equal(t, pages.Page{Name: "githubstatus", URL: "https://www.githubstatus.com", Provider: "statuspage"}, got)

	_, err = pages.Single("https://u:SECRET@h?x", "atlassian")
	require.EqualError(t, err, `STATUSPAGE_PROVIDER must be one of auto, incidentio, statuspage, got "atlassian"`)
	_, err = pages.Single("h?token=SECRET", "auto")
	require.EqualError(t, err, "STATUSPAGE_URL must be an http(s) URL such as https://host, got (value not shown)")
}

func TestFind(t *testing.T) {
	list, err := pages.Parse("a=https://a,b=statuspage:https://b")
	require.NoError(t, err)
	p, ok := pages.Find(list, "b")
	require.True(t, ok)
	require.Equal(t, "statuspage", p.Provider)
	_, ok = pages.Find(list, "c")
	require.False(t, ok)
}

// FuzzParsePages: Parse never panics; an accepted list is 1 to MaxPages
// pages with valid, unique names, http(s) URLs, known providers and
// distinct URLs, and Format reads back to it; a refused one's error never
// shows the userinfo or query of a URL it was given.
func FuzzParsePages(f *testing.F) {
	for _, s := range []string{
		"openai=https://status.openai.com,github=statuspage:https://www.githubstatus.com",
		"a=incidentio:http://127.0.0.1:8082,b=auto:https://h/x?y=z",
		"https://u:pw@h", "A=ftp://u:pass@h", "a=https://h,a=https://h", ",,", "x=nope:https://h?token=abcdef",
		"a=https://user:hunter22@h/?k=secret12", "a= https://h/\r\n,b=https://H",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := pages.Parse(s)
		if err != nil {
			require.Nil(t, list)
			for _, secret := range urlSecrets(s) {
				require.NotContains(t, err.Error(), secret, "input %q", s)
			}
			return
		}
		require.NotEmpty(t, list)
		require.LessOrEqual(t, len(list), pages.MaxPages)
		names, urls := map[string]bool{}, map[string]bool{}
		for _, p := range list {
			require.Empty(t, pages.NameError(p.Name), p.Name)
			require.False(t, names[p.Name], "unique names")
			names[p.Name] = true
			require.Empty(t, pages.URLError("u", p.URL))
			require.Empty(t, pages.ProviderError("p", p.Provider))
			u, _ := url.Parse(p.URL)
			key := strings.ToLower(u.Scheme+"://"+u.Host) + strings.TrimRight(u.Path, "/") + "?" + u.RawQuery + "#" + u.Fragment
			require.False(t, urls[key], "distinct URLs")
			urls[key] = true
		}
		again, err := pages.Parse(pages.Format(list))
		require.NoError(t, err)
		require.Equal(t, list, again)
	})
}

// urlSecrets are the userinfo and query strings of the URLs in s's
// entries (the URL being the value after '=', or what follows a
// provider's colon), those long enough to mean something and not also
// written where an error may rightly show them.
func urlSecrets(s string) []string {
	var out []string
	for _, entry := range strings.Split(s, ",") {
		_, rest, _ := strings.Cut(entry, "=")
		rest = strings.TrimSpace(rest)
		_, afterColon, _ := strings.Cut(rest, ":")
		for _, cand := range []string{rest, afterColon} {
			u, err := url.Parse(cand)
			if err != nil {
				continue
			}
			for _, secret := range []string{u.User.String(), u.RawQuery} {
				if len(secret) >= 6 && !echoable(secret, s) {
					out = append(out, secret)
				}
			}
		}
	}
	return out
}

// fixedText is what Parse's errors say whatever the input.
const fixedText = "STATUS_PAGES entry want name=URL or name=provider:URL (such as openai=https://status.openai.com); " +
	"the name is missing empty longer than characters must be lowercase may hold only lowercase letters, digits and hyphens, " +
	"and must not start or end with a hyphen already taken by the same URL as (one page, one name) lists no page: write name=URL " +
	"entries separated by commas, or leave it empty for STATUSPAGE_URL alone at most the provider must be one of auto, incidentio, " +
	"statuspage, got the URL must be an http(s) URL such as https://host, got scheme (value not shown) (not shown): a carriage return, " +
	"as left by a .env file saved with Windows line endings"

// echoable reports whether secret is also in s as a word an error may
// show (a name, a provider word, a URL's scheme) or in Parse's fixed text.
func echoable(secret, s string) bool {
	if strings.Contains(fixedText, secret) {
		return true
	}
	for _, entry := range strings.Split(s, ",") {
		name, rest, _ := strings.Cut(strings.TrimSpace(entry), "=")
		word, _, _ := strings.Cut(strings.TrimSpace(rest), ":")
		if strings.Contains(strings.ToLower(strings.TrimSpace(name)), secret) || strings.Contains(strings.TrimSpace(name), secret) || strings.Contains(word, secret) {
			return true
		}
		if _, after, ok := strings.Cut(strings.TrimSpace(rest), ":"); ok {
			if w, _, _ := strings.Cut(after, ":"); strings.Contains(w, secret) {
				return true // the scheme of a provider-prefixed URL
			}
		}
	}
	return false
}
