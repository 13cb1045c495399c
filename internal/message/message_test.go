package message_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// parseHTML checks s the way Telegram's HTML parse mode would: only the
// supported tags, balanced and properly nested, attributes only on <a href>,
// no bare '<', '>' or '&', valid UTF-8. It returns the visible text.
// untimed is s without its date-time entities' tags: their text fallback.
func untimed(s string) string { return tgTimeTag.ReplaceAllString(s, "") }

var tgTimeTag = regexp.MustCompile(`</?tg-time[^>]*>`)

var tgTime = regexp.MustCompile(`^unix="[1-9][0-9]*" format="(r|w?[dD]?[tT]?)"$`)

func parseHTML(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("invalid UTF-8")
	}
	allowed := map[string]bool{"b": true, "i": true, "u": true, "s": true, "a": true, "code": true, "pre": true, "tg-time": true}
	var stack []string
	var text strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("unterminated tag at %d", i)
			}
			tag := s[i+1 : i+end]
			i += end + 1
			if strings.HasPrefix(tag, "/") {
				name := tag[1:]
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return "", fmt.Errorf("unbalanced </%s> (open: %v)", name, stack)
				}
				stack = stack[:len(stack)-1]
				continue
			}
			name, attrs, _ := strings.Cut(tag, " ")
			if !allowed[name] {
				return "", fmt.Errorf("tag <%s> not supported", tag)
			}
			if name == "a" {
				if !strings.HasPrefix(attrs, `href="`) || !strings.HasSuffix(attrs, `"`) || len(attrs) < 7 {
					return "", fmt.Errorf("bad <a %s>", attrs)
				}
				href := attrs[6 : len(attrs)-1]
				if strings.ContainsAny(href, `"<>`) {
					return "", fmt.Errorf("unescaped href %q", href)
				}
				if _, err := parseHTML(href); err != nil {
					return "", fmt.Errorf("href: %v", err)
				}
				if !strings.HasPrefix(href, "http://") && !strings.HasPrefix(href, "https://") {
					return "", fmt.Errorf("href not http(s): %q", href)
				}
				for _, open := range stack {
					if open == "a" {
						return "", fmt.Errorf("nested <a>")
					}
				}
			} else if name == "tg-time" {
				// As the Bot API parses it: a Unix time, and a format of
				// w, d/D, t/T (or r alone); anything else is refused.
				if !tgTime.MatchString(attrs) {
					return "", fmt.Errorf("bad <tg-time %s>", attrs)
				}
			} else if attrs != "" {
				return "", fmt.Errorf("attributes on <%s>", name)
			}
			stack = append(stack, name)
		case '>':
			return "", fmt.Errorf("bare '>' at %d", i)
		case '&':
			end := strings.IndexByte(s[i:], ';')
			if end < 0 {
				return "", fmt.Errorf("bare '&' at %d", i)
			}
			ent := s[i : i+end+1]
			dec, ok := map[string]string{"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": `"`}[ent]
			if !ok {
				return "", fmt.Errorf("unknown entity %q", ent)
			}
			text.WriteString(dec)
			i += end + 1
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			text.WriteRune(r)
			i += n
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("unclosed tags %v", stack)
	}
	return text.String(), nil
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// checkMessage asserts s is valid Telegram HTML within both length limits
// and returns the visible text.
func checkMessage(t testing.TB, s string) string {
	t.Helper()
	text, err := parseHTML(s)
	if err != nil {
		t.Fatalf("invalid HTML: %v\n%.600q", err, s)
	}
	if n := utf16Len(text); n > message.MaxLength {
		t.Fatalf("visible length %d UTF-16 units > %d", n, message.MaxLength)
	}
	if n := utf8.RuneCountInString(s); n > message.MaxLength {
		t.Fatalf("raw length %d characters > %d", n, message.MaxLength)
	}
	if got, want := message.VisibleLength(s), utf16Len(text); got != want {
		t.Fatalf("VisibleLength = %d, parsed text has %d UTF-16 units", got, want)
	}
	return text
}

// checkXML is a second, independent opinion on well-formedness.
func checkXML(t testing.TB, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader("<root>" + s + "</root>"))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.600q", err, s)
		}
	}
}

