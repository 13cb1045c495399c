package message

import (
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLength is Telegram's limit for a message text, counted after entity
// parsing in UTF-16 code units. Notification keeps both that visible length
// and the raw HTML (in Unicode characters) within it.
const MaxLength = 4096

// Ellipsis ends every truncated text.
const Ellipsis = "…"

var (
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)

// Escape makes s safe as text in a Telegram HTML message: &, < and > become
// entities, and invalid UTF-8 becomes U+FFFD.
func Escape(s string) string {
	return textEscaper.Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

// escapeAttr makes s safe inside a double-quoted attribute value.
func escapeAttr(s string) string {
	return attrEscaper.Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

// maxURLLen drops links longer than this: they would eat the message budget.
const maxURLLen = 2048

// Link returns <a href="u">text</a> for an absolute http(s) URL, and "" for
// anything else. text is plain text; it is escaped here.
func Link(u, text string) string {
	u = strings.TrimSpace(u)
	if u == "" || len(u) > maxURLLen || !utf8.ValidString(u) {
		return ""
	}
	if strings.ContainsFunc(u, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	if s := strings.ToLower(p.Scheme); s != "http" && s != "https" {
		return ""
	}
	return `<a href="` + escapeAttr(u) + `">` + Escape(text) + "</a>"
}

// VisibleLength is the length Telegram counts for a message: the text after
// tags are removed and entities decoded, in UTF-16 code units.
func VisibleLength(html string) int {
	n := 0
	for i := 0; i < len(html); {
		t := nextToken(html[i:])
		n += t.vis
		i += len(t.s)
	}
	return n
}

// fits reports whether an HTML message is within MaxLength both as visible
// text and as raw characters.
func fits(html string) bool {
	return utf8.RuneCountInString(html) <= MaxLength && VisibleLength(html) <= MaxLength
}

// Truncate shortens an escaped HTML fragment so that both its visible length
// (UTF-16 code units after entity parsing) and its raw length (Unicode
// characters) are at most max. A fragment already within max is returned
// unchanged; otherwise the result ends with "…" (inside any tags still open at
// the cut, which are then closed). It cuts only between tokens, never inside
// an entity or a tag, and prefers a line boundary, then a word boundary, then
// any character boundary that does not split a combining sequence.
func Truncate(fragment string, max int) string {
	return truncate(fragment, max, max)
}

// truncate is Truncate with separate limits for the visible and raw lengths.
func truncate(s string, maxVis, maxRaw int) string {
	if utf8.RuneCountInString(s) <= maxRaw && VisibleLength(s) <= maxVis {
		return s
	}
	// Only the tokens that can fit are needed, and the one after them.
	var toks []token
	for i, v, r := 0, 0, 0; i < len(s) && v <= maxVis && r <= maxRaw; {
		t := nextToken(s[i:])
		toks = append(toks, t)
		i += len(t.s)
		v += t.vis
		r += t.raw
	}
	ellVis, ellRaw := 1, 1
	if maxVis < ellVis || maxRaw < ellRaw {
		return ""
	}

	type cut struct {
		at    int // tokens kept
		vis   int // visible length kept
		stack []string
		ok    bool
	}
	var anyCut, safeCut, wordCut, lineCut cut
	var stack []string
	closers := 0 // raw length of the closing tags for stack
	pv, pr := 0, 0
	ri := 0 // regional indicators right before the boundary
	for i := 0; i <= len(toks); i++ {
		// Boundary before token i.
		if pv+ellVis > maxVis || pr+ellRaw > maxRaw {
			break // the prefix only grows: no later boundary fits
		}
		// Closing the open tags may not fit here but fit after they close.
		if pr+ellRaw+closers <= maxRaw {
			c := cut{at: i, vis: pv, stack: stack, ok: true}
			anyCut = c
			if !joins(toks, i, ri) {
				safeCut = c
			}
			if i > 0 && i < len(toks) && toks[i].isSpace() {
				wordCut = c
				if toks[i].r == '\n' || toks[i].r == '\r' {
					lineCut = c
				}
			}
		}
		if i == len(toks) {
			break
		}
		t := toks[i]
		pv += t.vis
		pr += t.raw
		if t.kind == tokText && isRegional(t.r) {
			ri++
		} else {
			ri = 0
		}
		switch t.kind {
		case tokOpen:
			stack = append(stack[:len(stack):len(stack)], t.name)
			closers += closerLen(t.name)
		case tokClose:
			if n := len(stack); n > 0 && stack[n-1] == t.name {
				stack = stack[: n-1 : n-1]
				closers -= closerLen(t.name)
			}
		}
	}
	best := safeCut
	if !best.ok {
		best = anyCut
	}
	if !best.ok {
		return ""
	}
	min := best.vis * 3 / 4
	if lineCut.ok && lineCut.vis >= min {
		best = lineCut
	} else if wordCut.ok && wordCut.vis >= min {
		best = wordCut
	}
	// Drop trailing white space before the ellipsis.
	end := best.at
	for end > 0 && toks[end-1].isSpace() {
		end--
	}
	var b strings.Builder
	for _, t := range toks[:end] {
		b.WriteString(t.s)
	}
	b.WriteString(Ellipsis)
	for i := len(best.stack) - 1; i >= 0; i-- {
		b.WriteString("</" + best.stack[i] + ">")
	}
	return b.String()
}

func closerLen(name string) int { return utf8.RuneCountInString(name) + 3 }

// joins reports whether cutting before token i would split a character from
// what modifies it (combining marks, ZWJ sequences, variation selectors,
// skin tones, emoji tag sequences, a regional-indicator flag). ri is the
// number of regional indicators right before token i.
func joins(toks []token, i, ri int) bool {
	if i == 0 || i >= len(toks) {
		return false
	}
	cur, prev := toks[i], toks[i-1]
	if prev.kind == tokText && prev.r == '\u200d' {
		return true
	}
	if cur.kind != tokText {
		return false
	}
	r := cur.r
	switch {
	case r == '\u200d', r >= 0xFE00 && r <= 0xFE0F, r >= 0x1F3FB && r <= 0x1F3FF,
		r >= 0xE0020 && r <= 0xE007F, unicode.In(r, unicode.Mn, unicode.Me):
		return true
	case isRegional(r):
		// Split only between pairs of indicators.
		return ri%2 == 1
	case r == '\n' && prev.kind == tokText && prev.r == '\r':
		return true
	}
	return false
}

func isRegional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

type tokKind uint8

const (
	tokText tokKind = iota
	tokEntity
	tokOpen
	tokClose
)

type token struct {
	s    string
	kind tokKind
	name string // tag name, lower case
	r    rune   // the character of a text token
	vis  int    // UTF-16 code units Telegram shows
	raw  int    // Unicode characters of s
}

func (t token) isSpace() bool { return t.kind == tokText && unicode.IsSpace(t.r) }

// nextToken returns the tag, entity or single character s starts with
// (s is not empty). A '<' or '&' that starts no well-formed tag or entity
// is a plain character.
func nextToken(s string) token {
	switch s[0] {
	case '<':
		if t, ok := scanTag(s); ok {
			return t
		}
	case '&':
		if t, ok := scanEntity(s); ok {
			return t
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	vis := 1
	if r > 0xFFFF {
		vis = 2
	}
	return token{s: s[:n], kind: tokText, r: r, vis: vis, raw: 1}
}

func scanTag(s string) (token, bool) {
	end := strings.IndexAny(s[1:], "<>")
	if end < 0 || s[1+end] != '>' {
		return token{}, false
	}
	body := s[1 : 1+end]
	kind := tokOpen
	if strings.HasPrefix(body, "/") {
		kind = tokClose
		body = body[1:]
	}
	n := 0
	for n < len(body) && (isASCIILetter(body[n]) || n > 0 && (body[n] >= '0' && body[n] <= '9' || body[n] == '-')) {
		n++
	}
	if n == 0 {
		return token{}, false
	}
	if n < len(body) {
		if kind == tokClose && strings.TrimSpace(body[n:]) != "" {
			return token{}, false
		}
		if kind == tokOpen && body[n] != ' ' && body[n] != '\t' && body[n] != '\n' {
			return token{}, false
		}
	}
	t := s[:end+2]
	return token{s: t, kind: kind, name: strings.ToLower(body[:n]), raw: utf8.RuneCountInString(t)}, true
}

func scanEntity(s string) (token, bool) {
	end := strings.IndexByte(s[:min(len(s), 14)], ';')
	if end < 2 || end > 12 {
		return token{}, false
	}
	name := s[1:end]
	vis := 1
	if name[0] == '#' {
		var v uint64
		var err error
		if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
			v, err = strconv.ParseUint(name[2:], 16, 32)
		} else {
			v, err = strconv.ParseUint(name[1:], 10, 32)
		}
		if err != nil {
			return token{}, false
		}
		if v > 0xFFFF {
			vis = 2
		}
	} else {
		for i := 0; i < len(name); i++ {
			if !isASCIILetter(name[i]) {
				return token{}, false
			}
		}
	}
	return token{s: s[:end+1], kind: tokEntity, vis: vis, raw: end + 1}, true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Plain is an HTML message as the text it shows, tags dropped and
// entities decoded: what is sent, without parse mode, when Telegram
// refuses a message's entities.
func Plain(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		t := nextToken(s[i:])
		switch t.kind {
		case tokText:
			b.WriteString(t.s)
		case tokEntity:
			b.WriteString(html.UnescapeString(t.s))
		}
		i += len(t.s)
	}
	return b.String()
}
