package commands

import (
	"html"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
)

// Input limits. Telegram allows 4096 characters in a message; nothing a
// command needs is longer than a component name.
const (
	maxCommandLen = 32  // Telegram's limit for a command name
	maxMentionLen = 64  // a bot username is at most 32; be lenient
	maxArgsLen    = 256 // arguments beyond this are cut before parsing
	maxEchoLen    = 64  // a user's value quoted back is cut to this
)

// Command is a parsed "/name@mention args" message.
type Command struct {
	// Name is lower-case, without the slash.
	Name string
	// Mention is the "@bot" part without "@", as written ("" if none).
	Mention string
	// Args is the rest of the text, trimmed and cut to maxArgsLen runes.
	Args string
}

// ParseCommand reads a bot command at the start of text. It reports false
// for anything Telegram would not mark as a command: no leading slash, or
// a name that is empty, too long or not made of letters, digits and "_".
// Punctuation right after the command ends it, as Telegram highlights
// "/help" in "/help." and "/status" in "/status, API".
func ParseCommand(text string) (Command, bool) {
	if !strings.HasPrefix(text, "/") {
		return Command{}, false
	}
	word, rest := text[1:], ""
	if i := strings.IndexFunc(word, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(endPunct, r) }); i >= 0 {
		word, rest = word[:i], strings.TrimLeft(word[i:], endPunct)
	}
	name, mention, hasAt := strings.Cut(word, "@")
	if name == "" || len(name) > maxCommandLen || !isCommandName(name) {
		return Command{}, false
	}
	if hasAt && (mention == "" || len(mention) > maxMentionLen || !isCommandName(mention)) {
		return Command{}, false
	}
	return Command{Name: strings.ToLower(name), Mention: mention, Args: cutArgs(rest)}, true
}

// endPunct ends a command word (and is dropped before the arguments).
const endPunct = ".,;:!?"