func TestNotification(t *testing.T) {
	component := event.Event{
		Kind: event.KindComponent, ComponentID: "abcdefgh1234", ComponentName: "API",
		ComponentLabel: "API", OldStatus: "operational", NewStatus: "degraded_performance",
		PageURL: "https://status.openai.com",
	}
	incident := event.Event{
		Kind: event.KindIncident, IncidentID: "inc1", IncidentName: "Elevated errors",
		Impact: "major", UpdateStatus: "investigating", Body: "We are investigating.",
		URL: "https://stspg.io/abc",
	}
	maint := incident
	maint.Kind = event.KindMaintenance
	maint.IncidentName = "Database upgrade"
	maint.Impact = "maintenance"
	maint.UpdateStatus = "in_progress"

	with := func(e event.Event, f func(*event.Event)) event.Event { f(&e); return e }

	tests := []struct {
		name    string
		e       event.Event
		want    []string // substrings of the HTML
		notWant []string
		text    []string // substrings of the visible text
	}{
		{
			name: "component change",
			e:    component,
			want: []string{"🔔 <b>Component status changed</b>", "<b>API</b>", "Operational -&gt; Degraded Performance",
				`<a href="https://status.openai.com">`},
			text: []string{"Operational -> Degraded Performance"},
		},
		{
			name: "component label falls back to name",
			e:    with(component, func(e *event.Event) { e.ComponentLabel = ""; e.ComponentName = "Chat" }),
			want: []string{"<b>Chat</b>"},
		},
		{
			name: "component label with ID for duplicate names",
			e:    with(component, func(e *event.Event) { e.ComponentLabel = "API (ID: abcdefgh)" }),
			want: []string{"<b>API (ID: abcdefgh)</b>"},
		},
		{
			name:    "new component",
			e:       with(component, func(e *event.Event) { e.OldStatus = ""; e.NewStatus = "major_outage" }),
			want:    []string{"New component, status: Major Outage"},
			notWant: []string{"-&gt;", "Unknown"},
		},
		{
			name:    "component without page URL",
			e:       with(component, func(e *event.Event) { e.PageURL = "" }),
			notWant: []string{"<a "},
		},
		{
			name: "incident",
			e:    incident,
			want: []string{"🚨 <b>Incident update</b>", "<b>Elevated errors</b>", "Status: Investigating",
				"Impact: Major", "We are investigating.", `<a href="https://stspg.io/abc">View incident</a>`},
			notWant: []string{"Scheduled maintenance"},
		},
		{
			name: "resolved incident",
			e:    with(incident, func(e *event.Event) { e.UpdateStatus = "resolved" }),
			want: []string{"✅ <b>Incident update</b>", "Status: Resolved"},
		},
		{
			name:    "maintenance",
			e:       maint,
			want:    []string{"🛠 <b>Scheduled maintenance</b>", "<b>Database upgrade</b>", "Status: In progress", "Impact: Maintenance"},
			notWant: []string{"Incident update"},
		},
		{
			name: "escaping",
			e: with(incident, func(e *event.Event) {
				e.IncidentName = "<script>alert(1)</script> & co"
				e.Body = "a < b && c > d <b>not bold</b> &amp;"
			}),
			want: []string{"<b>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</b>",
				"a &lt; b &amp;&amp; c &gt; d &lt;b&gt;not bold&lt;/b&gt; &amp;amp;"},
			notWant: []string{"<script>"},
			text:    []string{"<script>alert(1)</script> & co", "a < b && c > d <b>not bold</b> &amp;"},
		},
		{
			name:    "escaping in component",
			e:       with(component, func(e *event.Event) { e.ComponentLabel = "A&B <x>"; e.NewStatus = "weird_<state>" }),
			want:    []string{"<b>A&amp;B &lt;x&gt;</b>", "Weird &lt;state&gt;"},
			notWant: []string{"<x>"},
		},
		{
			name: "quote in href",
			e:    with(incident, func(e *event.Event) { e.URL = `https://example.com/a"b?x=1&y=<2>` }),
			want: []string{`<a href="https://example.com/a&quot;b?x=1&amp;y=&lt;2&gt;">`},
		},
		{
			name:    "non-http link dropped",
			e:       with(incident, func(e *event.Event) { e.URL = "javascript:alert(1)" }),
			notWant: []string{"<a ", "javascript"},
		},
		{
			name:    "relative link dropped",
			e:       with(incident, func(e *event.Event) { e.URL = "/incidents/x" }),
			notWant: []string{"<a "},
		},
		{
			name: "empty body",
			e:    with(incident, func(e *event.Event) { e.Body = "" }),
			want: []string{message.NoBody},
		},
		{
			name: "blank body",
			e:    with(incident, func(e *event.Event) { e.Body = " \n\t " }),
			want: []string{message.NoBody},
		},
		{
			name: "empty name and labels",
			e:    with(incident, func(e *event.Event) { e.IncidentName = ""; e.UpdateStatus = ""; e.Impact = "" }),
			want: []string{"Status: Unknown", "Impact: Unknown"},
		},
		{
			name: "invalid UTF-8",
			e:    with(incident, func(e *event.Event) { e.Body = "bad \xff\xfe bytes" }),
			want: []string{"bad \uFFFD bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := message.Notification(tt.e)
			text := checkMessage(t, got)
			checkXML(t, got)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
			for _, w := range tt.text {
				if !strings.Contains(text, w) {
					t.Errorf("visible text lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(got, "…") {
				t.Errorf("short message was truncated:\n%s", got)
			}
		})
	}
}

func TestNotificationHuge(t *testing.T) {
	base := event.Event{
		Kind: event.KindIncident, IncidentName: "Outage", Impact: "critical",
		UpdateStatus: "identified", URL: "https://stspg.io/abc",
	}
	tests := []struct {
		name        string
		body, iname string
		keepName    bool // the full name survives
	}{
		{name: "ascii body", body: strings.Repeat("word ", 20000), keepName: true},
		{name: "lines", body: strings.Repeat("a line of text\n", 7000), keepName: true},
		{name: "emoji body", body: strings.Repeat("🔥", 100000), keepName: true},
		{name: "zwj emoji body", body: strings.Repeat("👩‍👩‍👧‍👦", 20000), keepName: true},
		{name: "flags", body: "x" + strings.Repeat("🇯🇵", 20000), keepName: true},
		{name: "cjk body", body: strings.Repeat("障害が発生しています", 10000), keepName: true},
		{name: "entities body", body: strings.Repeat("<&>", 40000), keepName: true},
		{name: "mixed", body: strings.Repeat("a&b <c> 😀 中文\n", 7000), keepName: true},
		{name: "huge name", body: "short body", keepName: false, iname: strings.Repeat("Name & <name> ", 10000)},
		{name: "huge name and body", body: strings.Repeat("😀&", 50000), iname: strings.Repeat("名前", 50000)},
		{name: "name slightly long", body: strings.Repeat("b", 3500), iname: strings.Repeat("n", 600), keepName: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := base
			e.Body = tt.body
			if tt.iname != "" {
				e.IncidentName = tt.iname
			}
			got := message.Notification(e)
			text := checkMessage(t, got)
			checkXML(t, got)
			if !strings.Contains(got, "…") {
				t.Errorf("no ellipsis")
			}
			if !strings.Contains(got, `<a href="https://stspg.io/abc">View incident</a>`) {
				t.Errorf("link lost")
			}
			if !strings.Contains(text, "Status: Identified") || !strings.Contains(text, "Impact: Critical") {
				t.Errorf("labels lost")
			}
			if tt.keepName && !strings.Contains(text, e.IncidentName) {
				t.Errorf("name was cut")
			}
			// One of the two limits binds: the cut is not far from it.
			if n := max(utf16Len(text), utf8.RuneCountInString(got)); n < message.MaxLength*9/10 && len(tt.body) > message.MaxLength {
				t.Errorf("length %d: cut far more than needed", n)
			}
		})
	}
}

func TestNotificationHugeComponent(t *testing.T) {
	e := event.Event{
		Kind: event.KindComponent, ComponentLabel: strings.Repeat("<&>😀", 5000),
		OldStatus: strings.Repeat("x_", 5000), NewStatus: strings.Repeat("é", 5000),
		PageURL: "https://status.openai.com/" + strings.Repeat("a", 5000),
	}
	got := message.Notification(e)
	checkMessage(t, got)
	checkXML(t, got)
	if strings.Contains(got, "<a ") {
		t.Errorf("overlong URL kept")
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"plain":             "plain",
		"<script>":          "&lt;script&gt;",
		"a & b":             "a &amp; b",
		"&amp;":             "&amp;amp;",
		`"quoted" 'single'`: `"quoted" 'single'`,
		"😀 中":               "😀 中",
		"\xff":              "\uFFFD",
	} {
		if got := message.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLink(t *testing.T) {
	for in, want := range map[string]string{
		"https://stspg.io/x":         `<a href="https://stspg.io/x">t&amp;</a>`,
		"HTTP://example.com":         `<a href="HTTP://example.com">t&amp;</a>`,
		" https://example.com ":      `<a href="https://example.com">t&amp;</a>`,
		`https://e.com/?q="x"&a=<b>`: `<a href="https://e.com/?q=&quot;x&quot;&amp;a=&lt;b&gt;">t&amp;</a>`,
		"":                           "",
		"ftp://example.com":          "",
		"javascript:alert(1)":        "",
		"https://":                   "",
		"example.com":                "",
		"https://exa mple.com":       "",
		"https://example.com/\n<b>":  "",
		"https://example.com/%zz":    "",
	} {
		if got := message.Link(in, "t&"); got != want {
			t.Errorf("Link(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"hello world foo", 12, "hello world…"},
		{"first line\nsecond line", 14, "first line…"},
		{"abcdefghijklmnop", 5, "abcd…"},
		{"a &amp; b &amp; c", 8, "a &amp;…"},                    // never inside &amp;
		{"&amp;&amp;&amp;&amp;", 12, "&amp;&amp;…"},             // raw length binds
		{"&lt;&lt;&lt;", 7, "&lt;…"},                            // entity kept whole or dropped
		{"<b>bold text here</b> tail", 20, "<b>bold text…</b>"}, // tag closed
		{"<b>bold</b> and more words", 18, "<b>bold</b> and…"},
		{"😀😀😀😀", 5, "😀😀…"}, // UTF-16: 2 units each
		{"中文中文中文", 4, "中文中…"},
		{"e\u0301e\u0301e\u0301", 4, "e\u0301…"}, // no split before a combining mark
		{"abc", 0, ""},
		{"abc", 1, "…"},
		{"", 5, ""},
		{"word   \n  next", 11, "word…"}, // trailing white space dropped
	}
	for _, tt := range tests {
		got := message.Truncate(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		checkFragment(t, got, tt.max)
	}
}

// checkFragment asserts a truncated fragment is valid and within max both
// ways.
func checkFragment(t testing.TB, s string, max int) {
	t.Helper()
	text, err := parseHTML(s)
	if err != nil {
		t.Fatalf("invalid fragment %q: %v", s, err)
	}
	if n := utf16Len(text); n > max {
		t.Fatalf("visible length %d > %d: %q", n, max, s)
	}
	if n := utf8.RuneCountInString(s); n > max {
		t.Fatalf("raw length %d > %d: %q", n, max, s)
	}
}

func FuzzNotification(f *testing.F) {
	f.Add("We are investigating <elevated> error rates & latency.", "API errors", "investigating", uint8(0))
	f.Add(strings.Repeat("😀&中\n", 1000), strings.Repeat("<n>", 300), "resolved", uint8(1))
	f.Add("", "", "", uint8(2))
	f.Add(strings.Repeat("a", 5000), "\xff\xfe", "weird_status", uint8(1))
	f.Fuzz(func(t *testing.T, body, name, status string, kind uint8) {
		e := event.Event{
			Kind: event.Kinds[int(kind)%len(event.Kinds)], IncidentName: name, Body: body,
			UpdateStatus: status, Impact: status, URL: "https://stspg.io/" + name,
			ComponentLabel: name, ComponentName: body, OldStatus: status, NewStatus: body,
			PageURL: "https://status.openai.com",
		}
		got := message.Notification(e)
		checkMessage(t, got)
	})
}

func FuzzTruncate(f *testing.F) {
	f.Add("hello world\nsecond line", 10, false)
	f.Add("a & b <c> 😀 中文 e\u0301", 7, true)
	f.Add(strings.Repeat("&", 100), 13, true)
	f.Add("\xff<b>", 3, false)
	f.Fuzz(func(t *testing.T, s string, max int, wrap bool) {
		max %= 6000
		if max < 0 {
			max = -max
		}
		frag := message.Escape(s)
		if wrap {
			frag = "<b>" + frag + "</b> <i>" + frag + `</i> <a href="https://x.io/?a=1&amp;b">` + frag + "</a>"
		}
		got := message.Truncate(frag, max)
		checkFragment(t, got, max)
		if got != frag && got != "" {
			if !strings.HasSuffix(strings.TrimRight(got, "</abi>"), "…") {
				t.Fatalf("truncated without ellipsis: %q", got)
			}
		}
		// Arbitrary (possibly unescaped) input: no panic, bounds hold.
		raw := message.Truncate(s, max)
		if raw != s {
			if message.VisibleLength(raw) > max || utf8.RuneCountInString(raw) > max {
				t.Fatalf("Truncate(%q, %d) = %q out of bounds", s, max, raw)
			}
		}
	})
}

// The words the bot writes for a maintenance that started or ended with
// no update (incident.io pages) are said in the chat's language; the
// page's own words stay as written.
func TestMaintenanceTransitionTextInTheChatsLanguage(t *testing.T) {
	de := i18n.Of("de")
	for in, want := range map[string]string{
		statuspage.MaintenanceStartedText:  "Die Wartung hat begonnen.",
		statuspage.MaintenanceCompleteText: "Die Wartung ist abgeschlossen.",
		"We are upgrading the database.":   "We are upgrading the database.",
	} {
		if got := message.PageText(de, in); got != want {
			t.Errorf("PageText(de, %q) = %q, want %q", in, got, want)
		}
		if got := message.PageText(i18n.Of(i18n.Default), in); got != in {
			t.Errorf("PageText(en, %q) = %q", in, got)
		}
	}
	e := event.Event{Kind: event.KindMaintenance, IncidentID: "m1", IncidentName: "DB upgrade", UpdateStatus: "in_progress",
		Body: statuspage.MaintenanceStartedText, At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if got := message.NotificationOf(de, e, time.UTC); !strings.Contains(got, "Die Wartung hat begonnen.") || strings.Contains(got, "The maintenance") {
		t.Errorf("German maintenance notice:\n%s", got)
	}
}
