// Package bottest holds what the bot's tests share: a status page with
// groups, a shared name and statuses, and a check of Telegram HTML.
package bottest

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Page is a page with a group row, a shared name and statuses.
func Page(url string) *statuspage.Page {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &statuspage.Page{
		Name: "OpenAI", URL: url, Indicator: "minor", Description: "Partially Degraded Service",
		Components: []statuspage.Component{
			{ID: "grp1", Name: "APIs", Status: "operational", Group: true, Components: []string{"api1", "emb1"}},
			{ID: "api1", Name: "API", Status: "degraded_performance", UpdatedAt: at, GroupID: "grp1"},
			{ID: "emb1", Name: "Embeddings", Status: "operational", UpdatedAt: at, GroupID: "grp1"},
			{ID: "chat1", Name: "ChatGPT", Status: "operational", UpdatedAt: at},
			{ID: "chat2", Name: "ChatGPT Enterprise", Status: "operational", UpdatedAt: at},
			{ID: "sora1", Name: "Sora", Status: "major_outage", UpdatedAt: at},
		},
		Incidents: []statuspage.Incident{
			{ID: "inc1", Name: "Elevated errors on API", Status: "investigating", Impact: "minor",
				Shortlink: "https://stspg.io/inc1", CreatedAt: time.Date(2026, 3, 8, 9, 2, 0, 0, time.UTC)},
			{ID: "inc2", Name: "Sora <outage> & more", Status: "resolved", Impact: "major",
				CreatedAt: time.Date(2026, 3, 7, 1, 0, 0, 0, time.FixedZone("PST", -8*3600))},
			{ID: "inc3", Name: "Login issues", Status: "resolved", Impact: "critical",
				Shortlink: "https://stspg.io/inc3", CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		},
	}
}

// CheckHTML fails unless s is well-formed Telegram HTML of the tags the
// bot uses, with every & < > escaped outside tags.
func CheckHTML(t testing.TB, s string) {
	t.Helper()
	if err := ValidHTML(s); err != "" {
		t.Fatalf("bad HTML (%s): %q", err, s)
	}
	if n := len(utf16.Encode([]rune(s))); n > 4096 {
		t.Fatalf("reply too long: %d", n)
	}
}

var tgTimeAttrs = regexp.MustCompile(`^tg-time unix="[1-9][0-9]*" format="(r|w?[dD]?[tT]?)"$`)

func ValidHTML(s string) string {
	var stack []string
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				return "unclosed tag"
			}
			tag := s[i+1 : i+j]
			i += j + 1
			if strings.HasPrefix(tag, "/") {
				if len(stack) == 0 || stack[len(stack)-1] != tag[1:] {
					return "unbalanced </" + tag[1:] + ">"
				}
				stack = stack[:len(stack)-1]
				continue
			}
			name := tag
			if tgTimeAttrs.MatchString(tag) { // a date-time entity, as the Bot API takes it
				name = "tg-time"
			}
			if strings.HasPrefix(tag, "a href=\"") && strings.HasSuffix(tag, "\"") {
				name = "a"
				if strings.ContainsAny(tag[8:len(tag)-1], "<>\"") {
					return "bad href"
				}
			}
			switch name {
			case "b", "i", "code", "a", "pre", "tg-time":
			default:
				return "unknown tag <" + tag + ">"
			}
			stack = append(stack, name)
		case '>':
			return "bare >"
		case '&':
			ok := false
			for _, e := range []string{"&amp;", "&lt;", "&gt;", "&quot;"} {
				if strings.HasPrefix(s[i:], e) {
					ok = true
					i += len(e)
					break
				}
			}
			if !ok {
				return "bare &"
			}
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return "unclosed <" + stack[len(stack)-1] + ">"
	}
	return ""
}

// WaitFor waits up to 10 s for cond, failing t with what.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