func isCommandName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// cutArgs makes arguments valid UTF-8, turns control characters and line
// breaks into spaces, collapses runs of spaces and cuts the result.
func cutArgs(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if n >= maxArgsLen {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n >= maxArgsLen {
				break
			}
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// For reports whether the command is for the bot with this username: no
// mention, or a mention of it (case-insensitive).
func (c Command) For(username string) bool {
	return c.Mention == "" || strings.EqualFold(c.Mention, username)
}

// echo cuts a user's value for quoting back; the caller escapes it.
func echo(s string) string {
	if utf8.RuneCountInString(s) <= maxEchoLen {
		return s
	}
	r := []rune(s)
	return string(r[:maxEchoLen-1]) + "…"
}

// trimQuotes drops quotes around a whole argument ("API" or «API»).
func trimQuotes(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range [][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"«", "»"}, {"`", "`"}} {
		if len(s) >= len(p[0])+len(p[1]) && strings.HasPrefix(s, p[0]) && strings.HasSuffix(s, p[1]) {
			return strings.TrimSpace(s[len(p[0]) : len(s)-len(p[1])])
		}
	}
	return s
}

// History count: default, maximum.
const (
	historyDefault = 5
	historyMax     = 10
)

// parseHistoryCount reads /history's count: non-numbers and values below 1
// give the default, values above the maximum give the maximum.
func parseHistoryCount(args string) int {
	f := strings.Fields(args)
	if len(f) == 0 {
		return historyDefault
	}
	n, err := strconv.Atoi(strings.TrimRight(f[0], endPunct))
	if err != nil {
		// Digits too many for an int are still "a lot".
		if allDigits(f[0]) {
			return historyMax
		}
		return historyDefault
	}
	if n < 1 {
		return historyDefault
	}
	return min(n, historyMax)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	s = strings.TrimPrefix(s, "+")
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// SubOp is what a /subscribe command asks for.
type SubOp int

const (
	SubShow            SubOp = iota // no arguments: usage and settings
	SubKinds                        // set notification types
	SubAddComponent                 // add one component to the filter
	SubRemoveComponent              // remove one component from the filter
	SubClearComponents              // no component filter
	SubInvalid                      // a bad argument; Err says why
)

// SubRequest is a parsed /subscribe.
type SubRequest struct {
	Op    SubOp
	Kinds []event.Kind
	// Query names a component (name or ID) for add and remove.
	Query string
	// Err is a plain-text message for SubInvalid (not escaped).
	Err string
}

// subProblem is a bad /subscribe argument as the catalogs say it: a
// message id and its placeholders.
type subProblem struct {
	id   string
	data []any
}

// In is the problem in c's language (HTML).
func (p subProblem) In(c i18n.Catalog) string { return c.T(p.id, p.data...) }

// subInvalid is a bad /subscribe argument: Err in English, and the
// problem for the chat's language.
func subInvalid(id string, data ...any) (SubRequest, subProblem) {
	return SubRequest{Op: SubInvalid, Err: html.UnescapeString(en.T(id, data...))}, subProblem{id, data}
}

// ParseSubscribe reads /subscribe's arguments:
//
//	(none)                         usage and current settings
//	incident|component|maintenance|all [more types]   notification types
//	component <name|id>            add a component filter
//	component remove <name|id>     drop one component filter
//	component all                  clear the component filter
//
// Type words are case-insensitive, may be plural and comma-separated.
// "component" alone is asked about rather than read as "component
// notices only" (which silently dropped incidents and maintenance for
// someone who meant to name a component); "component only" says that.
func ParseSubscribe(args string) SubRequest {
	r, _ := parseSubscribe(args)
	return r
}

// parseSubscribe is ParseSubscribe with, for SubInvalid, the problem to
// say in the chat's language.
func parseSubscribe(args string) (SubRequest, subProblem) {
	args = strings.TrimSpace(args)
	if args == "" {
		return SubRequest{Op: SubShow}, subProblem{}
	}
	first, rest, _ := strings.Cut(args, " ")
	rest = strings.TrimSpace(rest)
	if k, ok := kindWord(first); ok && k == event.KindComponent {
		switch strings.ToLower(rest) {
		case "":
			return subInvalid("sub.whichComponent")
		case "only":
			return SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindComponent}}, subProblem{}
		}
	}
	if k, ok := kindWord(first); ok && k == event.KindComponent && rest != "" && !looksLikeKinds(rest) {
		low := strings.ToLower(rest)
		if low == "all" || low == "*" || low == "any" {
			return SubRequest{Op: SubClearComponents}, subProblem{}
		}
		verb, q, _ := strings.Cut(rest, " ")
		switch strings.ToLower(verb) {
		case "remove", "rm", "delete", "del", "-":
			q = trimQuotes(q)
			if q == "" {
				return subInvalid("sub.sayRemove")
			}
			return SubRequest{Op: SubRemoveComponent, Query: q}, subProblem{}
		case "add", "+":
			if q = trimQuotes(q); q != "" {
				return SubRequest{Op: SubAddComponent, Query: q}, subProblem{}
			}
		}
		return SubRequest{Op: SubAddComponent, Query: trimQuotes(rest)}, subProblem{}
	}
	var kinds []event.Kind
	all := false
	for _, w := range strings.FieldsFunc(args, func(r rune) bool { return r == ',' || r == '+' || unicode.IsSpace(r) }) {
		low := strings.ToLower(w)
		if low == "all" {
			all = true
			continue
		}
		k, ok := kindWord(w)
		if !ok {
			return subInvalid("sub.unknownType", "Type", escEcho(w))
		}
		kinds = append(kinds, k)
	}
	if all {
		return SubRequest{Op: SubKinds, Kinds: append([]event.Kind(nil), event.Kinds...)}, subProblem{}
	}
	if len(kinds) == 0 {
		// Only separators ("/subscribe ,"): no types is not a request
		// to receive nothing.
		return subInvalid("sub.sayTypes")
	}
	// Keep the canonical order, each kind once.
	var out []event.Kind
	for _, k := range event.Kinds {
		for _, w := range kinds {
			if w == k {
				out = append(out, k)
				break
			}
		}
	}
	return SubRequest{Op: SubKinds, Kinds: out}, subProblem{}
}

// looksLikeKinds reports whether every word of s is a type word, as in
// "component incident": a list of types rather than a component name.
func looksLikeKinds(s string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '+' || unicode.IsSpace(r) })
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if _, ok := kindWord(w); !ok {
			return false
		}
	}
	return true
}

func kindWord(w string) (event.Kind, bool) {
	switch strings.ToLower(strings.Trim(w, ",")) {
	case "incident", "incidents":
		return event.KindIncident, true
	case "component", "components":
		return event.KindComponent, true
	case "maintenance", "maintenances":
		return event.KindMaintenance, true
	}
	return "", false
}
