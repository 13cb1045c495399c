package commands

import (
	"strings"

	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Several pages in the commands, as plain rules: which pages a command
// covers, a page named in its arguments, and the one page the filter and
// the component commands read when a chat follows several (pageset.Merge).

// Covered is the names of the pages a command covers: the page typed, else
// the pages the chat follows (in the offer's order), else, for a chat not
// subscribed, the default page.
func Covered(o pages.Offer, sub *store.Subscriber, typed string) []string {
	if typed != "" {
		return []string{typed}
	}
	if sub == nil {
		return []string{o.Default().Name}
	}
	var out []string
	for _, n := range o.Names(pages.Followed(sub.Pages)) {
		if _, ok := o.Find(n); ok {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		// Only pages the offer no longer lists: the default one.
		return []string{o.Default().Name}
	}
	return out
}

// SplitPageArg reads a page's name at the start of a command's arguments
// ("/status github API"): the page and the rest, or "" and the arguments
// when the first word names no offered page. With one page on offer no
// word is taken for a page, so a component named like it is still found.
func SplitPageArg(o pages.Offer, args string) (page, rest string) {
	if len(o.List) < 2 {
		return "", args
	}
	first, after, _ := strings.Cut(strings.TrimSpace(args), " ")
	if p, ok := o.Find(strings.ToLower(strings.TrimRight(first, endPunct))); ok {
		return p.Name, strings.TrimSpace(after)
	}
	return "", args
}

// ParsePageArg reads "page <name>" (also "pages"), the page commands of
// /subscribe and /unsubscribe: ok is false when the arguments are not
// about a page; name is "" when none was given.
func ParsePageArg(args string) (name string, ok bool) {
	first, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch strings.ToLower(first) {
	case "page", "pages":
		return trimQuotes(rest), true
	}
	return "", false
}
